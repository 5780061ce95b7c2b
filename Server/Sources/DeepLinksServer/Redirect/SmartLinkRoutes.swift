import AppSiteAssociation
import DeepLinks
import DeepLinksJSON
import Foundation
import HTTPTypes
import Hummingbird

/// The public routes of links: `GET /{code}` (``LinkRedirect``, Firebase Dynamic Links long links in
/// FirebaseLongLinks.swift), the app's `resolve`, and deferred links. The API behind a key is
/// ``LinksAPIController``'s.
struct SmartLinkRoutes: Sendable {
    let redirect: LinkRedirect
    let deferred: DeferredLinks
    /// All clients together: deferred links issued an hour.
    let deferredCeiling: WriteCeiling
    /// Per client address, for the two public deferred-link calls.
    let deferredLimiter = RateLimiter(capacity: 20, perMinute: 30)

    private var store: LinkStore { redirect.store }
    private var policy: LinkPolicy { redirect.policy }
    private var clock: WallClock { redirect.clock }

    func register(on router: Router<AppRequestContext>) {
        // Public: the app, opened by a short link, asks where it leads; deferred deep links (DeferredLinks).
        router.get("/v1/links/:code/resolve", use: resolveLink)
        router.post("/v1/links/:code/deferred", use: issueDeferred)
        router.post("/v1/deferred/redeem", use: redeemDeferred)
        // Preview fetchers (Twitterbot honours robots.txt) may read links; nothing else is for crawlers.
        let robots =
            "User-agent: *\nDisallow: /v1/\n" + (policy.primary.passwordReset.map { "Disallow: \($0.path)\n" } ?? "")
            + "Disallow: /assets/\n"
        router.get("/robots.txt") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "public, max-age=86400"],
                body: .init(byteBuffer: ByteBuffer(string: robots))
            )
        }
        // Browsers ask for it on every page; no icon, and no 404 in their console.
        router.get("/favicon.ico") { _, _ -> Response in
            Response(status: .noContent, headers: [.cacheControl: "public, max-age=86400"])
        }
        for method in [HTTPRequest.Method.get, .head] {
            router.on("/:code", method: method) { request, context -> Response in
                try await redirect.resolve(request, context: context, counting: method == .get)
            }
            // Firebase Dynamic Links' long links (`/?link=...&ibi=...`), so migrated links keep working.
            // Without a query: the start page, what this server is configured for and where to look.
            router.on("/", method: method) { request, _ -> Response in
                guard let query = request.uri.query, !query.isEmpty else {
                    return SmartLinkPages.html(.ok, SmartLinkPages.start(policy))
                }
                return try redirect.firebaseLongLink(request)
            }
        }
    }

    /// Public: the app, opened by a short link, asks where it leads (LinkCoordinator's resolver).
    /// Through the cache and the made-up-code throttle, as `/{code}`: it is as public.
    @Sendable func resolveLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        let link: SmartLink
        do {
            guard let found = try await redirect.lookup(try context.parameters.require("code"), request, context) else {
                throw APIError(status: .notFound, code: .noSuchLink)
            }
            link = found
        } catch let refused as LinkRedirect.TooManyUnknownCodes {
            try? await Task.sleep(for: LinkRedirect.refusalDelay)
            throw APIError.tooManyRequests(retryAfter: refused.wait)
        }
        let now = clock.milliseconds()
        if let expiry = link.expiresAt, now >= expiry {
            throw APIError(status: .gone, code: .linkExpired)
        }
        // The link's rules, for the app that was opened: its platform as it says (`platform=iphone`), else by
        // its agent; the short link's query as the app forwards it; its language and country as a browser's.
        var shown = link
        if link.rules != nil {
            let parameters = request.uri.queryParameters
            let platform =
                parameters["platform"].flatMap { ClientPlatform(rawValue: String($0)) }
                ?? ClientPlatform(userAgent: request.headers[.userAgent])
            let query = try request.uri.query.flatMap { query -> ClickQuery? in
                let forwarded = URLParts.rewritingItems(query) { name, pair in
                    name == "platform" ? nil : String(pair)
                }
                guard let parsed = ClickQuery(forwarded) else {
                    throw APIError.malformed(
                        "the query: at most \(ClickQuery.maxBytes) bytes and \(ClickQuery.maxItems) items"
                    )
                }
                return parsed
            }
            let agent = AgentText(request.headers[.userAgent])
            // The rules' one evaluation, as the redirect reads it.
            let ruled = policy.ruled(link, platform: platform, inAppBrowser: false, now: now) {
                redirect.visitor(platform: platform, agent: agent, request: request, query: query, peer: context.peer)
            }
            switch ruled {
            case .decided(let decision, let hit, let decided):
                // A rule's web address, or the store: for the app to open in a browser.
                if let hit, hit.destination.route == nil, case .redirect(let url) = decision {
                    return try JSONResponse.make(.ok, Resolved(url: url))
                }
                shown = decided
            case .ended: throw APIError(status: .gone, code: .linkExpired)
            case .nothing: throw APIError(status: .notFound, code: .noSuchLink)
            }
        }
        // A web link has no route: its url is the web address, for the app to open in a browser.
        return try JSONResponse.make(.ok, Resolved(url: policy.appURL(shown), route: shown.route))
    }

    /// Deferred deep links (DeferredLinks): the landing page asks for a token on the way to the App Store ...
    @Sendable func issueDeferred(_ request: Request, context: AppRequestContext) async throws -> Response {
        try admitDeferred(request, context)
        let link = try await store.existing(context)
        if let expiry = link.expiresAt, clock.milliseconds() >= expiry {
            throw APIError(status: .gone, code: .linkExpired)
        }
        try await deferredCeiling.admit(now: clock.milliseconds())
        let token = try await deferred.issue(code: link.code)
        let pasteboard = "\(policy.shortURL(link.code))#deferred=\(token)"
        return try JSONResponse.make(
            .created,
            DeferredToken(pasteboard: pasteboard, expiresIn: DeferredLinks.lifetimeMilliseconds / 1000)
        )
    }

    /// ... and the app, at its first launch, redeems it once for the link's route.
    @Sendable func redeemDeferred(_ request: Request, context: AppRequestContext) async throws -> Response {
        try admitDeferred(request, context)
        let token = try await JSONBody.read(request, context: context).decode(Redemption.self).token
        guard DeferredLinks.isWellFormed(token) else {
            throw APIError.malformed("'token' is 22 base64url characters")
        }
        guard let code = try await deferred.redeem(token), let link = try await store.find(code) else {
            throw APIError(status: .gone, code: .deferredLinkGone)
        }
        return try JSONResponse.make(.ok, Resolved(url: policy.appURL(link), route: link.route, code: link.code))
    }

    // MARK: API helpers

    private func admitDeferred(_ request: Request, _ context: AppRequestContext) throws {
        let address = redirect.proxies.clientAddress(peer: context.peer, headers: request.headers)
        if let wait = deferredLimiter.take(address, now: clock.milliseconds()) {
            throw APIError.tooManyRequests(retryAfter: wait)
        }
    }
}

extension SmartLinkRoutes {
    /// Where a link leads, for the app: its universal link (`url`) and route, or a web address to open in a browser
    /// (no route); a redeemed deferred link names its code too.
    struct Resolved: Encodable {
        let url: String
        var route: String? = nil
        var code: String? = nil
    }

    /// The token an app read from the pasteboard at its first launch.
    struct Redemption: Decodable {
        let token: String
    }

    /// A deferred link's token, as the landing page puts it on the pasteboard, and its lifetime in seconds.
    struct DeferredToken: Encodable {
        let pasteboard: String
        let expiresIn: Int64
    }
}
