import AppSiteAssociation
import DeepLinks
import Foundation
import HTTPTypes
import Hummingbird

/// Firebase Dynamic Links' parameters, read one way for a long link opened here (`/?link=...&ibi=...`) and for a
/// row of a Takeout export, whose columns are the same parameters: `link` is the deep link, `ifl`, `ipfl`, `afl` and
/// `ofl` the iOS, iPad, Android and other fallbacks, `st`, `sd` and `si` the preview; `ibi` (or else `apn`) picks
/// the app among the configured ones, and `isi` and `apn` must then be that app's. A `link` on the app's domain
/// that a route matches opens the app there; any other on an allowed host makes a web link. The other parameters
/// (`amv`, `imv`, `ius`, `ipbi`, `efr`, `utm_*`, iTunes Connect's) have no equivalent here and are ignored.
struct FirebaseParameters: Sendable {
    static let names = ["link", "ibi", "isi", "apn", "ifl", "ipfl", "afl", "ofl", "st", "sd", "si"]

    let values: [String: String]

    init(values: [String: String]) {
        self.values = values
    }

    /// The parameters of a long link, each percent-decoded once (`+` stays a plus sign).
    init?(longLink: String) {
        guard let parts = try? URLParts(parsing: longLink, limits: SmartLinkValidator.destinationLimits) else {
            return nil
        }
        var values: [String: String] = [:]
        _ = URLParts.rewritingItems(parts.query ?? "") { name, pair in
            if let name, let equals = pair.firstIndex(of: "="),
                let decoded = try? PercentEncoding.decode(pair[pair.index(after: equals)...])
            {
                values[name] = decoded
            }
            return nil
        }
        self.values = values
    }

    /// The link these parameters describe under `code`, with every problem; nil when there is no `link` to go to.
    func link(code: String, policy: LinkPolicy) -> (link: SmartLink?, problems: [String]) {
        guard let target = values["link"] else { return (nil, ["link: missing (the deep link)"]) }
        var problems: [String] = []
        let host = (try? URLParts(parsing: target, limits: SmartLinkValidator.destinationLimits))?.host
        let bundle = values["ibi"]
        let package = values["apn"]
        let app =
            bundle.map { id in policy.apps.first { $0.bundleID == id } }
            ?? package.flatMap { id in policy.apps.first { $0.android?.packageName == id } }
            ?? host.flatMap { host in policy.apps.first { $0.domains.contains(host) } } ?? policy.primary
        if let bundle, app == nil { problems.append("ibi: \(bundle) is not a configured app") }
        if let store = values["isi"], let app, store != app.appStoreID {
            problems.append("isi: \(store) is not the App Store ID of \(app.bundleID)")
        }
        if let package, let app, package != app.android?.packageName {
            problems.append("apn: \(package) is not the Android package of \(app.bundleID)")
        }
        // A deep link on another configured app's domain than the one ibi/apn names is a mistake, not a web link.
        if let app, let host, !app.domains.contains(host), policy.apps.contains(where: { $0.domains.contains(host) }) {
            problems.append("link: \(host) is not a domain of \(app.bundleID)")
        }
        var link = policy.link(code: code, destination: target, app: app)
        link.destinations = .init(
            ios: values["ifl"],
            ipad: values["ipfl"],
            android: values["afl"],
            desktop: values["ofl"],
            fallback: target
        )
        link.preview = .init(title: values["st"], description: values["sd"], image: values["si"])
        return (link, problems)
    }
}

extension LinkRedirect {
    /// A Firebase Dynamic Links long link as a link of its own (``FirebaseParameters``). Destinations pass the same
    /// allowlist as stored links; nothing is counted (there is no code to count under).
    func firebaseLongLink(_ request: Request) throws -> Response {
        // Hummingbird percent-decodes each value once (and leaves `+` alone).
        var values: [String: String] = [:]
        for name in FirebaseParameters.names {
            if let value = request.uri.queryParameters[Substring(name)] { values[name] = String(value) }
        }
        guard let target = values["link"] else { return SmartLinkPages.html(.notFound, SmartLinkPages.notFound) }
        let read = FirebaseParameters(values: values).link(code: "fdl", policy: policy)
        guard var link = read.link else { return SmartLinkPages.html(.notFound, SmartLinkPages.notFound) }
        link.passQuery = false
        let problems = read.problems + policy.validator.problems(link)
        guard problems.isEmpty else {
            return SmartLinkPages.html(
                .badRequest,
                SmartLinkPages.page(
                    title: "Invalid link",
                    body: "<h1>This link is not valid</h1><p>\(problems.joined(separator: "; "))</p>"
                )
            )
        }
        let agent = AgentText(request.headers[.userAgent])
        let platform = ClientPlatform(agent: agent, platformHint: request.headers[Self.platformHint])
        let (decision, inAppBrowser) = decide(link, agent: agent, platform: platform)
        switch decision {
        case .preview:
            return SmartLinkPages.html(
                .ok,
                SmartLinkPages.openGraph(link, url: target, appName: policy.app(for: link).displayName)
            )
        case .landing(let web):
            let page = SmartLinkPages.landing(
                link,
                policy: policy,
                web: web,
                appArgument: target,
                inAppBrowser: inAppBrowser,
                stored: false,
                platform: platform
            )
            return SmartLinkPages.html(.ok, page)
        case .redirect(let url): return Self.redirect(url)
        case .probe:
            // No code to come back to: a Mac agent without a hint gets the desktop fallback.
            return Self.redirect(link.destinations.desktop ?? target)
        }
    }
}
