/// Why a URL was refused: a stable code, the component, the byte position in the input and a reason
/// for a person. The reason never repeats a parameter value, so it is safe in a log line.
public struct URLDiagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable code. New codes may be added; existing ones never change meaning.
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let empty = Code(rawValue: "empty_url")
        public static let tooLong = Code(rawValue: "url_too_long")
        public static let missingScheme = Code(rawValue: "missing_scheme")
        public static let invalidScheme = Code(rawValue: "invalid_scheme")
        public static let invalidCharacter = Code(rawValue: "invalid_character")
        public static let controlCharacter = Code(rawValue: "control_character")
        public static let invalidPercentEncoding = Code(rawValue: "invalid_percent_encoding")
        public static let invalidUTF8 = Code(rawValue: "invalid_utf8")
        public static let userinfoNotAllowed = Code(rawValue: "userinfo_not_allowed")
        public static let portNotAllowed = Code(rawValue: "port_not_allowed")
        public static let invalidPort = Code(rawValue: "invalid_port")
        public static let invalidHost = Code(rawValue: "invalid_host")
        public static let tooManyQueryItems = Code(rawValue: "too_many_query_items")
        public static let valueTooLong = Code(rawValue: "value_too_long")
    }

    /// The part of the URL a diagnostic is about.
    public enum Component: String, Sendable, Hashable, Codable {
        case url, scheme, userinfo, host, port, path, query, fragment
    }

    public var code: Code
    public var component: Component
    /// Offset of the offending byte in the UTF-8 input, from 0.
    public var position: Int
    public var reason: String

    public init(_ code: Code, _ component: Component, at position: Int, _ reason: String) {
        self.code = code
        self.component = component
        self.position = position
        self.reason = reason
    }

    public var description: String { "\(code) in \(component) at \(position): \(reason)" }
}
