import ArgumentParser

@main
struct DeeplinksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deeplinks",
        abstract: "Self-hosted deep links for iOS apps: the server, and tools for association files and routes.",
        version: "0.1.0",
        subcommands: [
            ServeCommand.self, MigrateCommand.self, OutboxCommand.self, CheckCommand.self, RouteCommand.self,
            OpenCommand.self, LinksCommand.self, DoctorCommand.self, AccountsCommand.self, KeysCommand.self,
            AASACommand.self,
        ]
    )
}
