/// One finding of the validator: a stable code (listed in <doc:HowIOSReadsAssociationFiles>), its severity, where (a JSON pointer)
/// and a message for a person.
public struct AASADiagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Codable {
        case error, warning
    }

    public var code: String
    public var severity: Severity
    public var pointer: String
    public var message: String

    public init(_ code: String, _ severity: Severity, _ pointer: String, _ message: String) {
        self.code = code
        self.severity = severity
        self.pointer = pointer
        self.message = message
    }

    public var description: String { "\(severity) \(code) at \(pointer.isEmpty ? "/" : pointer): \(message)" }
}

extension Array where Element == AASADiagnostic {
    /// A document is valid exactly when it has no error; warnings are allowed.
    public var isValid: Bool { !contains { $0.severity == .error } }
}
