import AppSiteAssociation
import DeepLinks
import Foundation
import HTTPTypes
import Hummingbird

extension SmartLinkRoutes {
    /// A Firebase Dynamic Links long link as a link of its own: `link` is the app destination (on one of
    /// the apps' domains), `ifl`, `ipfl`, `afl` and `ofl` the iOS, iPad, Android and other fallbacks, `st`,
    /// `sd` and `si` the preview; `ibi` (or else `apn`) picks the app among the configured ones, and `isi`
    /// and `apn` must then be that app's. Destinations pass the same allowlist as stored links; nothing is
    /// counted (there is no code to count under).
    func firebaseLongLink(_ request: Request) throws -> Response {
        let query = request.uri.queryParameters
        // Hummingbird percent-decodes each value once (and leaves `+` alone).
        func value(_ name: String) -> String? { query[Substring(name)].map(String.init) }
        guard let target = value("link"),
            let parts = try? URLParts(parsing: target, limits: SmartLinkValidator.destinationLimits),
            parts.isWebURL, let host = parts.host,
            policy.apps.contains(where: { $0.domains.contains(host) })
        else {
            return SmartLinkPages.html(.notFound, SmartLinkPages.notFound)
        }
        var problems: [String] = []
        let bundle = value("ibi")
        let package = value("apn")
        let app =
            bundle.map { id in policy.apps.first { $0.bundleID == id } }
            ?? package.flatMap { id in policy.apps.first { $0.android?.packageName == id } }
            ?? policy.apps.first { $0.domains.contains(host) }
        if app == nil { problems.append("ibi: not the bundle ID of a configured app") }
        if let store = value("isi"), store != app?.appStoreID {
            problems.append("isi: not the App Store ID of the app")
        }
        if let package, package != app?.android?.packageName {
            problems.append("apn: not the Android package of the app")
        }
        if let app, !app.domains.contains(host) { problems.append("link: \(host) is not a domain of \(app.bundleID)") }
        var link = SmartLink(
            code: "fdl",
            route: (parts.path.isEmpty ? "/" : parts.path) + (parts.query.map { "?" + $0 } ?? "")
        )
        if let app, app.bundleID != policy.primary.bundleID { link.app = app.bundleID }
        link.destinations = .init(
            ios: value("ifl"),
            ipad: value("ipfl"),
            android: value("afl"),
            desktop: value("ofl"),
            fallback: target
        )
        link.preview = .init(title: value("st"), description: value("sd"), image: value("si"))
        link.passQuery = false
        problems += policy.validator.problems(link)
        guard problems.isEmpty else {
            return SmartLinkPages.html(
                .badRequest,
                SmartLinkPages.page(
                    title: "Invalid link",
                    body: "<h1>This link is not valid</h1><p>\(HTML.escape(problems.joined(separator: "; ")))</p>"
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
