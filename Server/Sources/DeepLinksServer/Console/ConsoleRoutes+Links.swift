import Crypto
import DeepLinks
import DeepLinksJSON
import DeepLinksQR
import DeepLinksSupport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The links: list, create, edit, delete, stats, QR codes, import and export.
extension ConsoleRoutes {
    func registerLinks(on router: Router<AppRequestContext>) {
        group(router, .viewer)
            .get("/console/links", use: linksPage)
            .get("/console/export.csv", use: exportLinks)
            .get("/console/links/:code", use: linkPage)
            .get("/console/links/:code/qr.svg", use: qrSVG)
            .get("/console/links/:code/qr.png", use: qrPNG)
            .get("/console/analytics", use: analyticsPage)
            .get("/console/analytics.csv", use: analyticsCSV)
            .get("/console/links/:code/analytics", use: analyticsPage)
            .get("/console/links/:code/analytics.csv", use: analyticsCSV)
            .get("/console/funnel", use: funnelPage)
            .get("/console/funnel.csv", use: funnelPage)
            .get("/console/links/:code/funnel", use: funnelPage)
            .get("/console/links/:code/funnel.csv", use: funnelPage)
            .get("/console/health", use: healthPage)
            .get("/console/health.csv", use: healthPage)
        group(router, .editor)
            .get("/console/new", use: newLinkForm)
            .post("/console/new", use: createLink)
            .get("/console/import", use: importForm)
            .post("/console/import", use: importLinks)
            .get("/console/links/:code/edit", use: editForm)
            .post("/console/links/:code/edit", use: updateLink)
            .get("/console/links/:code/delete", use: deleteForm)
            .post("/console/links/:code/delete", use: deleteLink)
    }

    @Sendable func linksPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.viewer()
        let query = request.uri.queryParameters
        let text = String(query["q"] ?? "").trimmingCharacters(in: .whitespaces)
        let rows = try await store.search(
            String(text.prefix(200)),
            after: query["after"].map(String.init),
            limit: Self.pageSize
        )
        // Only what the server did: a code (base64url, no sentence fits in one) that was a link a moment
        // ago and is none now, looked up; never text from the query.
        var notice: String?
        if let deleted = query["deleted"].map(String.init), SmartLinkValidator.isCode(deleted),
            try await store.wasDeleted(deleted, withinMilliseconds: 600_000)
        {
            notice = "The link \(deleted) was deleted."
        }
        return ConsolePages.response(
            .ok,
            ConsolePages.links(
                rows,
                query: text,
                next: rows.count == Self.pageSize ? rows.last?.link.code : nil,
                notice: notice,
                viewer: viewer,
                policy: policy
            )
        )
    }

    @Sendable func newLinkForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.viewer()
        return ConsolePages.response(
            .ok,
            ConsolePages.linkForm(
                code: nil,
                values: ["passQuery": "on"],
                problems: [:],
                viewer: viewer,
                policy: policy
            )
        )
    }

    @Sendable func createLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await form(request, context) { viewer, fields in
            if let changed = rulesChanged(nil, fields, viewer) { return changed }
            var values = fields
            if (values["code"] ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
                values["code"] = SmartLinkValidator.generateCode()
            }
            let (link, problems) = LinkForm(values: values).link(policy: policy)
            guard let link, problems.isEmpty else { return formFailure(nil, fields, problems, viewer) }
            guard try await store.insert(link) else {
                return formFailure(nil, fields, ["code": ["code: this code is taken"]], viewer)
            }
            return Self.redirect("/console/links/\(link.code)")
        }
    }

    @Sendable func exportLinks(_ request: Request, context: AppRequestContext) async throws -> Response {
        LinkTransfer.csvFile(try await transfer.exportCSV())
    }

    @Sendable func importForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.viewer()
        return ConsolePages.response(.ok, ConsolePages.importForm(values: Self.importDefaults, viewer: viewer))
    }

    /// Another system's export, uploaded as a file (multipart: the console has no script to read it). Its
    /// megabytes are read for a signed-in editor only, and only once the form's CSRF token (in the form's
    /// action, so it is known before the body is) is right.
    @Sendable func importLinks(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.viewer()
        if let refused = Self.refusal(csrf: request.uri.queryParameters["csrf"].map(String.init), viewer) {
            return refused
        }
        if let wait = try await costlyLimiter.take("\(viewer.signedIn.id)", now: clock.milliseconds()) {
            return ConsolePages.response(
                .tooManyRequests,
                ConsolePages.importForm(
                    values: Self.importDefaults,
                    problem: "Too many imports and diagnoses: try again in \(wait) seconds.",
                    viewer: viewer
                ),
                headers: [.retryAfter: String(wait)]
            )
        }
        let form: [String: MultipartForm.Part]
        do {
            form = try await MultipartForm.read(request, limit: LinkTransfer.maxImportSize + 16_384)
        } catch is NIOTooManyBytesError {
            return ConsolePages.response(
                .contentTooLarge,
                ConsolePages.importForm(
                    values: Self.importDefaults,
                    problem:
                        "The file is larger than \(LinkTransfer.maxImportSize >> 20) MiB: split it into smaller files and import each.",
                    viewer: viewer
                )
            )
        }
        var values = Self.importDefaults
        for name in ["format", "onConflict", "columns"] { values[name] = form[name]?.text ?? values[name] }
        values["dryRun"] = form["dryRun"] == nil ? nil : "on"
        func failure(_ problem: String) -> Response {
            ConsolePages.response(
                .unprocessableContent,
                ConsolePages.importForm(values: values, problem: problem, viewer: viewer)
            )
        }
        guard let format = LinkImport.Format(rawValue: values["format"] ?? ""),
            let conflict = LinkImport.Conflict(rawValue: values["onConflict"] ?? "")
        else { return failure("Choose a format and what to do with codes that are taken.") }
        // `field=column` pairs, as the API's `column.FIELD=NAME`.
        var columns: [String: String] = [:]
        for pair in (values["columns"] ?? "").split(whereSeparator: { $0 == "," || $0.isNewline }) {
            let text = pair.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            let parts = text.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                return failure("Columns: write each as field=column, separated by commas (not “\(text)”).")
            }
            columns[parts[0]] = parts[1]
        }
        guard let file = form["file"], !file.value.isEmpty else { return failure("Choose a file to import.") }
        guard let text = file.text else {
            return failure("The file is not UTF-8 text: export it as UTF-8 CSV.")
        }
        let dryRun = values["dryRun"] != nil
        let imported = try await transfer.imports.run {
            () async throws -> Result<LinkTransfer.ImportReport, LinkImportError> in
            do {
                return .success(
                    try await transfer.importFile(
                        text,
                        format: format,
                        columns: columns,
                        conflict: conflict,
                        dryRun: dryRun
                    )
                )
            } catch let failure as LinkImportError {
                return .failure(failure)
            }
        }
        let report: LinkTransfer.ImportReport
        switch imported {
        case .success(let made): report = made
        case .failure(let error): return failure("The file cannot be read as \(format.rawValue): \(error)")
        }
        return ConsolePages.response(
            .ok,
            ConsolePages.importReport(report, file: file.filename, dryRun: dryRun, viewer: viewer)
        )
    }

    @Sendable func linkPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.viewer()
        guard let link = try await existing(context) else { return notFound(viewer) }
        let qr = try QRCode(text: policy.qrURL(link.code), level: .medium)
        return ConsolePages.response(
            .ok,
            ConsolePages.link(
                link,
                rows: try await store.stats(link.code),
                referrers: try await store.referrers(link.code),
                qr: HTML(trusted: QRImage(code: qr, margin: 4).svg(pixels: 200)),
                ruleClicks: try await store.ruleClicks(link),
                now: clock.milliseconds(),
                viewer: viewer,
                policy: policy
            )
        )
    }

    /// A link's analytics page (every link's without `:code`): the report the query asks for, every dimension's
    /// table; a query that is wrong is a 400 page saying what each parameter must be.
    @Sendable func analyticsPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.viewer()
        do {
            guard let (report, query) = try await analyticsReport(request, context) else { return notFound(viewer) }
            var breakdowns: [AnalyticsReport.Breakdown] = []
            for dimension in ConsolePages.analyticsDimensions {
                breakdowns.append(
                    try await AnalyticsReport.breakdown(
                        dimension,
                        code: report.code,
                        query: query,
                        totals: report.totals,
                        database: store.database
                    )
                )
            }
            return ConsolePages.response(.ok, ConsolePages.analytics(report, breakdowns: breakdowns, viewer: viewer))
        } catch let error as APIError where error.code == .invalidParameter {
            let reason = error.fields["parameter"].flatMap(\.string).map { "\($0) " } ?? ""
            return ConsolePages.response(
                .badRequest,
                ConsolePages.message(
                    title: "Analytics",
                    viewer: viewer,
                    text: "The range is wrong: \(reason)\(error.fields["reason"].flatMap(\.string) ?? "")."
                )
            )
        }
    }

    /// The CSV of the analytics page's series, or of one breakdown (`breakdown=`).
    @Sendable func analyticsCSV(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.viewer()
        guard let (report, _) = try await analyticsReport(request, context) else { return notFound(viewer) }
        return LinkTransfer.csvFile(report.csv, name: report.fileName)
    }

    /// A link's funnel page (every link's without `:code`), or its CSV at `.csv`.
    @Sendable func funnelPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.viewer()
        var code: String?
        if context.parameters.get("code") != nil {
            guard let link = try await existing(context) else { return notFound(viewer) }
            code = link.code
        }
        let query: AnalyticsReport.Query
        switch range(request, title: "Funnel", viewer: viewer) {
        case .success(let named): query = named
        case .failure(let refused): return refused.page
        }
        let report = try await FunnelReport.make(code: code, from: query.from, to: query.to, database: store.database)
        guard request.uri.path.hasSuffix(".csv") else {
            return ConsolePages.response(.ok, ConsolePages.funnel(report, viewer: viewer))
        }
        return LinkTransfer.csvFile(report.csv, name: report.fileName)
    }

    /// The universal-link health page, or its CSV at `.csv`.
    @Sendable func healthPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.viewer()
        let query: AnalyticsReport.Query
        switch range(request, title: "Universal-link health", viewer: viewer) {
        case .success(let named): query = named
        case .failure(let refused): return refused.page
        }
        let report = try await LinkHealthReport.make(from: query.from, to: query.to, database: store.database)
        guard request.uri.path.hasSuffix(".csv") else {
            return ConsolePages.response(.ok, ConsolePages.health(report, viewer: viewer))
        }
        return LinkTransfer.csvFile(report.csv, name: report.fileName)
    }

    /// A range the page's query names wrongly: the page that says why.
    struct RangeRefused: Error {
        let page: Response
    }

    /// The days `from` to `to` a funnel or health page's query names (the last 30 by default), or the page that says
    /// what is wrong with them.
    private func range(_ request: Request, title: String, viewer: ConsolePages.Viewer) -> Result<
        AnalyticsReport.Query, RangeRefused
    > {
        let parameters = AnalyticsReport.parameters(request).filter { $0.key == "from" || $0.key == "to" }
        do {
            return .success(try AnalyticsReport.Query(parameters, today: ClickCounter.day(clock.milliseconds())))
        } catch {
            let reason = (error as? APIError)?.fields["reason"].flatMap(\.string) ?? ""
            return .failure(
                RangeRefused(
                    page: ConsolePages.response(
                        .badRequest,
                        ConsolePages.message(title: title, viewer: viewer, text: "The range is wrong: \(reason).")
                    )
                )
            )
        }
    }

    /// The report of the route's link (every link without `:code`); nil when the code is no link.
    private func analyticsReport(_ request: Request, _ context: AppRequestContext) async throws -> (
        AnalyticsReport, AnalyticsReport.Query
    )? {
        var code: String?
        if context.parameters.get("code") != nil {
            guard let link = try await existing(context) else { return nil }
            code = link.code
        }
        let parameters = AnalyticsReport.parameters(request)
        let query = try AnalyticsReport.Query(parameters, today: ClickCounter.day(clock.milliseconds()))
        return (try await AnalyticsReport.make(code: code, query: query, database: store.database), query)
    }

    @Sendable func qrSVG(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await qrImage(context, png: false)
    }

    @Sendable func qrPNG(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await qrImage(context, png: true)
    }

    /// The link's QR code to download, 1,024 pixels: SVG or PNG.
    func qrImage(_ context: AppRequestContext, png: Bool) async throws -> Response {
        let viewer = try context.viewer()
        guard let link = try await existing(context) else { return notFound(viewer) }
        let qr = try QRCode(text: policy.qrURL(link.code), level: .medium)
        let image = QRImage(code: qr, margin: 4)
        let bytes = png ? image.png(pixels: 1024) : Array(image.svg(pixels: 1024).utf8)
        return Response(
            status: .ok,
            headers: [
                .contentType: png ? "image/png" : "image/svg+xml",
                .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"\(link.code).\(png ? "png" : "svg")\"",
                .xContentTypeOptions: "nosniff",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    @Sendable func editForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.viewer()
        guard let link = try await existing(context) else { return notFound(viewer) }
        return ConsolePages.response(
            .ok,
            ConsolePages.linkForm(
                code: link.code,
                values: LinkForm(link).values,
                problems: [:],
                viewer: viewer,
                policy: policy,
                reach: ConsolePages.reach(link, policy: policy, now: clock.milliseconds())
            )
        )
    }

    @Sendable func updateLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await form(request, context) { viewer, fields in
            guard let stored = try await existing(context) else { return notFound(viewer) }
            if let changed = rulesChanged(stored.code, fields, viewer) { return changed }
            var values = fields
            values["code"] = stored.code
            let (link, problems) = LinkForm(values: values).link(policy: policy)
            guard let link, problems.isEmpty else { return formFailure(stored.code, fields, problems, viewer) }
            guard try await store.update(link) else { return notFound(viewer) }
            return Self.redirect("/console/links/\(link.code)")
        }
    }

    @Sendable func deleteForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.viewer()
        guard let link = try await existing(context) else { return notFound(viewer) }
        return ConsolePages.response(.ok, ConsolePages.confirmDelete(link, viewer: viewer))
    }

    @Sendable func deleteLink(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await form(request, context) { viewer, _ in
            guard let link = try await existing(context), try await store.delete(link.code) else {
                return notFound(viewer)
            }
            return Self.redirect("/console/links?deleted=\(ConsolePages.formEncoded(link.code))")
        }
    }

    private func existing(_ context: AppRequestContext) async throws -> SmartLink? {
        let code = try context.parameters.require("code")
        guard SmartLinkValidator.isCode(code) else { return nil }
        return try await store.find(code)
    }

    func notFound(_ viewer: ConsolePages.Viewer) -> Response {
        ConsolePages.response(
            .notFound,
            ConsolePages.message(title: "No such link", viewer: viewer, text: "There is no link with this code.")
        )
    }

    /// The form again after a rules button (add, move, remove), changed and not saved; nil for a save.
    private func rulesChanged(_ code: String?, _ fields: [String: String], _ viewer: ConsolePages.Viewer) -> Response? {
        guard let operation = fields["op"] else { return nil }
        let values = LinkForm(values: fields).applying(operation)?.values ?? fields
        var preview = values
        preview["code"] = code ?? "preview"
        let (link, _) = LinkForm(values: preview).link(policy: policy)
        return ConsolePages.response(
            .ok,
            ConsolePages.linkForm(
                code: code,
                values: values,
                problems: [:],
                viewer: viewer,
                policy: policy,
                reach: link.map { ConsolePages.reach($0, policy: policy, now: clock.milliseconds()) }
            )
        )
    }

    private func formFailure(
        _ code: String?,
        _ values: [String: String],
        _ problems: [String: [String]],
        _ viewer: ConsolePages.Viewer
    ) -> Response {
        ConsolePages.response(
            .unprocessableContent,
            ConsolePages.linkForm(code: code, values: values, problems: problems, viewer: viewer, policy: policy)
        )
    }
}
