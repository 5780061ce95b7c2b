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
            Prints one line per problem and warning, and exits 1 when there is a problem, 2 when a file cannot be \
            read, 0 otherwise. Stored links are read from the database (--database-url); --no-links skips them. \
            With --info-plist and --entitlements, the app's own files are checked against the configuration too.
            """
    )

    @OptionGroup var options: ServerOptions

    @Flag(inversion: .prefixedNo, help: "Check the links stored in the database.")
    var links = true

    @Option(
        name: .customLong("info-plist"),
        help: "The app's Info.plist (XML or binary): its URL type must register the scheme, with a name and a role."
    )
    var infoPlist: String?

    @Option(
        help: "The app's entitlements (XML or binary): applinks: for every configured domain, read as iOS reads them."
    )
    var entitlements: String?

    @Flag(help: #"Print {"ok": bool, "problems": [...], "warnings": [...]}."#)
    var json = false

    func run() async throws {
        try await reportingFailures {
            let settings = try options.resolve()
            // An unreadable project file is a usage error (exit 2), like an unreadable file for `aasa validate`.
            let plists: (info: [String: Any]?, entitlements: [String: Any]?)
            do {
                plists = (try infoPlist.map(AppProjectCheck.read), try entitlements.map(AppProjectCheck.read))
            } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                throw ExitCode(2)
            }
            var stored: [SmartLink] = []
            if links {
                let logger = bootstrapLogging(level: .error)
                let database = try await Database.open(settings.database, logger: logger)
                do {
                    stored = try await DeploymentCheck.storedLinks(in: database)
                } catch {
                    try? await database.close()
                    throw ConfigurationError(
                        setting: "links",
                        reason:
                            "cannot be read from \(settings.database.redacted) (run deeplinks migrate, or pass --no-links)"
                    )
                }
                try await database.close()
            }
            var problems = try DeploymentCheck.problems(settings: settings, links: stored)
            var warnings: [String] = []
            let app = AppProjectCheck.app(for: plists.info, in: settings.app)
            var findings = plists.info.map { AppProjectCheck.infoPlistFindings($0, app: app) } ?? []
            if let plist = plists.entitlements {
                let files = try AssociationFiles(app: settings.app, linkDomain: settings.smartLinks.linkDomain)
                findings += AppProjectCheck.entitlementFindings(plist, app: app, files: files)
            }
            for finding in findings {
                switch finding.severity {
                case .problem: problems.append(finding.message)
                case .warning: warnings.append(finding.message)
                }
            }
            if json {
                printJSON(["ok": problems.isEmpty, "problems": problems, "warnings": warnings] as [String: Any])
            } else {
                for problem in problems { print("problem: \(problem)") }
                for warning in warnings { print("warning: \(warning)") }
                let routes = settings.app.routes?.routes.count ?? 0
                print(
                    "\(problems.isEmpty ? "ok" : "\(problems.count) problem(s)"): \(routes) routes, \(settings.app.domains.count) domain(s), \(stored.count) links checked"
                )
            }
            if !problems.isEmpty { throw ExitCode.failure }
        }
    }
}
