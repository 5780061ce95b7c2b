import AppSiteAssociation
import ArgumentParser
import DeepLinks
import DeepLinksServer
import DeepLinksStorage
import DeepLinksSupport
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

    @Option(help: "A message as it arrived (.eml): judge each of its links instead of the deployment.")
    var mail: String?

    @Flag(help: #"Print {"ok": bool, "problems": [...], "warnings": [...]} (with --mail: {"ok", "links": [...]})."#)
    var json = false

    func run() async throws {
        try await reportingFailures {
            let settings = try options.resolve()
            if let mail {
                try await checkMail(mail, settings: settings)
                return
            }
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
                let files = try AssociationFiles(app: settings.app, links: settings.smartLinks)
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

    /// `--mail FILE`: each link of the message, as iOS and the mail's readers meet it. Exit 2 when the file cannot
    /// be read or is not a message, 1 when a link has a problem.
    /// The short links it holds are looked up in the configured database (unless `--no-links`): their rules and
    /// destinations are judged too.
    func checkMail(_ path: String, settings: ServerSettings) async throws {
        var check: MailCheck
        do {
            check = try MailCheck(message: try Data(contentsOf: URL(fileURLWithPath: path)), settings: settings)
        } catch {
            FileHandle.standardError.write(
                Data("error: \(path): \(error is ConfigurationError ? "\(error)" : "cannot be read")\n".utf8)
            )
            throw ExitCode(2)
        }
        if links {
            // Read only when the message holds a short link; a database that cannot be read leaves a warning.
            let judge = try ShortLinkJudge(settings: settings)
            var stored: [String: SmartLink]?
            if !check.shortLinks(judge).isEmpty {
                if let database = try? await Database.open(settings.database, logger: bootstrapLogging(level: .error)) {
                    stored = try? await Dictionary(
                        DeploymentCheck.storedLinks(in: database).map { ($0.code, $0) },
                        uniquingKeysWith: { first, _ in first }
                    )
                    try? await database.close()
                }
            }
            check.judgeShortLinks(stored, from: settings.database.redacted, judge: judge)
        }
        if json {
            printJSON(
                [
                    "ok": check.problems == 0,
                    "links": check.links.map { link -> [String: Any] in
                        var object: [String: Any] = [
                            "url": link.url,
                            "problems": link.findings.filter { $0.severity == .problem }.map(\.message),
                            "warnings": link.findings.filter { $0.severity == .warning }.map(\.message),
                        ]
                        if let route = link.report?.route { object["route"] = route.routeName }
                        if let decision = link.report?.decision { object["association"] = decision.verdict.rawValue }
                        return object
                    },
                ] as [String: Any]
            )
        } else {
            for link in check.links {
                let route = link.report?.route.map { " -> \($0.routeName)" } ?? ""
                print("link: \(link.url)\(route)")
                for finding in link.findings { print("  \(finding.severity.rawValue): \(finding.message)") }
            }
            print("\(check.problems == 0 ? "ok" : "\(check.problems) problem(s)"): \(check.links.count) link(s)")
        }
        if check.problems > 0 { throw ExitCode.failure }
    }
}
