/// A problem found while building a ``RouteTable``. Errors stop the build; warnings are kept in
/// ``RouteTable/diagnostics``.
public struct RouteTableDiagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Codable {
        case error, warning
    }

    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let invalidPattern = Code(rawValue: "invalid_pattern")
        /// A scheme or host of the table that no URL can carry.
        public static let invalidSource = Code(rawValue: "invalid_source")
        public static let duplicateName = Code(rawValue: "duplicate_route_name")
        /// Two routes match exactly the same URLs from a common source.
        public static let duplicateRoute = Code(rawValue: "duplicate_route")
        /// A route no URL can reach (no source left, impossible constraints).
        public static let unreachableRoute = Code(rawValue: "unreachable_route")
        public static let duplicateParameter = Code(rawValue: "duplicate_parameter")
        public static let invalidParameter = Code(rawValue: "invalid_parameter")
        /// A literal and a parameter overlap (`/post/new` and `/post/:id`): the literal wins, as stated.
        public static let overlap = Code(rawValue: "overlapping_routes")
        /// A route manifest of a version this library does not read.
        public static let unsupportedManifestVersion = Code(rawValue: "unsupported_manifest_version")
    }

    public var code: Code
    public var severity: Severity
    public var routes: [String]
    public var message: String

    public var description: String { "\(severity): \(code) [\(routes.joined(separator: ", "))]: \(message)" }
}

/// A route table that cannot be built, with every error found.
public struct RouteTableError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [RouteTableDiagnostic]
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
