import AppSiteAssociation
import ArgumentParser
import DeepLinksJSON
import DeepLinksServer
import Foundation

struct AASACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aasa",
        abstract: "Validate apple-app-site-association files and tell, as iOS would, whether a URL opens an app.",
        subcommands: [Validate.self, Match.self, Fetch.self]
    )

    /// Reads a file, or ends with exit code 2 and a one-line reason.
    static func read(_ path: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            FileHandle.standardError.write(Data("error: \(path): cannot be read\n".utf8))
            throw ExitCode(2)
        }
        return data
    }

    /// One line per diagnostic, then `valid` or `invalid` with the counts.
    static func printReport(_ diagnostics: [AASADiagnostic]) {
        for diagnostic in diagnostics { print(diagnostic) }
        let errors = diagnostics.filter { $0.severity == .error }.count
        print(diagnostics.isValid ? "valid" : "invalid", "(\(errors) errors, \(diagnostics.count - errors) warnings)")
    }

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Report every diagnostic (stable codes, listed in AppSiteAssociation's article 'How iOS reads an association file'). Exit 0 when valid, 1 when invalid, 2 when the file cannot be read."
        )

        @Argument(help: "The apple-app-site-association file.")
        var file: String

        @Flag(help: #"Print {"valid": bool, "diagnostics": [{"code", "severity", "pointer", "message"}]}."#)
        var json = false

        func run() throws {
            let diagnostics = AASAValidator.validate(data: try AASACommand.read(file))
            if json {
                printJSON(
                    [
                        "valid": diagnostics.isValid,
                        "diagnostics": diagnostics.map {
                            [
                                "code": $0.code.rawValue, "severity": $0.severity.rawValue, "pointer": $0.pointer,
                                "message": $0.message,
                            ]
                        },
                    ] as [String: Any]
                )
            } else {
                AASACommand.printReport(diagnostics)
            }
            if !diagnostics.isValid { throw ExitCode.failure }
        }
    }

    struct Fetch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Fetch a site's file as iOS would (https, no redirect, 128 KB, application/json), then validate it.",
            discussion: "Exit 0 when the file is served well and valid, 1 when not, 2 when it cannot be fetched."
        )

        @Argument(help: "A site (example.com, https://example.com) or the file's URL.")
        var url: String

        @Flag(help: "Permit plain http, for a loopback test server.")
        var allowHTTP = false

        @Option(help: "Seconds to wait for the server (connection and answer).")
        var timeout: Int64 = 10

        func run() async throws {
            let report: AASAFetcher.Report
            do {
                report = try await AASAFetcher(allowHTTP: allowHTTP, timeoutSeconds: max(1, timeout)).fetch(url)
            } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                throw ExitCode(2)
            }
            print("fetched \(report.url)")
            AASACommand.printReport(report.diagnostics)
            if !report.diagnostics.isValid { throw ExitCode.failure }
        }
    }

    struct Match: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say match, exclude or nomatch for each URL, as iOS reads the file (errors included, on stderr).",
            discussion: "Exit 0 whatever the verdicts; 2 when the file cannot be read or is not a JSON object."
        )

        @Argument(help: "The apple-app-site-association file.")
        var file: String

        @Option(help: "The app ID, TEAMID.bundle.id.")
        var app: String

        @Option(help: "The domain whose file this is (default: each URL's host).")
        var domain: String?

        @Option(
            name: .customLong("entitlement"),
            help:
                "An entry of the app's associated-domains entitlement (repeatable), as applinks:*.example.com: the file then governs the hosts §2 assigns to it."
        )
        var entitlements: [String] = []

        @Flag(help: "Add the trace: which entry and rule decided, or why the closest rule failed.")
        var explain = false

        @Flag(help: #"Print one {"url", "verdict", "trace"} object per line."#)
        var json = false

        @Argument(help: "The URLs.")
        var urls: [String]

        func run() throws {
            let data = try AASACommand.read(file)
            guard let document = try? JSONValue.parse(data), document.object != nil else {
                FileHandle.standardError.write(Data("error: \(file): not a JSON object\n".utf8))
                throw ExitCode(2)
            }
            for diagnostic in AASAValidator.validate(data: data) {
                FileHandle.standardError.write(Data("\(diagnostic)\n".utf8))
            }
            let associatedDomains: AssociatedDomains?
            do {
                associatedDomains = entitlements.isEmpty ? nil : try AssociatedDomains(entitlements)
            } catch {
                FileHandle.standardError.write(Data("error: entitlement \(error)\n".utf8))
                throw ExitCode(2)
            }
            let matcher = AASAMatcher(document: document)
            for url in urls {
                let decision = matcher.decide(appID: app, url: url, domain: domain, entitlements: associatedDomains)
                if json {
                    printJSON(
                        ["url": url, "verdict": decision.verdict.rawValue, "trace": decision.trace] as [String: Any]
                    )
                } else {
                    print("\(decision.verdict.rawValue) \(url)")
                    if explain {
                        for step in decision.trace { print("  \(step)") }
                    }
                }
            }
        }
    }
}
