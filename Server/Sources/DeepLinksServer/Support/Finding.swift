/// One thing a check found (the link doctor, `deeplinks check` on an app's files or on a mail): how serious it is,
/// a stable code where the check gives one, and a message for people.
package struct Finding: Sendable, Equatable, CustomStringConvertible {
    package enum Severity: String, Sendable { case problem, warning }

    package var severity: Severity
    /// A stable code (`FILE_UNREACHABLE`) for the link doctor's findings; nil where the message is all.
    package var code: String?
    package var message: String

    package init(severity: Severity = .problem, code: String? = nil, message: String) {
        self.severity = severity
        self.code = code
        self.message = message
    }

    package static func problem(_ message: String) -> Finding { Finding(severity: .problem, message: message) }
    package static func warning(_ message: String) -> Finding { Finding(severity: .warning, message: message) }

    /// The code (else the severity) and the message, as a line of a report.
    package var description: String { "\(code ?? severity.rawValue): \(message)" }
}
