import ArgumentParser
import DeepLinksServer
import DeepLinksStorage
import Foundation

/// `deeplinks outbox list|requeue`: the mail queue every server shares.
struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "Show the mail queue, or requeue messages that will not be retried.",
        subcommands: [List.self, Requeue.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List queued, retrying, failed and dropped messages (never their content)."
        )

        @OptionGroup var options: ServerOptions
        @Flag(help: "Include sent messages.") var all = false
        @Option(help: "At most this many, newest first.") var limit = 100

        func run() async throws {
            try await reportingFailures {
                try await withOutbox(options) { outbox in
                    let entries = try await outbox.list(includeSent: all, limit: limit)
                    if entries.isEmpty { print("the outbox is empty") }
                    for entry in entries {
                        let error = entry.lastError.map { "  \($0)" } ?? ""
                        print(
                            "\(entry.id)\t\(entry.kind)\t\(entry.createdAt.formatted(.iso8601))\t\(entry.status)\tattempts \(entry.attempts)\(error)"
                        )
                    }
                }
            }
        }
    }

    struct Requeue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make failed messages due now (after fixing the mail settings or restoring a key)."
        )

        @OptionGroup var options: ServerOptions
        @Argument(help: "Message ids (from `outbox list`); none: every failed message.") var ids: [Int64] = []

        func run() async throws {
            try await reportingFailures {
                try await withOutbox(options) { outbox in
                    print("requeued \(try await outbox.requeue(ids: ids)) message(s)")
                }
            }
        }
    }
}

/// Opens the configured database, applies pending migrations, runs `body` on it, closes it.
func withMigratedDatabase(_ options: ServerOptions, _ body: (Database) async throws -> Void) async throws {
    let url = try options.database()
    let logger = bootstrapLogging(level: try options.logLevel())
    let database = try await Database.open(url, logger: logger)
    do {
        try await Migrator(database: database, logger: logger).migrate()
        try await body(database)
    } catch {
        try? await database.close()
        throw error
    }
    try await database.close()
}

private func withOutbox(_ options: ServerOptions, _ body: (OutboxAdmin) async throws -> Void) async throws {
    try await withMigratedDatabase(options) { try await body(OutboxAdmin(database: $0)) }
}
