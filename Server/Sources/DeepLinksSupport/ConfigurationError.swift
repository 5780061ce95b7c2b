/// A setting or a configuration file that cannot be used, with every problem found, ready to print on one line.
///
/// Descriptions never contain secrets: URLs are redacted before they get here.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The setting (`--port`, `DEEPLINKS_PORT`) or the file (its path) at fault.
    public var setting: String
    /// Each problem, one sentence each.
    public var problems: [String]

    public init(setting: String, reason: String) {
        self.init(setting: setting, problems: [reason])
    }

    public init(setting: String, problems: [String]) {
        self.setting = setting
        self.problems = problems
    }

    /// The problems on one line.
    public var reason: String { problems.joined(separator: "; ") }

    public var description: String {
        if problems.count == 1 { return "\(setting): \(problems[0])" }
        return "\(setting) has \(problems.count) problems: " + problems.joined(separator: "; ")
    }
}
