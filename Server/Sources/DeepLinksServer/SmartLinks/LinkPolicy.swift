import AppSiteAssociation
import DeepLinks
import Foundation

/// What smart links do, apart from serving: validate a link, decide per platform, ask the matcher.
struct LinkPolicy: Sendable {
    let validator: SmartLinkValidator
    let settings: SmartLinkSettings
    let app: AppConfiguration
    let matcher: AASAMatcher
    /// The link domain's own file, when it has one.
    let linkMatcher: (host: String, matcher: AASAMatcher)?

    init(settings: SmartLinkSettings, app: AppConfiguration, association: AssociationFiles) throws {
        self.settings = settings
        self.app = app
        let manifest = try app.routes.map { try RouteTable<ManifestDestination>(manifest: $0) }
        var allowed = Set(app.domains + ["apps.apple.com", "play.google.com"] + settings.allowedHosts.map { $0.lowercased() })
        if let domain = settings.linkDomain { allowed.insert(domain) }
        if let domain = settings.landingDomain { allowed.insert(domain) }
        validator = SmartLinkValidator(manifest: manifest, manifestHost: app.routes?.hosts.first ?? app.domains[0], allowedHosts: allowed)
        matcher = AASAMatcher(document: try JSONValue.parse(Data(association.appleAppSiteAssociation.body)))
        linkMatcher = try association.linkDomainAssociation.map { ($0.host, AASAMatcher(document: try JSONValue.parse(Data($0.file.body)))) }
    }

    var linkDomain: String { settings.linkDomain ?? app.domains[0] }

    func shortURL(_ code: String) -> String { "https://\(linkDomain)/\(code)" }
    func appURL(_ link: SmartLink) -> String { "https://\(app.domains[0])\(link.route)" }

    enum Decision: Equatable {
        /// Open Graph HTML for a preview fetcher.
        case preview
        /// The landing page: Smart App Banner, "Open in the app", the App Store, and the web destination.
        case landing(web: String?)
        case redirect(String)
    }

    /// What a platform gets for `link` (also what `?d=1` shows).
    func decision(_ link: SmartLink, platform: ClientPlatform) -> Decision {
        let fallback = link.destinations.fallback
        switch platform {
        case .previewBot:
            return .preview
        case .iPhone:
            return .landing(web: link.destinations.ios ?? fallback)
        case .iPad:
            return .landing(web: link.destinations.ipad ?? link.destinations.ios ?? fallback)
        case .android:
            let web = link.destinations.android ?? androidStore ?? fallback
            if let android = app.android {
                // Chrome opens the app when installed, else the fallback (Firefox always takes the fallback).
                // The intent's own fragment carries its parameters: the route's fragment cannot come along.
                let path = link.route.prefix { $0 != "#" }
                var intent = "intent://\(app.domains[0])\(path)#Intent;scheme=https;package=\(android.packageName);"
                if let web { intent += "S.browser_fallback_url=\(PercentEncoding.encode(web));" }
                return .redirect(intent + "end")
            }
            return web.map { .redirect($0) } ?? .landing(web: nil)
        case .desktop:
            return (link.destinations.desktop ?? fallback).map { .redirect($0) } ?? .landing(web: nil)
        }
    }

    var androidStore: String? { app.android.map { "https://play.google.com/store/apps/details?id=\($0.packageName)" } }

    /// Whether iOS would open the app for `url`, by the association file this server serves.
    func opensApp(_ url: String) -> AASADecision {
        if let linkMatcher, URLComponents(string: url)?.host?.lowercased() == linkMatcher.host {
            return linkMatcher.matcher.decide(appID: app.appID, url: url)
        }
        return matcher.decide(appID: app.appID, url: url)
    }
}
