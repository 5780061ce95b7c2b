import ArgumentParser
import DeepLinksServer
import Foundation

/// `deeplinks keys create|list|revoke`: scoped API keys, also managed in the console.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Create, list or revoke API keys with a role (sent as Authorization: Bearer KEY).",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a key; it is printed once, never stored.")

        @OptionGroup var options: ServerOptions
        @Option(help: "viewer, editor or admin.") var role: String
        @Option(help: "What the key is for (shown in the list).") var name: String

        func run() async throws {
            try await reportingFailures {
                guard let role = OperatorRole(rawValue: role) else {
                    throw ValidationError("--role is viewer, editor or admin")
                }
                try await withOperators(options) { operators in
                    let (key, secret) = try await operators.createKey(name: name, role: role, createdBy: "cli")
                    FileHandle.standardError.write(
                        Data("created key \(key.id) (\(key.role.rawValue)), shown once:\n".utf8)
                    )
                    print(secret)
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys: name, role, prefix, last use.")

        @OptionGroup var options: ServerOptions

        func run() async throws {
            try await reportingFailures {
                try await withOperators(options) { operators in
                    for key in try await operators.keys() {
                        let used = key.lastUsedAt.map { "last used \(Self.date($0))" } ?? "never used"
                        let state = key.revokedAt.map { "revoked \(Self.date($0))" } ?? "live"
                        print("\(key.id)\t\(key.name)\t\(key.role.rawValue)\t\(key.prefix)…\t\(used)\t\(state)")
                    }
                }
            }
        }

        static func date(_ milliseconds: Int64) -> String {
            Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(.iso8601)
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key at once, on every server.")

        @OptionGroup var options: ServerOptions
        @Argument(help: "The key's id (from keys list).") var id: Int64

        func run() async throws {
            try await reportingFailures {
                try await withOperators(options) { operators in
                    try await operators.revokeKey(id: id, by: "cli")
                    print("revoked key \(id)")
                }
            }
        }
    }
}
