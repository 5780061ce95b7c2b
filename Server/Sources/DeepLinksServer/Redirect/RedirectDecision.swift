import AppSiteAssociation
import DeepLinks
import DeepLinksSupport

/// What each visitor of a link gets: the redirect's decision, from the link's platform destinations and its rules
/// (``LinkPolicy/ruled(_:platform:inAppBrowser:now:visitor:)``), which `GET /{code}`, `?d=1` and the console's
/// link page all read.
extension LinkPolicy {
    enum Decision: Equatable {
        /// Open Graph HTML for a preview fetcher.
        case preview
        /// The landing page: Smart App Banner, "Open in the app", the App Store, and the web destination.
        case landing(web: String?)
        case redirect(String)
        /// A page whose script asks for touch support and comes back with `_platform=ipad` or `mac`.
        case probe
    }

    /// What a platform gets for `link` (also what `?d=1` shows).
    /// - Parameter inAppBrowser: the request comes from an app's own browser (Facebook, Instagram ...), which
    ///   hands neither universal links nor `intent://` URLs to apps: it gets the landing page.
    func decision(_ link: SmartLink, platform: ClientPlatform, inAppBrowser: Bool = false) -> Decision {
        let fallback = link.destinations.fallback
        guard let route = link.route else { return webDecision(link, platform: platform) }
        switch platform {
        case .previewBot:
            return .preview
        case .iPhone:
            return .landing(web: link.destinations.ios ?? fallback)
        case .iPad:
            return .landing(web: link.destinations.ipad ?? link.destinations.ios ?? fallback)
        case .android:
            let app = app(for: link)
            // No Android app: the link's web destination (else the route's page on the app's domain), never a page
            // that offers the App Store.
            guard app.android != nil else { return .redirect(link.destinations.android ?? fallback ?? appURL(link)) }
            // The link's own web page when it has one (its content), else the Play listing. A fallback that is the
            // app's own path (a Firebase row's deep link) is no page for a browser without the app: Play instead.
            let web =
                link.destinations.android ?? fallback.flatMap { isAppPath($0) ? nil : $0 }
                ?? app.android?.playStoreURL
            if inAppBrowser { return .landing(web: link.destinations.android ?? fallback) }
            if let android = app.android {
                // Chrome opens the app when installed, else the fallback (Firefox always takes the fallback).
                // The intent's own fragment carries its parameters: the route's fragment cannot come along.
                let path = route.prefix { $0 != "#" }
                var intent = "intent://\(app.domains[0])\(path)#Intent;scheme=https;package=\(android.packageName);"
                if let web { intent += "S.browser_fallback_url=\(PercentEncoding.encode(web));" }
                return .redirect(intent + "end")
            }
            return web.map { .redirect($0) } ?? .landing(web: nil)
        case .desktop:
            return (link.destinations.desktop ?? fallback).map { .redirect($0) } ?? .landing(web: nil)
        case .macOrIPad:
            return .probe
        }
    }

    /// What a link with rules does for one visitor: the decision, the rule that made it (nil: the link's own
    /// destinations) and the link as shown (a rule's route instead of the link's); or the link has ended, or has
    /// nothing for this visitor (no rule matched and it has no destination of its own).
    enum Ruled {
        case decided(Decision, RuleHit?, SmartLink)
        case ended
        case nothing
    }

    /// `link`'s rules for a visitor (built only when the link has rules), then its platform destinations.
    /// Preview fetchers get the Open Graph page whatever the rules say.
    func ruled(
        _ link: SmartLink,
        platform: ClientPlatform,
        inAppBrowser: Bool,
        now: Int64,
        visitor: () -> RuleVisitor
    ) -> Ruled {
        func standing() -> Ruled { .decided(decision(link, platform: platform, inAppBrowser: inAppBrowser), nil, link) }
        guard link.rules != nil, platform != .previewBot else { return standing() }
        var visitor = visitor()
        switch link.ruleOutcome(&visitor) {
        case .hit(let hit):
            var shown = link
            if case .route(let route) = hit.destination { shown.route = route }
            return .decided(
                decision(link, platform: platform, inAppBrowser: inAppBrowser, destination: hit.destination),
                hit,
                shown
            )
        case .needsPlatform:
            return .decided(.probe, nil, link)
        case .none where link.route == nil && link.destinations.fallback == nil:
            return link.hasEnded(at: now) ? .ended : .nothing
        case .none:
            return standing()
        }
    }

    /// A platform's outcome in words, with the rule that decides it (`?d=1`, the console's link page).
    func outcome(_ link: SmartLink, platform: ClientPlatform, now: Int64, visitor: () -> RuleVisitor) -> String {
        switch ruled(link, platform: platform, inAppBrowser: false, now: now, visitor: visitor) {
        case .ended: return "no rule matches and every rule's window has closed: the 'this link has ended' page (410)"
        case .nothing: return "no rule matches and the link has no destination of its own: a 'nothing here' page (404)"
        case .decided(let decision, let hit, _):
            let what: String
            switch decision {
            case .preview: what = "Open Graph page (not counted as a click)"
            case .landing(let web):
                what = "landing page: Smart App Banner, Open in the app, App Store" + (web.map { ", web: \($0)" } ?? "")
            case .redirect(let url): what = "302 to \(url)"
            case .probe:
                what =
                    "a page that asks the browser for touch support, then goes on as ipad or desktop (iPadOS Safari sends a Mac agent)"
            }
            guard let hit else { return link.rules == nil ? what : "no rule: " + what }
            return "rule \(hit.index + 1) '\(hit.rule)'" + (hit.variant.map { ", variant '\($0)'" } ?? "") + ": " + what
        }
    }

    /// What a platform gets when a rule of `link` sends it to `destination`: a web address is a 302 everywhere;
    /// a route is the link's own handling of that route; the store is the App Store, Google Play on Android.
    /// Preview fetchers get the Open Graph page.
    func decision(
        _ link: SmartLink,
        platform: ClientPlatform,
        inAppBrowser: Bool,
        destination: LinkRule.Destination
    ) -> Decision {
        if platform == .previewBot { return .preview }
        switch destination {
        case .url(let url):
            return .redirect(url)
        case .route(let route):
            var routed = link
            routed.route = route
            return decision(routed, platform: platform, inAppBrowser: inAppBrowser)
        case .store:
            let app = app(for: link)
            if platform == .android {
                // Never Apple's store on Android: Play, else the link's web destination.
                if let play = app.android?.playStoreURL { return .redirect(play) }
                return .redirect(link.destinations.android ?? link.destinations.fallback ?? appURL(link))
            }
            if let store = app.appStoreURL(campaign: link.campaign ?? link.code) { return .redirect(store) }
            return app.android.map { .redirect($0.playStoreURL) } ?? .landing(web: nil)
        }
    }

    /// A web link's answer: a redirect on every platform, in-app browsers included (a web page opens there as
    /// well as anywhere), to the platform's own destination or else the link's web address; Open Graph for preview
    /// fetchers. Never the landing page: there is no app to offer. A Mac or iPad agent without a hint is asked
    /// (the probe) only when the link sends iPads and desktops to different pages.
    fileprivate func webDecision(_ link: SmartLink, platform: ClientPlatform) -> Decision {
        let destinations = link.destinations
        let web = destinations.fallback ?? shortURL(link.code)
        switch platform {
        case .previewBot: return .preview
        case .iPhone: return .redirect(destinations.ios ?? web)
        case .iPad: return .redirect(destinations.ipad ?? destinations.ios ?? web)
        case .android: return .redirect(destinations.android ?? web)
        case .desktop: return .redirect(destinations.desktop ?? web)
        case .macOrIPad:
            let iPad = destinations.ipad ?? destinations.ios ?? web
            let desktop = destinations.desktop ?? web
            return iPad == desktop ? .redirect(desktop) : .probe
        }
    }
}
