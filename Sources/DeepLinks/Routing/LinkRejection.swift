/// Why a route table refused a URL: a stable code and a reason for a person. Never contains the URL
/// itself nor a parameter value, so it is safe to log.
public struct LinkRejection: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The scheme is neither a custom scheme of the table nor https.
        public static let schemeNotAccepted = Code(rawValue: "scheme_not_accepted")
        /// An https URL whose host is not one of the table's universal-link hosts.
        public static let hostNotAccepted = Code(rawValue: "host_not_accepted")
        /// No route has this path.
        public static let noRoute = Code(rawValue: "no_route")
        /// A route has this path but does not accept links from this source.
        public static let sourceNotAccepted = Code(rawValue: "source_not_accepted")
        /// A custom-scheme link to a route that takes links from some apps only, sent by another app.
        public static let sourceApplicationNotAllowed = Code(rawValue: "source_application_not_allowed")
        public static let missingParameter = Code(rawValue: "missing_parameter")
        public static let invalidParameter = Code(rawValue: "invalid_parameter")
    }

    public var code: Code
    public var reason: String
    /// Set when the URL policy refused the URL (the code is then the diagnostic's code).
    public var urlDiagnostic: URLDiagnostic? {
        get { diagnostic?.value }
        set { diagnostic = newValue.map(DiagnosticBox.init) }
    }

    /// The diagnostic behind a reference, immutable: keeps a rejection, and the `Result` of a match carrying
    /// one, small enough to be copied inline rather than through the type's generic value witnesses.
    private var diagnostic: DiagnosticBox?

    private final class DiagnosticBox: Sendable {
        let value: URLDiagnostic
        init(_ value: URLDiagnostic) { self.value = value }
    }

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    @usableFromInline
    init(_ diagnostic: URLDiagnostic) {
        self.code = Code(rawValue: diagnostic.code.rawValue)
        self.reason = diagnostic.description
        self.diagnostic = DiagnosticBox(diagnostic)
    }

    public static func == (lhs: LinkRejection, rhs: LinkRejection) -> Bool {
        lhs.code == rhs.code && lhs.reason == rhs.reason && lhs.urlDiagnostic == rhs.urlDiagnostic
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(reason)
        hasher.combine(urlDiagnostic)
    }

    public var description: String {
        urlDiagnostic.map { "\($0)" } ?? "\(code): \(reason)"
    }
}
