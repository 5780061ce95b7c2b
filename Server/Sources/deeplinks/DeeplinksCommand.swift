import ArgumentParser
import DeepLinksServer

@main
struct DeeplinksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deeplinks",
        abstract: "Self-hosted deep links for iOS apps: the server, and tools for association files and routes.",
        version: DeepLinksServerVersion.described,
        subcommands: [
            ServeCommand.self, MigrateCommand.self, OutboxCommand.self, CheckCommand.self, RouteCommand.self,
            OpenCommand.self, LinksCommand.self, DoctorCommand.self, OperatorsCommand.self,
            OperatorsCommand.FormerName.self, KeysCommand.self, HealthCommand.self,
            AASACommand.self, SettingsCommand.self,
        ]
    )
}
