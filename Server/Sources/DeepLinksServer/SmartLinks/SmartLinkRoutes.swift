import AppSiteAssociation
import DeepLinks
import DeepLinksJSON
import DeepLinksQR
import Foundation
import HTTPTypes
import Hummingbird

/// The links API (`/v1/links`, behind a key: reads need a viewer's, changes an editor's), deferred links, and the routes of `GET /{code}` (resolution in
/// SmartLinkResolution.swift, Firebase Dynamic Links long links in FirebaseLongLinks.swift).
struct SmartLinkRoutes: Sendable {
    let store: LinkStore
    let access: Access
    let clicks: ClickCounter
    let policy: LinkPolicy
    /// A one-segment path that is no code may be a path of the app's (`/search`).
    let fallback: AppPathFallback
    let deferred: DeferredLinks
    let proxies: TrustedProxies
    let clock: WallClock
    /// Per client address, for the two public deferred-link calls.
    let deferredLimiter = RateLimiter(capacity: 20, perMinute: 30)
    /// Imports reading and writing at once, on this server (API and console alike): each holds a file of up to
    /// ``maxImportSize`` and its links; one more answers 503 with `Retry-After`.
    let imports = InFlightGate(limit: 2)
    /// Per client network, codes that were no link (see ``SmartLinkSettings/unknownCodeBurst``).
    let unknownCodes: RateLimiter

    func register(on router: Router<AppRequestContext>) {
        router.post("/v1/links") { request, context -> Response in
            try await admit(.editor, request)
            var body = try await JSONBody.read(request, context: context).object
            if body["code"] == nil || body["code"] == .null {
                body["code"] = .string(SmartLinkValidator.generateCode())
            }
            let link = try validated(JSONBody(object: body).decode(SmartLink.self))
            guard try await store.insert(link) else { throw APIError(status: .conflict, code: .codeTaken) }
            return try document(link, status: .created, warn: true)
        }
        router.get("/v1/links") { request, _ -> Response in
            try await admit(.viewer, request)
            let limit = min(max(Int(request.uri.queryParameters["limit"].map(String.init) ?? "") ?? 50, 1), 200)
            let links = try await store.list(after: request.uri.queryParameters["after"].map(String.init), limit: limit)
            struct Page: Encodable {
                let links: [SmartLink]
                let next: String?
            }
            return try JSONResponse.make(.ok, Page(links: links, next: links.count == limit ? links.last?.code : nil))
        }
        // Every link, as this server's CSV (it imports back unchanged).
        router.get("/v1/links/export") { request, _ -> Response in
            try await admit(.viewer, request)
            return Self.csvFile(try await exportCSV())
        }
        router.get("/v1/links/:code") { request, context -> Response in
            try await admit(.viewer, request)
            return try document(try await existing(context), status: .ok)
        }
        router.put("/v1/links/:code") { request, context -> Response in
            try await admit(.editor, request)
            let code = try context.parameters.require("code")
            var body = try await JSONBody.read(request, context: context).object
            if let given = body["code"], given != .string(code) {
                throw APIError.malformed("'code' cannot change: delete and create instead")
            }
            body["code"] = .string(code)
            let link = try validated(JSONBody(object: body).decode(SmartLink.self))
            guard try await store.update(link) else { throw APIError(status: .notFound, code: .noSuchLink) }
            return try document(link, status: .ok, warn: true)
        }
        router.delete("/v1/links/:code") { request, context -> Response in
            try await admit(.editor, request)
            guard try await store.delete(try context.parameters.require("code")) else {
                throw APIError(status: .notFound, code: .noSuchLink)
            }
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
        router.get("/v1/links/:code/stats") { request, context -> Response in
            try await admit(.viewer, request)
            let link = try await existing(context)
            let rows = try await store.stats(link.code)
            let days = rows.map { row -> JSONValue in
                .object([
                    "day": .string(row.day), "platform": .string(row.platform), "bot": .bool(row.bot),
                    "source": .string(row.source), "clicks": .number(Double(row.clicks)),
                ])
            }
            let people = rows.filter { !$0.bot }.reduce(0) { $0 + $1.clicks }
            let bots = rows.filter(\.bot).reduce(0) { $0 + $1.clicks }
            let scans = rows.filter { !$0.bot && $0.source == ClickSource.qr.rawValue }.reduce(0) { $0 + $1.clicks }
            let referrers = try await store.referrers(link.code).map { site -> JSONValue in
                .object(["host": .string(site.host), "clicks": .number(Double(site.clicks))])
            }
            let rules = try await store.ruleClicks(link).map { row -> JSONValue in
                var item: [String: JSONValue] = ["rule": .string(row.rule), "clicks": .number(Double(row.clicks))]
                if let variant = row.variant { item["variant"] = .string(variant) }
                return .object(item)
            }
            return JSONResponse.make(
                .ok,
                [
                    "code": .string(link.code), "clicks": .number(Double(people)), "botFetches": .number(Double(bots)),
                    "qrScans": .number(Double(scans)), "days": .array(days), "referrers": .array(referrers),
                    "rules": .array(rules),
                ]
            )
        }
        // The same counts as a page: a bar per day, people and preview fetchers apart.
        router.get("/v1/links/:code/stats.html") { request, context -> Response in
            try await admit(.viewer, request)
            let link = try await existing(context)
            return SmartLinkPages.html(.ok, SmartLinkPages.stats(link, rows: try await store.stats(link.code)))
        }
        // Another system's export as links (LinkImport): a report per row; `dryRun` changes nothing.
        router.post("/v1/links/import") { request, context -> Response in
            try await admit(.editor, request)
            let query = request.uri.queryParameters
            func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ fallback: T) throws -> T
            where T.RawValue == String {
                guard let text = query[Substring(name)] else { return fallback }
                guard let value = T(rawValue: String(text)) else {
                    throw APIError(
                        status: .badRequest,
                        code: .invalidParameter,
                        fields: [
                            "parameter": .string(name),
                            "reason": .string(T.allCases.map(\.rawValue).joined(separator: ", ")),
                        ]
                    )
                }
                return value
            }
            let format: LinkImport.Format = try choice("format", .auto)
            let conflict: LinkImport.Conflict = try choice("onConflict", .skip)
            let dryRun = query["dryRun"] == "true" || query["dryRun"] == "1"
            // `column.code=slug`: the column a field is read from.
            var columns: [String: String] = [:]
            for (name, value) in query where name.hasPrefix("column.") {
                columns[String(name.dropFirst("column.".count))] = String(value)
            }
            let report = try await imports.run {
                let body = try await request.body.collect(upTo: Self.maxImportSize)
                // Refused as the console refuses it: a file in another encoding would import as U+FFFD.
                guard let text = String(validating: body.readableBytesView, as: UTF8.self) else {
                    throw APIError.malformed("the file is not UTF-8 text: export it as UTF-8 CSV")
                }
                let read: (format: LinkImport.Format, rows: [LinkImport.Row])
                do {
                    read = try LinkImport(policy: policy).rows(text, format: format, columns: columns)
                } catch {
                    throw APIError.malformed("\(error)")
                }
                return try await importing(read, conflict: conflict, dryRun: dryRun)
            }
            return JSONResponse.make(report.taken.isEmpty ? .ok : .conflict, report.json(dryRun: dryRun))
        }
        // The short link as a QR code, tagged `?qr=1` so that its scans are counted apart (source "qr").
        router.get("/v1/links/:code/qr") { request, context -> Response in
            try await admit(.viewer, request)
            let link = try await existing(context)
            let options = try QROptions(request.uri.queryParameters)
            let code: QRCode
            do {
                code = try QRCode(text: policy.qrURL(link.code), level: options.level)
            } catch {
                throw APIError(status: .unprocessableContent, code: .tooLong, fields: ["reason": .string("\(error)")])
            }
            let image = QRImage(code: code, margin: options.margin)
            let headers: HTTPFields = [
                .contentType: options.png ? "image/png" : "image/svg+xml",
                .cacheControl: "no-store",
                .contentDisposition: "inline; filename=\"\(link.code).\(options.png ? "png" : "svg")\"",
            ]
            let bytes = options.png ? image.png(pixels: options.size) : Array(image.svg(pixels: options.size).utf8)
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        // Public: the app, opened by a short link, asks where it leads (LinkCoordinator's resolver).
        // Through the cache and the made-up-code throttle, as `/{code}`: it is as public.
        router.get("/v1/links/:code/resolve") { request, context -> Response in
            let link: SmartLink
            do {
                guard let found = try await lookup(try context.parameters.require("code"), request, context) else {
                    throw APIError(status: .notFound, code: .noSuchLink)
                }
                link = found
            } catch let refused as TooManyUnknownCodes {
                try? await Task.sleep(for: Self.refusalDelay)
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
                    visitor(platform: platform, agent: agent, request: request, query: query, peer: context.peer)
                }
                switch ruled {
                case .decided(let decision, let hit, let decided):
                    // A rule's web address, or the store: for the app to open in a browser.
                    if let hit, hit.destination.route == nil, case .redirect(let url) = decision {
                        return JSONResponse.make(.ok, ["url": .string(url)])
                    }
                    shown = decided
                case .ended: throw APIError(status: .gone, code: .linkExpired)
                case .nothing: throw APIError(status: .notFound, code: .noSuchLink)
                }
            }
            // A web link has no route: its url is the web address, for the app to open in a browser.
            var answer: [String: JSONValue] = ["url": .string(policy.appURL(shown))]
            if let route = shown.route { answer["route"] = .string(route) }
            return JSONResponse.make(.ok, answer)
        }
        // Deferred deep links (DeferredLinks): the landing page asks for a token on the way to the App Store ...
        router.post("/v1/links/:code/deferred") { request, context -> Response in
            try admitDeferred(request, context)
            let link = try await existing(context)
            if let expiry = link.expiresAt, clock.milliseconds() >= expiry {
                throw APIError(status: .gone, code: .linkExpired)
            }
            let token = try await deferred.issue(code: link.code)
            let pasteboard = "\(policy.shortURL(link.code))#deferred=\(token)"
            return JSONResponse.make(
                .created,
                [
                    "pasteboard": .string(pasteboard),
                    "expiresIn": .number(Double(DeferredLinks.lifetimeMilliseconds / 1000)),
                ]
            )
        }
        // ... and the app, at its first launch, redeems it once for the link's route.
        router.post("/v1/deferred/redeem") { request, context -> Response in
            try admitDeferred(request, context)
            let token = try await JSONBody.read(request, context: context).string("token")
            guard DeferredLinks.isWellFormed(token) else {
                throw APIError.malformed("'token' is 22 base64url characters")
            }
            guard let code = try await deferred.redeem(token), let link = try await store.find(code) else {
                throw APIError(status: .gone, code: .deferredLinkGone)
            }
            var answer: [String: JSONValue] = ["code": .string(link.code), "url": .string(policy.appURL(link))]
            if let route = link.route { answer["route"] = .string(route) }
            return JSONResponse.make(.ok, answer)
        }
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

    // MARK: API helpers

    private func admit(_ role: OperatorRole, _ request: Request) async throws {
        try await access.require(role, request, api: .links)
    }

    private func admitDeferred(_ request: Request, _ context: AppRequestContext) throws {
        let address = proxies.clientAddress(peer: context.peer, headers: request.headers)
        if let wait = deferredLimiter.take(address, now: clock.milliseconds()) {
            throw APIError.tooManyRequests(retryAfter: wait)
        }
    }

    /// The largest export `POST /v1/links/import` reads: about 40,000 rows of a shortener's CSV.
    static let maxImportSize = 8 << 20

    /// What became of each row of an import.
    struct ImportReport {
        var entries: [(line: Int, code: String?, status: String, problems: [String])] = []
        /// Codes already links, when the import was to fail on them (nothing was written).
        var taken: [String] = []
        /// The format the rows were read as (told from the header when the request said `auto`).
        var format: LinkImport.Format?

        /// How many rows ended with each status.
        var counts: [String: Int] { entries.reduce(into: [:]) { $0[$1.status, default: 0] += 1 } }

        func json(dryRun: Bool) -> [String: JSONValue] {
            let counts = counts
            var body: [String: JSONValue] = ["dryRun": .bool(dryRun)]
            if let format { body["format"] = .string(format.rawValue) }
            // On a dry run, a row that would be imported is `valid`.
            for status in ["imported", "replaced", "skipped", "refused"] + (dryRun ? ["valid"] : []) {
                body[status] = .number(Double(counts[status] ?? 0))
            }
            if !taken.isEmpty {
                body["error"] = .string(APIError.Code.codeTaken.rawValue)
                body["taken"] = .array(taken.map { .string($0) })
            }
            body["rows"] = .array(
                entries.map { entry in
                    var row: [String: JSONValue] = [
                        "line": .number(Double(entry.line)), "status": .string(entry.status),
                    ]
                    if let code = entry.code { row["code"] = .string(code) }
                    if !entry.problems.isEmpty { row["problems"] = .array(entry.problems.map { .string($0) }) }
                    return .object(row)
                }
            )
            return body
        }
    }

    /// Writes the valid rows in transactions of 500 (none on a dry run), after refusing a code that repeats an
    /// earlier valid row's (the first row of a code that imports wins; a refused or skipped row claims nothing);
    /// with `fail`, writes nothing when any code is taken.
    func importing(
        _ read: (format: LinkImport.Format, rows: [LinkImport.Row]),
        conflict: LinkImport.Conflict,
        dryRun: Bool
    ) async throws -> ImportReport {
        var report = ImportReport()
        report.format = read.format
        var seen: [String: Int] = [:]
        var valid: [(index: Int, link: SmartLink)] = []
        for row in read.rows {
            if let link = row.link, let first = seen[link.code] {
                report.entries.append((row.line, link.code, "refused", ["the code repeats line \(first)"]))
                continue
            }
            if let reason = row.skipped {
                report.entries.append((row.line, row.code, "skipped", [reason]))
                continue
            }
            guard let link = row.link else {
                report.entries.append((row.line, row.code, "refused", row.problems))
                continue
            }
            seen[link.code] = row.line
            valid.append((report.entries.count, link))
            report.entries.append((row.line, link.code, dryRun ? "valid" : "imported", []))
        }
        let taken = try await store.existing(valid.map(\.link.code))
        if conflict == .fail, !taken.isEmpty {
            report.taken = taken.sorted()
            for (index, link) in valid { report.entries[index].status = taken.contains(link.code) ? "taken" : "valid" }
            return report
        }
        if dryRun {
            for (index, link) in valid where taken.contains(link.code) {
                report.entries[index].status = conflict == .replace ? "replaced" : "skipped"
            }
            return report
        }
        for start in stride(from: 0, to: valid.count, by: 500) {
            let batch = valid[start..<min(start + 500, valid.count)]
            let outcomes = try await store.importBatch(batch.map(\.link), replacing: conflict == .replace)
            for ((index, _), outcome) in zip(batch, outcomes) { report.entries[index].status = outcome.rawValue }
        }
        return report
    }

    /// Every link, in code order, as ``LinkExport`` writes it (read from the database a thousand at a time).
    func exportCSV() async throws -> String {
        var links: [SmartLink] = []
        while true {
            let page = try await store.list(after: links.last?.code, limit: 1_000)
            links += page
            if page.count < 1_000 { return LinkExport.csv(links) }
        }
    }

    /// A CSV file to download, named for the server's link domain.
    static func csvFile(_ text: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8", .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"links.csv\"",
            ],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }

    /// The query item a QR code's link carries: its scans are counted under the source "qr".
    static let qrTag = "qr=1"

    /// `format=svg|png` (svg), `size` in pixels (64 to 4,096; 512), `margin` in modules (0 to 16; 4), `level`
    /// L, M, Q or H (M).
    struct QROptions {
        var png = false
        var size = 512
        var margin = 4
        var level = QRCode.ErrorCorrection.medium

        init(_ query: Hummingbird.Parameters) throws {
            func refuse(_ name: String, _ wanted: String) -> APIError {
                APIError(
                    status: .badRequest,
                    code: .invalidParameter,
                    fields: ["parameter": .string(name), "reason": .string(wanted)]
                )
            }
            if let format = query["format"] {
                guard format == "svg" || format == "png" else { throw refuse("format", "svg or png") }
                png = format == "png"
            }
            if let text = query["size"] {
                guard let value = Int(text), (64...4096).contains(value) else {
                    throw refuse("size", "a number of pixels from 64 to 4096")
                }
                size = value
            }
            if let text = query["margin"] {
                guard let value = Int(text), (0...16).contains(value) else {
                    throw refuse("margin", "a number of modules from 0 to 16")
                }
                margin = value
            }
            if let text = query["level"] {
                guard let value = QRCode.ErrorCorrection(rawValue: String(text)) else {
                    throw refuse("level", "L, M, Q or H")
                }
                level = value
            }
        }
    }

    private func existing(_ context: AppRequestContext) async throws -> SmartLink {
        let code = try context.parameters.require("code")
        guard SmartLinkValidator.isCode(code), let link = try await store.find(code) else {
            throw APIError(status: .notFound, code: .noSuchLink)
        }
        return link
    }

    private func validated(_ link: SmartLink) throws -> SmartLink {
        let problems = policy.validator.problems(link)
        guard problems.isEmpty else {
            throw APIError(
                status: .unprocessableContent,
                code: .invalidLink,
                fields: ["problems": .array(problems.map { .string($0) })]
            )
        }
        return link
    }

    /// A link as the API shows it: its stored document and its short URL; after a create or an update, the
    /// warnings (``LinkTrackingProtection``) when there are any.
    private func document(_ link: SmartLink, status: HTTPResponse.Status, warn: Bool = false) throws -> Response {
        struct Document: Encodable {
            let link: SmartLink
            let url: String
            let warnings: [String]
            enum Key: CodingKey { case url, warnings }
            func encode(to encoder: any Encoder) throws {
                try link.encode(to: encoder)
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(url, forKey: .url)
                if !warnings.isEmpty { try container.encode(warnings, forKey: .warnings) }
            }
        }
        let warnings = warn ? LinkTrackingProtection.warnings(link) + policy.warnings(link) : []
        return try JSONResponse.make(status, Document(link: link, url: policy.shortURL(link.code), warnings: warnings))
    }
}
