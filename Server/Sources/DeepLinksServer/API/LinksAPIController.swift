import DeepLinksJSON
import DeepLinksQR
import Foundation
import HTTPTypes
import Hummingbird

/// The links API (`/v1/links`, ``endpoints``): one method per endpoint. Reads need a viewer's key, changes an
/// editor's: each group's role is its middleware (``KeyRoleMiddleware``), never a check in a handler. Imports and the
/// export are ``LinkTransfer``'s, which the console calls too.
struct LinksAPIController: Sendable {
    let store: LinkStore
    let policy: LinkPolicy
    let transfer: LinkTransfer
    let access: Access

    /// Every endpoint, at `/v1/links` (``register(on:)``).
    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.group(.viewer, .links, access: access)
            .get(use: list)
            .get("export", use: export)
            .get(":code", use: show)
            .get(":code/stats", use: stats)
            .get(":code/stats.html", use: statsPage)
            .get(":code/analytics", use: analytics)
            .get(":code/funnel", use: funnel)
            .get(":code/qr", use: qrCode)
        routes.group(.editor, .links, access: access)
            .post(use: create)
            .put(":code", use: update)
            .delete(":code", use: delete)
            .post("import", use: importFile)
        return routes
    }

    func register(on router: Router<AppRequestContext>) {
        router.addRoutes(endpoints, atPath: "/v1/links")
        let all = RouteCollection(context: AppRequestContext.self)
        all.group(.viewer, .links, access: access).get(use: allAnalytics)
        router.addRoutes(all, atPath: "/v1/analytics")
        let funnels = RouteCollection(context: AppRequestContext.self)
        funnels.group(.viewer, .links, access: access).get(use: allFunnel)
        router.addRoutes(funnels, atPath: "/v1/funnel")
        let health = RouteCollection(context: AppRequestContext.self)
        health.group(.viewer, .links, access: access).get { request, _ in
            try await LinkHealthReport.response(request: request, store: store)
        }
        router.addRoutes(health, atPath: "/v1/universal-links/health")
    }

    /// The link's funnel (``FunnelReport``): JSON, or CSV with `format=csv`.
    @Sendable func funnel(_ request: Request, context: AppRequestContext) async throws -> Response {
        let link = try await store.existing(context)
        return try await FunnelReport.response(code: link.code, request: request, store: store)
    }

    /// Every link's funnel, the reset journey's goal included.
    @Sendable func allFunnel(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await FunnelReport.response(code: nil, request: request, store: store)
    }

    /// Every link's analytics, with the top links (``AnalyticsReport``): JSON, or CSV with `format=csv`.
    @Sendable func allAnalytics(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await AnalyticsReport.response(code: nil, request: request, store: store)
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        var body = try await JSONBody.read(request, context: context).object
        if body["code"] == nil || body["code"] == .null {
            body["code"] = .string(SmartLinkValidator.generateCode())
        }
        let link = try validated(JSONBody(object: body).decode(SmartLink.self))
        guard try await store.insert(link) else { throw APIError(status: .conflict, code: .codeTaken) }
        return try document(link, status: .created, warn: true)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let limit = min(max(Int(request.uri.queryParameters["limit"].map(String.init) ?? "") ?? 50, 1), 200)
        let links = try await store.list(after: request.uri.queryParameters["after"].map(String.init), limit: limit)
        struct Page: Encodable {
            let links: [SmartLink]
            let next: String?
        }
        return try JSONResponse.make(.ok, Page(links: links, next: links.count == limit ? links.last?.code : nil))
    }

    /// Every link, as this server's CSV (it imports back unchanged).
    @Sendable func export(_ request: Request, context: AppRequestContext) async throws -> Response {
        return LinkTransfer.csvFile(try await transfer.exportCSV())
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        return try document(try await store.existing(context), status: .ok)
    }

    @Sendable func update(_ request: Request, context: AppRequestContext) async throws -> Response {
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

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard try await store.delete(try context.parameters.require("code")) else {
            throw APIError(status: .notFound, code: .noSuchLink)
        }
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    @Sendable func stats(_ request: Request, context: AppRequestContext) async throws -> Response {
        let link = try await store.existing(context)
        let rows = try await store.stats(link.code)
        let people = rows.filter { !$0.bot }.reduce(0) { $0 + $1.clicks }
        let bots = rows.filter(\.bot).reduce(0) { $0 + $1.clicks }
        let scans = rows.filter { !$0.bot && $0.source == ClickSource.qr.rawValue }.reduce(0) { $0 + $1.clicks }
        let answer = Stats(
            code: link.code,
            clicks: people,
            botFetches: bots,
            qrScans: scans,
            days: rows.map {
                .init(day: $0.day, platform: $0.platform, bot: $0.bot, source: $0.source, clicks: $0.clicks)
            },
            referrers: try await store.referrers(link.code).map { .init(host: $0.host, clicks: $0.clicks) },
            rules: try await store.ruleClicks(link).map { .init(rule: $0.rule, variant: $0.variant, clicks: $0.clicks) }
        )
        return try JSONResponse.make(.ok, answer)
    }

    /// A link's clicks: people's, preview fetches and QR scans in all, and per day, referrer and rule.
    struct Stats: Encodable {
        struct Day: Encodable {
            let day: String
            let platform: String
            let bot: Bool
            let source: String
            let clicks: Int64
        }
        struct Referrer: Encodable {
            let host: String
            let clicks: Int64
        }
        struct Rule: Encodable {
            let rule: String
            let variant: String?
            let clicks: Int64
        }
        let code: String
        let clicks: Int64
        let botFetches: Int64
        let qrScans: Int64
        let days: [Day]
        let referrers: [Referrer]
        let rules: [Rule]
    }

    /// The link's analytics (``AnalyticsReport``): JSON, or CSV with `format=csv`.
    @Sendable func analytics(_ request: Request, context: AppRequestContext) async throws -> Response {
        let link = try await store.existing(context)
        return try await AnalyticsReport.response(code: link.code, request: request, store: store)
    }

    /// The same counts as a page: a bar per day, people and preview fetchers apart.
    @Sendable func statsPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let link = try await store.existing(context)
        return SmartLinkPages.html(.ok, SmartLinkPages.stats(link, rows: try await store.stats(link.code)))
    }

    /// Another system's export as links (LinkImport): a report per row; `dryRun` changes nothing.
    @Sendable func importFile(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ fallback: T) throws -> T
        where T.RawValue == String {
            guard let text = query[Substring(name)] else { return fallback }
            guard let value = T(rawValue: String(text)) else {
                throw APIError.invalidParameter(name, T.allCases.map(\.rawValue).joined(separator: ", "))
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
        let report = try await transfer.imports.run {
            let body = try await request.body.collect(upTo: LinkTransfer.maxImportSize)
            // Refused as the console refuses it: a file in another encoding would import as U+FFFD.
            guard let text = String(validating: body.readableBytesView, as: UTF8.self) else {
                throw APIError.malformed("the file is not UTF-8 text: export it as UTF-8 CSV")
            }
            do {
                return try await transfer.importFile(
                    text,
                    format: format,
                    columns: columns,
                    conflict: conflict,
                    dryRun: dryRun
                )
            } catch let unreadable as LinkImportError {
                throw APIError.malformed("\(unreadable)")
            }
        }
        return try JSONResponse.make(report.taken.isEmpty ? .ok : .conflict, report.answer(dryRun: dryRun))
    }

    /// The short link as a QR code, tagged `?qr=1` so that its scans are counted apart (source "qr").
    @Sendable func qrCode(_ request: Request, context: AppRequestContext) async throws -> Response {
        let link = try await store.existing(context)
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

    /// `format=svg|png` (svg), `size` in pixels (64 to 4,096; 512), `margin` in modules (0 to 16; 4), `level`
    /// L, M, Q or H (M).
    struct QROptions {
        var png = false
        var size = 512
        var margin = 4
        var level = QRCode.ErrorCorrection.medium

        init(_ query: Hummingbird.Parameters) throws {
            func refuse(_ name: String, _ wanted: String) -> APIError { APIError.invalidParameter(name, wanted) }
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
}

/// The API's and the public routes' look-up of a route's link.
extension LinkStore {
    /// The link the route's `:code` names; 404 `no_such_link` when there is none.
    func existing(_ context: AppRequestContext) async throws -> SmartLink {
        let code = try context.parameters.require("code")
        guard SmartLinkValidator.isCode(code), let link = try await find(code) else {
            throw APIError(status: .notFound, code: .noSuchLink)
        }
        return link
    }
}

extension AnalyticsReport {
    /// The request's query items by name (the first of each).
    static func parameters(_ request: Request) -> [String: String] {
        var parameters: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where parameters[String(name)] == nil {
            parameters[String(name)] = String(value)
        }
        return parameters
    }

    /// The report the request's query asks for (``Query``), as JSON or, with `format=csv`, as a CSV file.
    static func response(code: String?, request: Request, store: LinkStore) async throws -> Response {
        let parameters = AnalyticsReport.parameters(request)
        let format = parameters["format"] ?? "json"
        guard format == "json" || format == "csv" else { throw APIError.invalidParameter("format", "is json or csv") }
        let query = try Query(parameters, today: ClickCounter.day(store.clock.milliseconds()))
        let report = try await make(code: code, query: query, database: store.database)
        guard format == "csv" else { return try JSONResponse.make(.ok, report) }
        return LinkTransfer.csvFile(report.csv, name: report.fileName)
    }
}

extension AnalyticsReport {
    /// The days `from` to `to` a report of `what` (the funnel, the health report) covers, read from the request's
    /// query (the last 30 by default), and whether it asks for CSV (`format=csv`): any other parameter is refused,
    /// by name.
    static func range(_ request: Request, of what: String, today: String) throws -> (query: Query, csv: Bool) {
        let parameters = parameters(request)
        let format = parameters["format"] ?? "json"
        guard format == "json" || format == "csv" else { throw APIError.invalidParameter("format", "is json or csv") }
        for name in parameters.keys where !["from", "to", "format"].contains(name) {
            throw APIError.invalidParameter(name, "is not a parameter of \(what) (from, to, format)")
        }
        return (try Query(parameters, today: today), format == "csv")
    }
}

extension FunnelReport {
    /// The funnel over the days `from` to `to` the query names (the last 30 by default), as JSON or CSV.
    static func response(code: String?, request: Request, store: LinkStore) async throws -> Response {
        let today = ClickCounter.day(store.clock.milliseconds())
        let (query, csv) = try AnalyticsReport.range(request, of: "the funnel", today: today)
        let report = try await make(code: code, from: query.from, to: query.to, database: store.database)
        guard csv else { return try JSONResponse.make(.ok, report) }
        return LinkTransfer.csvFile(report.csv, name: report.fileName)
    }
}
