import ArgumentParser
import DeepLinksServer
import DeepLinksStorage
import Logging

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply pending database migrations and exit (serve also applies them at start)."
    )

    @OptionGroup var options: ServerOptions

    func run() async throws {
        try await reportingFailures {
            let url = try options.database()
            let logger = bootstrapLogging(level: try options.logLevel())
            let database = try await Database.open(url, logger: logger)
            let migrator = Migrator(database: database, logger: logger)
            do {
                let applied = try await migrator.migrate()
                let version = try await migrator.appliedVersions().max() ?? 0
                if applied.isEmpty {
                    print("\(url.redacted): up to date at schema version \(version)")
                } else {
                    let list = applied.map(String.init).joined(separator: ", ")
                    print("\(url.redacted): applied \(applied.count) migration(s) (\(list)); schema version \(version)")
                }
            } catch {
                try? await database.close()
                throw error
            }
            try await database.close()
        }
    }
}
