import ArgumentParser
import DeepLinksServer
import Foundation

/// `deeplinks accounts create|list|remove`: the operators who sign in to the console, each with a role.
struct AccountsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "Add, list or remove console operators (viewer, editor or admin).",
        subcommands: [Create.self, List.self, SetRole.self, Remove.self, Unlock.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an operator; the password is read from standard input (one line), never from an argument."
        )

        @OptionGroup var options: ServerOptions
        @Option(help: "viewer (reads links and counts), editor (also changes links) or admin (also manages API keys).")
        var role: String
        @Argument(help: "The operator's email address.") var email: String

        func run() async throws {
            try await reportingFailures {
                guard let role = OperatorRole(rawValue: role) else {
                    throw ValidationError("--role is viewer, editor or admin")
                }
                guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                    throw ValidationError("write the password on standard input (echo ... | deeplinks accounts create)")
                }
                try await withOperators(options) { operators in
                    let created = try await operators.create(
                        email: email,
                        password: line,
                        role: role,
                        hasher: PasswordHasher()
                    )
                    print("added \(created.email) as \(created.role.rawValue): sign in at /console")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the operators and their roles.")

        @OptionGroup var options: ServerOptions

        func run() async throws {
            try await reportingFailures {
                try await withOperators(options) { operators in
                    let all = try await operators.list()
                    if all.isEmpty { print("no operators: add one with deeplinks accounts create EMAIL --role admin") }
                    for one in all { print("\(one.email)\t\(one.role.rawValue)") }
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an operator: end their sessions and revoke the API keys they made."
        )

        @OptionGroup var options: ServerOptions
        @Argument(help: "The operator's email address.") var email: String

        func run() async throws {
            try await reportingFailures {
                try await withOperators(options) { operators in
                    try await operators.remove(email: email, by: "cli")
                    print("removed \(email)")
                }
            }
        }
    }
}

extension AccountsCommand {
    struct SetRole: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "role",
            abstract: "Give an operator another role; lowering it lowers the API keys they made to it."
        )

        @OptionGroup var options: ServerOptions
        @Argument(help: "The operator's email address.") var email: String
        @Argument(help: "viewer, editor or admin.") var role: String

        func run() async throws {
            try await reportingFailures {
                guard let role = OperatorRole(rawValue: role) else {
                    throw ValidationError("the role is viewer, editor or admin")
                }
                try await withOperators(options) { operators in
                    try await operators.setRole(email: email, to: role, by: "cli")
                    print("\(email) is now \(role.rawValue); their API keys are at most \(role.rawValue)")
                }
            }
        }
    }

    struct Unlock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Let an operator sign in from a new browser at once after wrong passwords for their address."
        )

        @OptionGroup var options: ServerOptions
        @Argument(help: "The operator's email address.") var email: String

        func run() async throws {
            try await reportingFailures {
                try await withOperators(options) { operators in
                    try await operators.unlock(email: email)
                    print("\(email) may sign in again from any browser (browsers they signed in from never lock)")
                }
            }
        }
    }
}

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

private func withOperators(_ options: ServerOptions, _ body: (Operators) async throws -> Void) async throws {
    try await withMigratedDatabase(options) { try await body(Operators(database: $0)) }
}
