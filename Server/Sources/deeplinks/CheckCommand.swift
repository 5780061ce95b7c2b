import ArgumentParser
import DeepLinks
import DeepLinksServer
import Foundation
import Logging

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a deployment: routes claimed by the association file, landing and link domains, stored links.",
        discussion: """
            Prints one line per problem and exits 1 when there is any, 0 otherwise. Stored links are read from \
            the database (--database-url); --no-links skips them.
            """
    )

    @OptionGroup var options: ServerOptions

    @Flag(inversion: .prefixedNo, help: "Check the links stored in the database.")
    var links = true

    func run() async throws {
        try await reportingFailures {
            let settings = try options.resolve()
            var stored: [SmartLink] = []
            if links {
                let logger = bootstrapLogging(level: .error)
                let database = try await Database.open(settings.database, logger: logger)
                do {
                    stored = try await DeploymentCheck.storedLinks(in: database)
                } catch {
                    try? await database.close()
                    throw ConfigurationError(setting: "links", reason: "cannot be read from \(settings.database.redacted) (run deeplinks migrate, or pass --no-links)")
                }
                try await database.close()
            }
            let problems = try DeploymentCheck.problems(settings: settings, links: stored)
            for problem in problems { print("problem: \(problem)") }
            let routes = settings.app.routes?.routes.count ?? 0
            print("\(problems.isEmpty ? "ok" : "\(problems.count) problem(s)"): \(routes) routes, \(settings.app.domains.count) domain(s), \(stored.count) links checked")
            if !problems.isEmpty { throw ExitCode.failure }
        }
    }
}
