import AppSiteAssociation
import ArgumentParser
import DeepLinks
import DeepLinksServer
import DeepLinksSupport
import Foundation

struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Say what the configured app would do with a URL, and on macOS open it in a simulator.",
        discussion: """
            Prints the app the URL is for, the route and parameters its manifest gives (sensitive values redacted), \
            and, for a universal link, whether the association file the server generates lets iOS open the app, \
            with the matcher's trace. With --simulator (macOS with Xcode), runs `xcrun simctl openurl DEVICE URL`. \
            Exit 0 when the app would handle the URL, 1 when not, 2 when the URL or a file cannot be read.
            """
    )

    @OptionGroup var options: ServerOptions

    @Option(help: "A booted simulator to open the URL in ('booted' for the one booted); macOS only.")
    var simulator: String?

    @Flag(
        help: #"Print {"url", "app", "handled", "route", "pattern", "parameters", "association", "trace", "reason"}."#
    )
    var json = false

    @Argument(help: "The URL: a custom-scheme link or a universal link.")
    var url: String

    func run() async throws {
        try await reportingFailures {
            let settings = try options.resolve()
            let parsed: LinkURL
            do {
                parsed = try LinkURL(parsing: url)
            } catch {
                FileHandle.standardError.write(Data("error: the URL is refused: \(error)\n".utf8))
                throw ExitCode(2)
            }
            let report = try LinkReport(url: parsed, original: url, settings: settings)
            if json {
                printJSON(report.json)
            } else {
                for line in report.lines { print(line) }
            }
            if let simulator {
                try Self.openInSimulator(simulator, url: url)
            }
            if !report.handled { throw ExitCode.failure }
        }
    }

    /// `xcrun simctl openurl`: the way iOS receives a tap on the link, on a simulator.
    static func openInSimulator(_ device: String, url: String) throws {
        #if os(macOS)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/xcrun")
        process.arguments = ["simctl", "openurl", device, url]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ConfigurationError(
                setting: "--simulator",
                reason: "xcrun simctl openurl \(device) failed (is the simulator booted?)"
            )
        }
        print("opened in simulator \(device)")
        #else
        throw ConfigurationError(
            setting: "--simulator",
            reason: "opening in a simulator needs macOS with Xcode (xcrun simctl)"
        )
        #endif
    }
}

/// What the configured app does with one URL: the app it is for, the route its manifest gives, and for a
/// universal link the association file's verdict.
struct LinkReport {
    var app: AppConfiguration?
    var route: RouteMatch<ManifestDestination>?
    var rejection: LinkRejection?
    var decision: AASADecision?
    let shown: String
    let isWeb: Bool

    init(url: LinkURL, original: String, settings: ServerSettings) throws {
        let apps = settings.app.apps
        app =
            url.isWebURL
            ? apps.first { $0.domains.contains(url.host ?? "") } : apps.first { $0.customScheme == url.scheme }
        var shown = original
        if let table = try app?.routeTable() {
            shown = table.redact(original)
            switch table.match(url) {
            case .success(let match): route = match
            case .failure(let failure): rejection = failure
            }
        }
        self.shown = shown
        isWeb = url.isWebURL
        if url.isWebURL, let app {
            let files = try AssociationFiles(app: settings.app, links: settings.smartLinks)
            decision = files.matcher.decide(appID: app.appID, url: url.string)
        }
    }

    /// The app would handle it: a route takes it, and a universal link is claimed for the app.
    var handled: Bool { route != nil && (decision.map { $0.verdict == .match } ?? true) }

    var reason: String? {
        guard let app else { return "no configured app has this \(isWeb ? "domain" : "scheme")" }
        if app.routes == nil { return "the configuration names no route manifest for \(app.bundleID)" }
        if let rejection { return "no route: \(rejection)" }
        if let decision, decision.verdict != .match {
            return "iOS opens Safari, not the app: the association file says \(decision.verdict.rawValue)"
        }
        return nil
    }

    var lines: [String] {
        var lines = ["url: \(shown)"]
        if let app { lines.append("app: \(app.displayName) (\(app.appID))") }
        if let route { lines.append("route: \(route)") }
        if let decision {
            lines.append("association: \(decision.verdict.rawValue)")
            lines += decision.trace.map { "  \($0)" }
        }
        lines.append(reason.map { "not handled: \($0)" } ?? "handled: the app opens \(route?.routeName ?? "")")
        return lines
    }

    var json: [String: Any] {
        var object: [String: Any] = ["url": shown, "handled": handled]
        if let app { object["app"] = app.bundleID }
        if let route {
            object["route"] = route.routeName
            object["pattern"] = route.pattern
            object["parameters"] = route.redactedParameters
        }
        if let decision {
            object["association"] = decision.verdict.rawValue
            object["trace"] = decision.trace
        }
        if let reason { object["reason"] = reason }
        return object
    }
}
