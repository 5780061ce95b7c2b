/// A setting that cannot be used, with the reason, ready to print on one line.
///
/// Descriptions never contain secrets: URLs are redacted before they get here.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var setting: String
    public var reason: String

    public init(setting: String, reason: String) {
        self.setting = setting
        self.reason = reason
    }

    public var description: String { "\(setting): \(reason)" }
}
