import DeepLinks
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The redirect: `GET /{code}` (and a Firebase long link), a stored link opened, counted, and answered per
/// platform; the same answer on the event loop for a link the cache holds (``cachedRedirect(_:peer:)``).
/// ``SmartLinkRoutes`` registers it beside the app's `resolve` and the deferred links.
struct LinkRedirect: Sendable {
    let store: LinkStore
    let clicks: ClickCounter
    let policy: LinkPolicy
    /// A one-segment path that is no code may be a path of the app's (`/search`).
    let fallback: AppPathFallback
    let proxies: TrustedProxies
    let clock: WallClock
    /// Per client network, codes that were no link (see ``SmartLinkSettings/unknownCodeBurst``).
    let unknownCodes: RateLimiter
    /// Universal-link health, nil with `--analytics off`: a request from iOS here is a universal link that fell
    /// through (when the link domain's file claims the code, which the health job checks).
    var health: UniversalLinkHealth? = nil

    /// How long a 429 for made-up codes is held before it is sent.
    static let refusalDelay: Duration = .milliseconds(250)

    func resolve(_ request: Request, context: AppRequestContext, counting: Bool) async throws -> Response {
        let code = try context.parameters.require("code")
        let found: SmartLink?
        do {
            found = try await lookup(code, request, context)
        } catch let refused as TooManyUnknownCodes {
            // Held before it is answered: a client that floods made-up codes over many connections gets a few
            // answers a second on each instead of taking the CPU from the links people open.
            try? await Task.sleep(for: Self.refusalDelay)
            var response = SmartLinkPages.html(
                .tooManyRequests,
                SmartLinkPages.page(
                    title: "Too many requests",
                    body: "<h1>Too many links that do not exist</h1><p>Wait a minute, then try again.</p>"
                )
            )
            response.headers[.retryAfter] = String(refused.wait)
            return response
        }
        guard let link = found else { return fallback.notFound(request, peer: context.peer) }
        // `?d=1` names the week's universal-link health of the domain (read here: the answer itself is synchronous).
        var healthNote: String?
        if let health, let query = request.uri.query, ClickQuery(query)?.wantsDecisions == true,
            let host = request.requestedHost
        {
            healthNote = await health.note(domain: host)
        }
        // Not nil: only a redirect may be refused.
        return respond(
            link,
            code: code,
            request: request,
            peer: { context.peer },
            counting: counting,
            healthNote: healthNote
        )!
    }

    /// The redirect for the head of a `GET` or `HEAD /{code}` whose link the cache holds, counted as the router
    /// counts it; nil when the router must answer (not a code, not cached, not a redirect). For ``CachedRedirects``.
    func cachedRedirect(_ head: HTTPRequest, peer: () -> SocketAddress?) -> HTTPResponse? {
        guard let path = head.path else { return nil }
        let code = String(path.dropFirst().prefix { $0 != "?" })
        guard SmartLinkValidator.isCode(code),
            case .some(.some(let link)) = store.cache.lookup(code, now: clock.milliseconds())
        else { return nil }
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        return respond(
            link,
            code: code,
            request: request,
            peer: peer,
            counting: head.method == .get,
            onlyRedirect: true
        )?.head
    }

    /// The answer to a request for the stored `link`, counted as a click when `counting` and the request is a
    /// person's first landing. With `onlyRedirect`, nil (and nothing counted) unless the answer is a bodiless
    /// 302: what ``CachedRedirects`` may answer on the event loop.
    /// - Parameter peer: the connection's peer, asked only when the link's rules need the client's address or
    ///   whether a trusted proxy sent the request.
    func respond(
        _ link: SmartLink,
        code: String,
        request: Request,
        peer: () -> SocketAddress?,
        counting: Bool,
        onlyRedirect: Bool = false,
        healthNote: String? = nil
    ) -> Response? {
        let agent = AgentText(request.headers[.userAgent])
        var platform = ClientPlatform(agent: agent, platformHint: request.headers[Self.platformHint])
        // The query, split once: what this server reads of it, what rules compare, what goes on.
        var click: ClickQuery?
        if let raw = request.uri.query, !raw.isEmpty {
            guard let parsed = ClickQuery(raw) else { return onlyRedirect ? nil : Self.queryTooLong }
            click = parsed
        }
        if let click {
            if click.wantsDecisions {
                guard !onlyRedirect else { return nil }
                let address = peer()
                let page = SmartLinkPages.decisions(
                    link,
                    policy: policy,
                    now: clock.milliseconds(),
                    you: platform,
                    health: healthNote
                ) {
                    visitor(platform: $0, agent: agent, request: request, query: click, peer: address)
                }
                return SmartLinkPages.html(.ok, page)
            }
            // The touch check's answer (SmartLinkPages.probe), for a Mac agent only.
            if platform == .macOrIPad, let answer = click.platformAnswer {
                platform = answer == "ipad" ? .iPad : .desktop
            }
        }
        let onLandingDomain =
            policy.settings.landingDomain != nil && request.requestedHost == policy.settings.landingDomain
        // The probe's answer and the QR tag are for this server, not for the destination.
        let hop = request.uri.query.flatMap { $0.isEmpty ? nil : $0 }
        let source: ClickSource = click?.isQR == true ? .qr : .link
        let query = click?.forwarded
        let (answered, hit) = answer(
            link,
            code: code,
            agent: agent,
            platform: platform,
            query: query,
            hop: hop,
            onLandingDomain: onLandingDomain,
            visitor: { [address = link.rules == nil ? nil : peer()] in
                visitor(platform: platform, agent: agent, request: request, query: click, peer: address)
            }
        )
        var response = answered
        if onlyRedirect, response.status != .found { return nil }
        if platform == .android, link.readsAndroidVersion, request.headers[RuleVisitor.platformVersionHint] == nil {
            Self.askForPlatformVersion(&response.headers)
        }
        // A click is counted where it lands first (a visit to the landing domain came from the link domain), once:
        // a Mac agent asked for touch support is counted when it comes back as ipad or desktop; one that got its
        // redirect at once (the same page for both, a rule without a platform) is counted now, as mac-or-ipad.
        let asked = platform == .macOrIPad && response.status != .found
        if counting, !onLandingDomain, !asked, !Self.optsOut(request) {
            if clicks.analytics != nil {
                // The analytics read the request in the flush job, off this path: here, one append.
                clicks.record(
                    .init(
                        code: code,
                        platform: platform,
                        source: source,
                        rule: hit,
                        headers: request.headers,
                        peer: peer(),
                        milliseconds: clock.milliseconds()
                    )
                )
            } else {
                clicks.count(
                    code: code,
                    platform: platform,
                    source: source,
                    referrer: ClickCounter.referrerHost(request.headers[.referer]),
                    rule: hit,
                    at: clock.milliseconds()
                )
            }
            health?.record(request, platform: platform, peer: peer)
        }
        return response
    }

    /// What the link's rules read of the request (``RuleVisitor``), as `platform`.
    func visitor(
        platform: ClientPlatform,
        agent: AgentText,
        request: Request,
        query: ClickQuery?,
        peer: SocketAddress?
    ) -> RuleVisitor {
        var visitor = RuleVisitor(
            platform: platform,
            agent: agent,
            headers: request.headers,
            query: query,
            now: clock.milliseconds(),
            countryHeader: policy.countryHeader
        ) { [proxies] in
            proxies.clientAddress(peer: peer, headers: request.headers)
        } viaTrustedProxy: { [proxies] in
            proxies.trusts(peer: peer)
        }
        visitor.places = clicks.analytics.flatMap { Places.source($0.placeSetting) }
        return visitor
    }

    /// What `link` answers the client, and the rule that decided it, if one did: every 302 here
    /// (``redirect(_:)``) has no body.
    private func answer(
        _ link: SmartLink,
        code: String,
        agent: AgentText,
        platform: ClientPlatform,
        query: String?,
        hop: String?,
        onLandingDomain: Bool,
        visitor: () -> RuleVisitor
    ) -> (Response, RuleHit?) {
        let now = clock.milliseconds()
        if let expiry = link.expiresAt, now >= expiry {
            guard let expired = link.expiredURL else {
                return (SmartLinkPages.html(.gone, SmartLinkPages.expired), nil)
            }
            return (Self.redirect(expired), nil)
        }
        let passed = link.passQuery ? query : nil
        let inAppBrowser = InAppBrowser(agent: agent)
        let (decision, hit, shown): (LinkPolicy.Decision, RuleHit?, SmartLink)
        switch policy.ruled(
            link,
            platform: platform,
            inAppBrowser: inAppBrowser != nil,
            now: now,
            visitor: {
                visitor().knowing(inAppBrowser: inAppBrowser)
            }
        ) {
        case .decided(let made, let found, let link): (decision, hit, shown) = (made, found, link)
        case .ended: return (SmartLinkPages.html(.gone, SmartLinkPages.ended), nil)
        case .nothing: return (SmartLinkPages.html(.notFound, SmartLinkPages.nothingForThisVisitor), nil)
        }
        return (
            response(
                shown,
                code: code,
                decision: decision,
                inAppBrowser: inAppBrowser,
                platform: platform,
                query: query,
                passed: passed,
                hop: hop,
                onLandingDomain: onLandingDomain
            ), hit
        )
    }

    /// The response a decision makes.
    private func response(
        _ link: SmartLink,
        code: String,
        decision: LinkPolicy.Decision,
        inAppBrowser: InAppBrowser?,
        platform: ClientPlatform,
        query: String?,
        passed: String?,
        hop: String?,
        onLandingDomain: Bool
    ) -> Response {
        switch decision {
        case .preview:
            return SmartLinkPages.html(
                .ok,
                SmartLinkPages.openGraph(link, url: policy.shortURL(code), appName: policy.app(for: link).displayName)
            )
        case .landing(let web):
            // On the link domain, send iOS to the landing domain: from there, "Open in the app" is a
            // cross-domain tap, which iOS hands to the app.
            if let landing = policy.settings.landingDomain, !onLandingDomain {
                return Self.redirect(Self.appending(hop, to: "https://\(landing)/\(code)"))
            }
            let page = SmartLinkPages.landing(
                link,
                policy: policy,
                web: web.map { Self.appending(passed, to: $0) },
                inAppBrowser: inAppBrowser,
                platform: platform
            )
            return SmartLinkPages.html(.ok, page)
        case .redirect(let url):
            return Self.redirect(Self.appending(passed, to: url))
        case .probe:
            return SmartLinkPages.html(.ok, SmartLinkPages.probe(code: code, query: query))
        }
    }

    /// Global Privacy Control (`Sec-GPC: 1`) or Do Not Track (`DNT: 1`): the link opens as for anyone, and the
    /// click is not counted, not even in the aggregates.
    static func optsOut(_ request: Request) -> Bool {
        request.headers[secGPC] == "1" || request.headers[doNotTrack] == "1"
    }

    /// Asks Chromium browsers for the Android version (their agent says `Android 10` whatever it is): `Accept-CH`
    /// opts in to `Sec-CH-UA-Platform-Version`, and `Critical-CH` has the browser retry this request at once with
    /// it (one more round trip on a first visit; later visits send it unasked while the opt-in lasts). Browsers
    /// send client hints over HTTPS only; Firefox and in-app browsers of other engines send none, and their
    /// visitors' version stays unknown to a rule.
    static func askForPlatformVersion(_ headers: inout HTTPFields) {
        headers[acceptCH] = "Sec-CH-UA-Platform-Version"
        headers[criticalCH] = "Sec-CH-UA-Platform-Version"
        headers.append(HTTPField(name: .vary, value: "Sec-CH-UA-Platform-Version"))
    }

    static let acceptCH = HTTPField.Name("Accept-CH")!
    static let criticalCH = HTTPField.Name("Critical-CH")!
    static let secGPC = HTTPField.Name("Sec-GPC")!
    static let platformHint = HTTPField.Name("Sec-CH-UA-Platform")!
    static let doNotTrack = HTTPField.Name("DNT")!

    /// A click whose query is past ``ClickQuery``'s bounds: refused, with the reason, before anything is counted.
    static var queryTooLong: Response {
        SmartLinkPages.html(
            .uriTooLong,
            SmartLinkPages.page(
                title: "Link too long",
                body:
                    "<h1>This link is too long</h1><p>Its query is longer than \(ClickQuery.maxBytes) bytes or has more than \(ClickQuery.maxItems) items. Open the link as it was shared.</p>"
            )
        )
    }

    struct TooManyUnknownCodes: Error {
        let wait: Int
    }

    /// The link of `code` through the cache, for `/{code}` and `/v1/links/{code}/resolve` alike: a client whose
    /// made-up codes emptied its bucket (``SmartLinkSettings/unknownCodeBurst``) is refused before the database is
    /// read, and a code that is no link takes a token from it.
    func lookup(_ code: String, _ request: Request, _ context: AppRequestContext) async throws -> SmartLink? {
        // The client's network, read only when the cache does not know the code (hits stay cheap).
        func client() -> String {
            ClientNetwork.key(proxies.clientAddress(peer: context.peer, headers: request.headers))
        }
        let found =
            SmartLinkValidator.isCode(code)
            ? try await store.resolve(code) {
                if let wait = unknownCodes.wait(client(), now: clock.milliseconds()) {
                    throw TooManyUnknownCodes(wait: wait)
                }
            } : nil
        if found == nil { _ = unknownCodes.take(client(), now: clock.milliseconds()) }
        return found
    }

    /// What `link` does for the request's client, with the in-app browser it was opened in, if any (stored
    /// links and Firebase long links decide alike).
    func decide(_ link: SmartLink, agent: AgentText, platform: ClientPlatform) -> (
        LinkPolicy.Decision, InAppBrowser?
    ) {
        let inAppBrowser = InAppBrowser(agent: agent)
        return (policy.decision(link, platform: platform, inAppBrowser: inAppBrowser != nil), inAppBrowser)
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// `url` with the click's query added (utm_* and the rest) after its own; a URL that is not a destination
    /// (an intent:// URL) is left alone.
    static func appending(_ query: String?, to url: String) -> String {
        guard let query, var parts = try? URLParts(parsing: url, limits: SmartLinkValidator.destinationLimits),
            parts.isWebURL
        else { return url }
        parts.query = parts.query.map { $0 + "&" + query } ?? query
        return parts.string
    }
}
