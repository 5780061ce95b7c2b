import AppSiteAssociation
import DeepLinks
import Foundation
import HTTPTypes
import Hummingbird

/// The links API (`/v1/links`, behind the admin key) and the resolution of `GET /{code}`.
struct SmartLinkRoutes: Sendable {
    let store: LinkStore
    let clicks: ClickCounter
    let policy: LinkPolicy
    let deferred: DeferredLinks
    let proxies: TrustedProxies
    let clock: WallClock
    /// Per client address, for the two public deferred-link calls.
    let deferredLimiter = RateLimiter(capacity: 20, perMinute: 30)

    func register(on router: Router<AppRequestContext>) {
        router.post("/v1/links") { request, context -> Response in
            try admit(request)
            var body = try await JSONBody.read(request, context: context).object
            if body["code"] == nil || body["code"] == .null { body["code"] = .string(SmartLinkValidator.generateCode()) }
            let link = try validated(JSONBody(object: body).decode(SmartLink.self))
            guard try await store.insert(link) else { throw APIError(status: .conflict, code: "code_taken") }
            return try document(link, status: .created)
        }
        router.get("/v1/links") { request, _ -> Response in
            try admit(request)
            let limit = min(max(Int(request.uri.queryParameters["limit"].map(String.init) ?? "") ?? 50, 1), 200)
            let links = try await store.list(after: request.uri.queryParameters["after"].map(String.init), limit: limit)
            let items = try links.map { try JSONValue.parse(Data(LinkStore.encode($0).utf8)) }
            var body: [String: JSONValue] = ["links": .array(items)]
            if links.count == limit, let last = links.last { body["next"] = .string(last.code) }
            return JSONResponse.make(.ok, body)
        }
        router.get("/v1/links/:code") { request, context -> Response in
            try admit(request)
            return try document(try await existing(context), status: .ok)
        }
        router.put("/v1/links/:code") { request, context -> Response in
            try admit(request)
            let code = try context.parameters.require("code")
            var body = try await JSONBody.read(request, context: context).object
            if let given = body["code"], given != .string(code) { throw APIError.malformed("'code' cannot change: delete and create instead") }
            body["code"] = .string(code)
            let link = try validated(JSONBody(object: body).decode(SmartLink.self))
            guard try await store.update(link) else { throw APIError(status: .notFound, code: "no_such_link") }
            return try document(link, status: .ok)
        }
        router.delete("/v1/links/:code") { request, context -> Response in
            try admit(request)
            guard try await store.delete(try context.parameters.require("code")) else { throw APIError(status: .notFound, code: "no_such_link") }
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
        router.get("/v1/links/:code/stats") { request, context -> Response in
            try admit(request)
            let link = try await existing(context)
            let rows = try await store.stats(link.code)
            let days = rows.map { row -> JSONValue in
                .object(["day": .string(row.day), "platform": .string(row.platform), "bot": .bool(row.bot), "clicks": .number(Double(row.clicks))])
            }
            let people = rows.filter { !$0.bot }.reduce(0) { $0 + $1.clicks }
            let bots = rows.filter(\.bot).reduce(0) { $0 + $1.clicks }
            return JSONResponse.make(.ok, ["code": .string(link.code), "clicks": .number(Double(people)), "botFetches": .number(Double(bots)), "days": .array(days)])
        }
        // The same counts as a page: a bar per day, people and preview fetchers apart.
        router.get("/v1/links/:code/stats.html") { request, context -> Response in
            try admit(request)
            let link = try await existing(context)
            return SmartLinkPages.html(.ok, SmartLinkPages.stats(link, rows: try await store.stats(link.code)))
        }
        // Public: the app, opened by a short link, asks where it leads (LinkCoordinator's resolver).
        router.get("/v1/links/:code/resolve") { _, context -> Response in
            let link = try await existing(context)
            if let expiry = link.expiresAt, clock.milliseconds() >= expiry { throw APIError(status: .gone, code: "link_expired") }
            return JSONResponse.make(.ok, ["route": .string(link.route), "url": .string(policy.appURL(link))])
        }
        // Deferred deep links (DeferredLinks): the landing page asks for a token on the way to the App Store ...
        router.post("/v1/links/:code/deferred") { request, context -> Response in
            try admitDeferred(request, context)
            let link = try await existing(context)
            if let expiry = link.expiresAt, clock.milliseconds() >= expiry { throw APIError(status: .gone, code: "link_expired") }
            let token = try await deferred.issue(code: link.code)
            let pasteboard = "\(policy.shortURL(link.code))#deferred=\(token)"
            return JSONResponse.make(.created, ["pasteboard": .string(pasteboard), "expiresIn": .number(Double(DeferredLinks.lifetimeMilliseconds / 1000))])
        }
        // ... and the app, at its first launch, redeems it once for the link's route.
        router.post("/v1/deferred/redeem") { request, context -> Response in
            try admitDeferred(request, context)
            let token = try await JSONBody.read(request, context: context).string("token")
            guard DeferredLinks.isWellFormed(token) else { throw APIError.malformed("'token' is 22 base64url characters") }
            guard let code = try await deferred.redeem(token), let link = try await store.find(code) else {
                throw APIError(status: .gone, code: "deferred_link_gone")
            }
            return JSONResponse.make(.ok, ["code": .string(link.code), "route": .string(link.route), "url": .string(policy.appURL(link))])
        }
        // Preview fetchers (Twitterbot honours robots.txt) may read links; nothing else is for crawlers.
        let robots = "User-agent: *\nDisallow: /v1/\n" + (policy.primary.passwordReset.map { "Disallow: \($0.path)\n" } ?? "") + "Disallow: /assets/\n"
        router.get("/robots.txt") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "public, max-age=86400"],
                body: .init(byteBuffer: ByteBuffer(string: robots))
            )
        }
        // Browsers ask for it on every page; no icon, and no 404 in their console.
        router.get("/favicon.ico") { _, _ -> Response in
            Response(status: .noContent, headers: [.cacheControl: "public, max-age=86400"])
        }
        for method in [HTTPRequest.Method.get, .head] {
            router.on("/:code", method: method) { request, context -> Response in
                try await resolve(request, context: context, counting: method == .get)
            }
            // Firebase Dynamic Links' long links (`/?link=...&ibi=...`), so migrated links keep working.
            // Without a query: the start page, what this server is configured for and where to look.
            router.on("/", method: method) { request, _ -> Response in
                guard let query = request.uri.query, !query.isEmpty else {
                    return SmartLinkPages.html(.ok, SmartLinkPages.start(policy))
                }
                return try firebaseLongLink(request)
            }
        }
    }

    // MARK: Resolution

    func resolve(_ request: Request, context: AppRequestContext, counting: Bool) async throws -> Response {
        let code = try context.parameters.require("code")
        guard SmartLinkValidator.isCode(code), let link = try await store.resolve(code) else {
            return SmartLinkPages.html(.notFound, SmartLinkPages.notFound)
        }
        var platform = ClientPlatform(userAgent: request.headers[.userAgent], platformHint: request.headers[Self.platformHint])
        var query = request.uri.query.flatMap { $0.isEmpty ? nil : $0 }
        if query != nil {
            if request.uri.queryParameters["d"] == "1" {
                return SmartLinkPages.html(.ok, SmartLinkPages.decisions(link, policy: policy))
            }
            // The touch check's answer (SmartLinkPages.probe), for a Mac agent only.
            if platform == .macOrIPad, let answer = request.uri.queryParameters["_platform"] {
                platform = answer == "ipad" ? .iPad : .desktop
            }
        }
        let onLandingDomain = policy.settings.landingDomain != nil && request.requestedHost == policy.settings.landingDomain
        // A click is counted where it lands first (a visit to the landing domain came from the link domain),
        // once the platform is known.
        if counting, !onLandingDomain, platform != .macOrIPad, !Self.optsOut(request) {
            clicks.count(code: code, platform: platform, at: clock.milliseconds())
        }
        // The probe's answer is for this server, not for the destination.
        let hop = query
        query = query.flatMap(Self.removingPlatformAnswer)
        if let expiry = link.expiresAt, clock.milliseconds() >= expiry {
            guard let expired = link.expiredURL else { return SmartLinkPages.html(.gone, SmartLinkPages.expired) }
            return Self.redirect(expired)
        }
        let passed = link.passQuery ? query : nil
        switch policy.decision(link, platform: platform) {
        case .preview:
            return SmartLinkPages.html(.ok, SmartLinkPages.openGraph(link, url: policy.shortURL(code), appName: policy.app(for: link).displayName))
        case .landing(let web):
            // On the link domain, send iOS to the landing domain: from there, "Open in the app" is a
            // cross-domain tap, which iOS hands to the app.
            if let landing = policy.settings.landingDomain, !onLandingDomain {
                return Self.redirect(Self.appending(hop, to: "https://\(landing)/\(code)"))
            }
            let page = SmartLinkPages.landing(
                link, policy: policy, web: web.map { Self.appending(passed, to: $0) }, inAppBrowser: InAppBrowser(userAgent: request.headers[.userAgent])
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

    static let secGPC = HTTPField.Name("Sec-GPC")!
    static let platformHint = HTTPField.Name("Sec-CH-UA-Platform")!
    static let doNotTrack = HTTPField.Name("DNT")!

    /// `query` without the touch check's `_platform` item; nil when nothing else is left.
    static func removingPlatformAnswer(_ query: String) -> String? {
        guard query.contains("_platform=") else { return query }
        let kept = query.split(separator: "&").filter { !$0.hasPrefix("_platform=") }
        return kept.isEmpty ? nil : kept.joined(separator: "&")
    }

    /// A Firebase Dynamic Links long link as a link of its own: `link` is the app destination (on one of
    /// the apps' domains), `ifl`, `ipfl`, `afl` and `ofl` the iOS, iPad, Android and other fallbacks, `st`,
    /// `sd` and `si` the preview; `ibi` (or else `apn`) picks the app among the configured ones, and `isi`
    /// and `apn` must then be that app's. Destinations pass the same allowlist as stored links; nothing is
    /// counted (there is no code to count under).
    func firebaseLongLink(_ request: Request) throws -> Response {
        let query = request.uri.queryParameters
        // Hummingbird percent-decodes each value once (and leaves `+` alone).
        func value(_ name: String) -> String? { query[Substring(name)].map(String.init) }
        guard let target = value("link"), let components = URLComponents(string: target), let host = components.host?.lowercased(),
              policy.apps.contains(where: { $0.domains.contains(host) })
        else {
            return SmartLinkPages.html(.notFound, SmartLinkPages.notFound)
        }
        var problems: [String] = []
        let bundle = value("ibi")
        let package = value("apn")
        let app = bundle.map { id in policy.apps.first { $0.bundleID == id } }
            ?? package.flatMap { id in policy.apps.first { $0.android?.packageName == id } }
            ?? policy.apps.first { $0.domains.contains(host) }
        if app == nil { problems.append("ibi: not the bundle ID of a configured app") }
        if let store = value("isi"), store != app?.appStoreID { problems.append("isi: not the App Store ID of the app") }
        if let package, package != app?.android?.packageName { problems.append("apn: not the Android package of the app") }
        if let app, !app.domains.contains(host) { problems.append("link: \(host) is not a domain of \(app.bundleID)") }
        var link = SmartLink(code: "fdl", route: components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? ""))
        if let app, app.bundleID != policy.primary.bundleID { link.app = app.bundleID }
        link.destinations = .init(ios: value("ifl"), ipad: value("ipfl"), android: value("afl"), desktop: value("ofl"), fallback: target)
        link.preview = .init(title: value("st"), description: value("sd"), image: value("si"))
        link.passQuery = false
        problems += policy.validator.problems(link)
        guard problems.isEmpty else {
            return SmartLinkPages.html(.badRequest, SmartLinkPages.page(title: "Invalid link", body: "<h1>This link is not valid</h1><p>\(HTML.escape(problems.joined(separator: "; ")))</p>"))
        }
        let platform = ClientPlatform(userAgent: request.headers[.userAgent], platformHint: request.headers[Self.platformHint])
        switch policy.decision(link, platform: platform) {
        case .preview: return SmartLinkPages.html(.ok, SmartLinkPages.openGraph(link, url: target, appName: policy.app(for: link).displayName))
        case .landing(let web):
            let page = SmartLinkPages.landing(
                link, policy: policy, web: web, appArgument: target, inAppBrowser: InAppBrowser(userAgent: request.headers[.userAgent]), stored: false
            )
            return SmartLinkPages.html(.ok, page)
        case .redirect(let url): return Self.redirect(url)
        case .probe:
            // No code to come back to: a Mac agent without a hint gets the desktop fallback.
            return Self.redirect(link.destinations.desktop ?? target)
        }
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// `url` with the click's query added (utm_* and the rest); an intent:// URL is left alone.
    static func appending(_ query: String?, to url: String) -> String {
        guard let query, !url.hasPrefix("intent:") else { return url }
        let hash = url.firstIndex(of: "#")
        let head = hash.map { String(url[..<$0]) } ?? url
        let tail = hash.map { String(url[$0...]) } ?? ""
        return head + (head.contains("?") ? "&" : "?") + query + tail
    }

    // MARK: API helpers

    private func admit(_ request: Request) throws {
        guard policy.settings.adminKeyDigest != nil else {
            throw APIError(status: .serviceUnavailable, code: "links_api_disabled", fields: ["reason": .string("set DEEPLINKS_ADMIN_KEY to enable the links API")])
        }
        guard let key = AccountRoutes.bearer(request), policy.settings.isAdmin(key) else { throw APIError.unauthorized }
    }

    private func admitDeferred(_ request: Request, _ context: AppRequestContext) throws {
        let address = proxies.clientAddress(peer: context.peer, headers: request.headers)
        if let wait = deferredLimiter.take(address, now: clock.milliseconds()) { throw APIError.tooManyRequests(retryAfter: wait) }
    }

    private func existing(_ context: AppRequestContext) async throws -> SmartLink {
        let code = try context.parameters.require("code")
        guard SmartLinkValidator.isCode(code), let link = try await store.find(code) else {
            throw APIError(status: .notFound, code: "no_such_link")
        }
        return link
    }

    private func validated(_ link: SmartLink) throws -> SmartLink {
        let problems = policy.validator.problems(link)
        guard problems.isEmpty else {
            throw APIError(status: .unprocessableContent, code: "invalid_link", fields: ["problems": .array(problems.map { .string($0) })])
        }
        return link
    }

    /// A link as the API shows it: its stored document and its short URL.
    private func document(_ link: SmartLink, status: HTTPResponse.Status) throws -> Response {
        guard case .object(var body) = try JSONValue.parse(Data(LinkStore.encode(link).utf8)) else { throw APIError.malformed("") }
        body["url"] = .string(policy.shortURL(link.code))
        return JSONResponse.make(status, body)
    }
}
