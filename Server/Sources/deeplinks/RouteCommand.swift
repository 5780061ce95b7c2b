import ArgumentParser
import DeepLinks
import DeepLinksServer
import DeepLinksSupport
import Foundation

struct RouteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Match URLs against an app's route manifest: the route each reaches, or why it is refused.",
        discussion: """
            One line per URL: 'URL -> ROUTE PATTERN name=value ...', or 'URL -> refused CODE: REASON'. Sensitive \
            parameters are redacted in the URL and the values. Exit code: 0 when every URL reaches a route, 1 when \
            one is refused, 2 when the manifest cannot be read or is invalid.
            Example: deeplinks route --manifest Server/Examples/demo-routes.json 'demoapp://post/10'
            """
    )

    @Option(help: "The route manifest (JSON) exported by the app's RouteTable.manifest.")
    var manifest: String

    @Flag(help: "Print one JSON object per line.")
    var json = false

    @Argument(help: "The URLs to match.")
    var urls: [String]

    func run() throws {
        let table: RouteTable<ManifestDestination>
        do {
            table = try Self.loadTable(path: manifest)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(2)
        }
        var refused = false
        for url in urls {
            let shown = table.redact(url)
            switch table.match(url) {
            case .success(let match):
                if json {
                    printJSON([
                        "url": shown, "matched": true, "route": match.routeName, "pattern": match.pattern,
                        "parameters": match.redactedParameters, "requiresConfirmation": match.requiresConfirmation,
                    ])
                } else {
                    print("\(shown) -> \(match)\(match.requiresConfirmation ? " (requires confirmation)" : "")")
                }
            case .failure(let rejection):
                refused = true
                if json {
                    printJSON([
                        "url": shown, "matched": false, "code": rejection.code.rawValue,
                        "reason": rejection.description,
                    ])
                } else {
                    print("\(shown) -> refused \(rejection)")
                }
            }
        }
        if refused { throw ExitCode.failure }
    }

    static func loadTable(path: String) throws -> RouteTable<ManifestDestination> {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(setting: path, reason: "cannot be read")
        }
        let manifest: RouteManifest
        do {
            manifest = try JSONDecoder().decode(RouteManifest.self, from: data)
        } catch let error as DecodingError {
            throw ConfigurationError(setting: path, reason: "is not a route manifest: \(error.readableDescription)")
        }
        do {
            return try RouteTable(manifest: manifest)
        } catch {
            throw ConfigurationError(
                setting: path,
                reason: error.diagnostics.map(\.description).joined(separator: "; ")
            )
        }
    }
}
