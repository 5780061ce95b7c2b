import ArgumentParser

/// `deeplinks settings`: every setting the command reads, its flag, environment variable and default, as the table
/// docs/settings.md holds (``Setting/all``).
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "List every setting: its flag, environment variable, default and what it does (a Markdown table)."
    )

    func run() {
        print(Setting.markdownTable, terminator: "")
    }
}
