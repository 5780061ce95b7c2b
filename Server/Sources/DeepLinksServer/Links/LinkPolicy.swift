import AppSiteAssociation
import DeepLinks
import DeepLinksSupport
import Foundation
import HTTPTypes

/// What smart links are, apart from serving: the apps and domains, a link validated, its addresses, what the
/// association file makes of a URL. The decision per visitor is the redirect's (RedirectDecision.swift).
struct LinkPolicy: Sendable {
    let validator: SmartLinkValidator
    let settings: SmartLinkSettings
    /// The configured apps, the primary one first.
    let apps: [AppConfiguration]
    let matcher: AASAMatcher
    /// The link domain's own file, when it has one.
    let linkMatcher: (hosts: Set<String>, matcher: AASAMatcher)?
    /// ``SmartLinkSettings/countryHeader``, parsed once.
    let countryHeader: HTTPField.Name?

    init(settings: SmartLinkSettings, app: AppConfiguration, association: AssociationFiles) throws {
        self.settings = settings
        countryHeader = try settings.countryHeader.map { name in
            guard let parsed = HTTPField.Name(name) else {
                throw ConfigurationError(setting: "country header", reason: "'\(name)' is not a header name")
            }
            return parsed
        }
        apps = app.apps
        var allowed = Set(
            apps.flatMap(\.domains) + ["apps.apple.com", "play.google.com"]
                + settings.allowedHosts.map { $0.lowercased() }
        )
        for store in apps.compactMap(\.android?.playStoreURL) {
            if let host = try? URLParts(parsing: store, limits: SmartLinkValidator.destinationLimits).host {
                allowed.insert(host)
            }
        }
        if let domain = settings.linkDomain { allowed.insert(domain) }
        allowed.formUnion(settings.otherLinkDomains)
        if let domain = settings.landingDomain { allowed.insert(domain) }
        let linkDomain = (settings.linkDomain ?? app.apps[0].domains[0]).lowercased()
        let shared = apps.contains { $0.domains.contains { $0.lowercased() == linkDomain } }
        let dedicated =
            ([shared ? nil : linkDomain, settings.landingDomain].compactMap { $0 } + settings.otherLinkDomains)
        validator = try SmartLinkValidator(
            apps: apps,
            allowedHosts: allowed,
            shortLinkHosts: Set(dedicated.map { $0.lowercased() }),
            sharedLinkHost: shared ? linkDomain : nil
        )
        matcher = association.matcher
        linkMatcher = association.linkDomainAssociation.map { (Set($0.hosts), $0.matcher) }
    }

    /// The primary app: reset links, and short links that name no app.
    var primary: AppConfiguration { apps[0] }

    /// The app `link` opens.
    func app(for link: SmartLink) -> AppConfiguration {
        link.app.flatMap { bundleID in apps.first { $0.bundleID == bundleID } } ?? primary
    }

    var linkDomain: String { settings.linkDomain ?? primary.domains[0] }

    func shortURL(_ code: String) -> String { "https://\(linkDomain)/\(code)" }
    /// The short link a QR code holds: tagged so that its scans are counted apart (source "qr").
    func qrURL(_ code: String) -> String { shortURL(code) + "?" + ClickQuery.qrTag }
    /// The link `code` makes of a destination URL from another service: on one of the app's domains (of `app`, when
    /// named) and matched by its route table, a link that opens the app there with the URL as its web fallback;
    /// otherwise a web link to the URL. Either is then checked by the validator (https, allowed host, ...).
    func link(code: String, destination url: String, app named: AppConfiguration? = nil) -> SmartLink {
        var web = SmartLink(code: code, route: nil)
        web.destinations.fallback = url
        guard let parts = try? URLParts(parsing: url, limits: SmartLinkValidator.destinationLimits), parts.isWebURL,
            let host = parts.host,
            let app = named.flatMap({ $0.domains.contains(host) ? $0 : nil })
                ?? apps.first(where: { $0.domains.contains(host) })
        else { return web }
        var routed = web
        routed.route = (parts.path.isEmpty ? "/" : parts.path) + (parts.query.map { "?" + $0 } ?? "")
        if app.bundleID != primary.bundleID { routed.app = app.bundleID }
        let matched = !validator.problems(routed).contains { $0.hasPrefix("route:") }
        return matched ? routed : web
    }

    /// Whether `url` is a path of an app's own on one of its domains, answered by this server with a page that
    /// offers the app (no `webURL` of the app's takes it): no destination for a browser without the app.
    func isAppPath(_ url: String) -> Bool {
        guard let host = (try? URLParts(parsing: url, limits: SmartLinkValidator.destinationLimits))?.host else {
            return false
        }
        return apps.contains { app in
            guard app.webURL == nil, app.domains.contains(host),
                let table = validator.manifests[app.bundleID]?.table, case .success = table.match(url)
            else { return false }
            return opens(app, url).verdict == .match
        }
    }

    /// The universal link of the link's route; a web link's web address.
    func appURL(_ link: SmartLink) -> String {
        guard let route = link.route else { return link.destinations.fallback ?? shortURL(link.code) }
        return "https://\(app(for: link).domains[0])\(route)"
    }

    /// Whether iOS would open `app` for `url`, by the association file this server serves.
    func opens(_ app: AppConfiguration, _ url: String) -> AASADecision {
        if let linkMatcher,
            let host = (try? URLParts(parsing: url, limits: SmartLinkValidator.destinationLimits))?.host,
            linkMatcher.hosts.contains(host)
        {
            return linkMatcher.matcher.decide(appID: app.appID, url: url)
        }
        return matcher.decide(appID: app.appID, url: url)
    }
}
