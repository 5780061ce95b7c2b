import ArgumentParser
import DeepLinks
import DeepLinksServer
import DeepLinksStorage
import Foundation
import Logging

/// `deeplinks doctor URL`: why a link opens the app or Safari, checked the way iOS decides it, from what is served
/// now rather than from what the configuration says.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract:
            "Explain why a link opens the app or Safari: the served file, Apple's CDN copy, the matcher, the route.",
        discussion: """
            Unwraps a mail scanner's rewrite; fetches the domain's apple-app-site-association as iOS would (https, no \
            redirect, 128 KB, JSON) and Apple's CDN copy, which is what devices read; compares them; runs the \
            matcher on the copy devices read and the app's route manifest; and names the usual causes of a link \
            opening in Safari (a same-domain tap with --referrer, an in-app browser with --user-agent, and the \
            choice a user can make to open such links in Safari). Exit 0 when nothing stands in the way, 1 when a \
            cause is found, 2 when the URL or the configuration cannot be read.
            """
    )

    @OptionGroup var options: ServerOptions

    @Argument(help: "The link, as the user got it (a mail scanner's rewrite is unwrapped).")
    var url: String

    @Option(help: "Fetch the domain's file from this origin instead (https://staging.example.com, a test server).")
    var origin: String?

    @Option(name: .customLong("cdn-url"), help: "Where Apple's CDN serves a domain's file (the domain is appended).")
    var cdnURL = LinkDoctor.appleCDN

    @Flag(name: .customLong("no-cdn"), help: "Do not ask Apple's CDN.")
    var noCDN = false

    @Option(name: .customLong("ca-file"), help: "A PEM file of certificates to trust (a test server's own).")
    var caFile: String?

    @Option(help: "The page the link was tapped on, if any.")
    var referrer: String?

    @Option(name: .customLong("user-agent"), help: "The browser's user agent, if known.")
    var userAgent: String?

    @Flag(help: #"Print {"url", "opensApp", "findings": [{"code", "message"}], "trace", "route"}."#)
    var json = false

    func run() async throws {
        try await reportingFailures {
            let settings = try options.resolve()
            // The server's database, for the domain's universal-link health; the check goes on without it (and never
            // makes a SQLite file that is not there).
            let stored: Bool
            switch settings.database {
            case .sqliteFile(let path): stored = FileManager.default.fileExists(atPath: path)
            case .sqliteMemory: stored = false
            case .postgres: stored = true
            }
            let database =
                stored ? try? await Database.open(settings.database, logger: bootstrapLogging(level: .error)) : nil
            let doctor = LinkDoctor(
                settings: settings,
                fetcher: AASAFetcher(timeoutSeconds: 10, caFile: caFile),
                origin: origin,
                cdnURL: noCDN ? nil : cdnURL,
                health: database
            )
            let report = await doctor.examine(url, referrer: referrer, userAgent: userAgent)
            try? await database?.close()
            if json {
                printJSON(report.json)
            } else {
                for line in report.lines { print(line) }
            }
            if report.unreadable { throw ExitCode(2) }
            if !report.findings.isEmpty { throw ExitCode.failure }
        }
    }
}
