import ArgumentParser
import DeepLinksServer
import Foundation

/// `deeplinks operators create|list|role|remove|unlock`: the people who sign in to the console, each with a role
/// (not the app's own accounts).
struct OperatorsCommand: AsyncParsableCommand {
    static let subcommands: [any ParsableCommand.Type] = [
        Create.self, List.self, SetRole.self, Remove.self, Unlock.self,
    ]

    static let configuration = CommandConfiguration(
        commandName: "operators",
        abstract: "Add, list, change or remove console operators (viewer, editor or admin).",
        subcommands: subcommands
    )

    /// `deeplinks accounts`, this command's name before it said what it manages: kept, hidden, for a release.
    struct FormerName: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "accounts",
            abstract: "The former name of `deeplinks operators`.",
            shouldDisplay: false,
            subcommands: OperatorsCommand.subcommands
        )
    }

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
                    throw ValidationError(
                        "write the password on standard input (echo ... | deeplinks operators create)"
                    )
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
                    if all.isEmpty { print("no operators: add one with deeplinks operators create EMAIL --role admin") }
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

extension OperatorsCommand {
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
                    print(
                        "\(email) may sign in again from a new browser (the browsers they signed in from are never held back, by their address's limit or their network's)"
                    )
                }
            }
        }
    }
}

/// Runs `body` with the operators of the configured database, migrated first (`deeplinks operators` and `keys`).
func withOperators(_ options: ServerOptions, _ body: (Operators) async throws -> Void) async throws {
    try await withMigratedDatabase(options) { try await body(Operators(database: $0)) }
}
