import AppSiteAssociation
import Crypto
import DeepLinks
import DeepLinksQR
import DeepLinksSupport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The web console (`/console`): operators sign in with a console role (``OperatorRole``) and manage links, read
/// their counts and QR codes, check the association files and URLs against them, ask the link doctor why a link
/// opened Safari, and (admins) manage API keys and operators.
///
/// - The session is a cookie `deeplinks_console` (`Secure; HttpOnly; SameSite=Strict`), 256 random bits stored as
///   a hash; it ends after 12 hours unused or 7 days.
/// - Every form carries a CSRF token: an HMAC of the session token (before sign-in, the value of a second cookie),
///   compared in constant time; a post without it changes nothing (403).
/// - Pages carry no script (the CSP allows none); roles are enforced here, per route, as on the API.
/// - Sign-in is throttled per client network and per address in the database (every replica counts).
struct ConsoleRoutes: Sendable {
    let operators: Operators
    let access: Access
    let links: SmartLinkRoutes
    let files: AssociationFiles
    let doctor: LinkDoctor
    let hasher: PasswordHasher
    let hashing: HashingGate
    let proxies: TrustedProxies
    let clock: WallClock
    let networkLimiter: SharedRateLimiter
    let addressLimiter: SharedRateLimiter
    /// Per operator: what makes the server fetch or parse much (a link-doctor diagnosis, an import).
    let costlyLimiter: SharedRateLimiter

    init(
        operators: Operators,
        access: Access,
        links: SmartLinkRoutes,
        files: AssociationFiles,
        doctor: LinkDoctor,
        hasher: PasswordHasher,
        hashing: HashingGate,
        proxies: TrustedProxies,
        clock: WallClock
    ) {
        self.operators = operators
        self.access = access
        self.links = links
        self.files = files
        self.doctor = doctor
        self.hasher = hasher
        self.hashing = hashing
        self.proxies = proxies
        self.clock = clock
        networkLimiter = SharedRateLimiter(
            database: operators.database,
            name: "console-sign-in",
            capacity: 20,
            perMinute: 10
        )
        addressLimiter = SharedRateLimiter(
            database: operators.database,
            name: Operators.signInAddressBucket,
            capacity: 5,
            perMinute: 2
        )
        costlyLimiter = SharedRateLimiter(
            database: operators.database,
            name: "console-costly",
            capacity: 30,
            perMinute: 10
        )
    }

    static let sessionCookie = "deeplinks_console"
    static let signInCookie = "deeplinks_console_sign_in"
    /// A browser an operator signed in from (``Operators/rememberDevice(of:)``): 256 random bits, 90 days.
    static let deviceCookie = "deeplinks_console_device"
    /// Links per page of the list.
    static let pageSize = 50

    var policy: LinkPolicy { links.policy }
    var store: LinkStore { links.store }

    func register(on router: Router<AppRequestContext>) {
        router.get("/console") { _, _ -> Response in Self.redirect("/console/links") }
        registerSignIn(on: router)
        registerLinks(on: router)
        router.get("/console/association") { request, _ -> Response in
            try await page(request, role: .viewer) { viewer in
                ConsolePages.response(.ok, association(request, viewer: viewer))
            }
        }
        // The doctor fetches files of the configured apps' and short-link domains only (never a host a form names).
        router.get("/console/doctor") { request, _ -> Response in
            try await page(request, role: .viewer) { viewer in
                let query = request.uri.queryParameters
                func field(_ name: String) -> String {
                    String((query[Substring(name)] ?? "").prefix(8192)).trimmingCharacters(in: .whitespaces)
                }
                let (url, referrer, agent) = (field("url"), field("referrer"), field("userAgent"))
                // Each diagnosis fetches up to three files: throttled per operator, as imports are.
                if !url.isEmpty,
                    let wait = try await costlyLimiter.take("\(viewer.signedIn.id)", now: clock.milliseconds())
                {
                    return ConsolePages.response(
                        .tooManyRequests,
                        ConsolePages.doctor(
                            url: url,
                            referrer: referrer,
                            userAgent: agent,
                            report: nil,
                            problem: "Too many diagnoses and imports: try again in \(wait) seconds.",
                            viewer: viewer
                        ),
                        headers: [.retryAfter: String(wait)]
                    )
                }
                let report =
                    url.isEmpty
                    ? nil
                    : await doctor.examine(
                        url,
                        referrer: referrer.isEmpty ? nil : referrer,
                        userAgent: agent.isEmpty ? nil : agent
                    )
                return ConsolePages.response(
                    .ok,
                    ConsolePages.doctor(url: url, referrer: referrer, userAgent: agent, report: report, viewer: viewer)
                )
            }
        }
        registerKeys(on: router)
        registerOperators(on: router)
        registerKeyAPI(on: router)
    }

    // MARK: Sign-in

    private func registerSignIn(on router: Router<AppRequestContext>) {
        router.get("/console/sign-in") { request, _ -> Response in
            if let token = Self.cookie(Self.sessionCookie, request), try await operators.session(token) != nil {
                return Self.redirect("/console/links")
            }
            let next = request.uri.queryParameters["next"].map(String.init).flatMap(Self.safeNext)
            return signInPage(.ok, next: next)
        }
        router.post("/console/sign-in") { request, context -> Response in
            let form = try await FormBody.read(request, context: context)
            let next = form["next"].flatMap(Self.safeNext)
            guard let expected = Self.cookie(Self.signInCookie, request), let sent = form["csrf"],
                SecureBytes.equal(Array(expected.utf8), Array(sent.utf8))
            else {
                return signInPage(
                    .forbidden,
                    next: next,
                    error: "The form expired or came from another site: sign in again."
                )
            }
            let email = form["email"] ?? ""
            let address = proxies.clientAddress(peer: context.peer, headers: request.headers)
            let now = clock.milliseconds()
            // The client's network carries the brute-force limit, right password or not. The address's bucket is
            // for the browsers its operator never signed in from; one they did (its device cookie) has a bucket of
            // its own, so a stranger's wrong passwords never lock the owner out there. A right password gives its
            // token back: only wrong ones empty a bucket.
            var device = Self.cookie(Self.deviceCookie, request)
            if let token = device, try await !operators.isDevice(token, of: email) { device = nil }
            let bucket = device.map { "device:\(Operators.digest($0))" } ?? Operators.normalized(email)
            var wait = try await networkLimiter.take(ClientNetwork.key(address), now: now)
            if wait == nil { wait = try await addressLimiter.take(bucket, now: now) }
            if let wait {
                var response = signInPage(
                    .tooManyRequests,
                    email: email,
                    next: next,
                    error: "Too many attempts: try again in \(wait) seconds."
                )
                response.headers[.retryAfter] = String(wait)
                return response
            }
            guard
                let signedIn = try await hashing.run({
                    try await operators.verify(email: email, password: form["password"] ?? "", hasher: hasher)
                })
            else {
                return signInPage(.unauthorized, email: email, next: next, error: "The email or the password is wrong.")
            }
            try await addressLimiter.give(bucket, now: now)
            let token = try await operators.startSession(signedIn)
            var response = Self.redirect(next ?? "/console/links")
            response.headers.append(HTTPField(name: .setCookie, value: Self.setCookie(Self.sessionCookie, token)))
            response.headers.append(HTTPField(name: .setCookie, value: Self.clearCookie(Self.signInCookie)))
            if device == nil {
                let remembered = try await operators.rememberDevice(of: signedIn)
                response.headers.append(
                    HTTPField(
                        name: .setCookie,
                        value: Self.setCookie(Self.deviceCookie, remembered)
                            + "; Max-Age=\(Operators.deviceLifetimeMilliseconds / 1000)"
                    )
                )
            }
            return response
        }
        router.post("/console/sign-out") { request, context -> Response in
            try await form(request, context, role: .viewer) { _, _ in
                if let token = Self.cookie(Self.sessionCookie, request) { try await operators.endSession(token) }
                var response = Self.redirect("/console/sign-in")
                response.headers.append(HTTPField(name: .setCookie, value: Self.clearCookie(Self.sessionCookie)))
                return response
            }
        }
    }

    /// The sign-in page with a fresh pre-session CSRF token in its own cookie.
    private func signInPage(
        _ status: HTTPResponse.Status,
        email: String = "",
        next: String?,
        error: String? = nil
    ) -> Response {
        let csrf = Base64URL.encode(SecureBytes.random(count: 32))
        return ConsolePages.response(
            status,
            ConsolePages.signIn(csrf: csrf, email: email, error: error, next: next),
            headers: [.setCookie: Self.setCookie(Self.signInCookie, csrf)]
        )
    }

    // MARK: Links

    private func registerLinks(on router: Router<AppRequestContext>) {
        router.get("/console/links") { request, _ -> Response in
            try await page(request, role: .viewer) { viewer in
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
        }
        router.get("/console/new") { request, _ -> Response in
            try await page(request, role: .editor) { viewer in
                ConsolePages.response(
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
        }
        router.post("/console/new") { request, context -> Response in
            try await form(request, context, role: .editor) { viewer, fields in
                var values = fields
                if (values["code"] ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
                    values["code"] = SmartLinkValidator.generateCode()
                }
                let (link, problems) = parsed(values)
                guard let link, problems.isEmpty else { return formFailure(nil, fields, problems, viewer) }
                guard try await store.insert(link) else {
                    return formFailure(nil, fields, ["code": ["code: this code is taken"]], viewer)
                }
                return Self.redirect("/console/links/\(link.code)")
            }
        }
        router.get("/console/export.csv") { request, _ -> Response in
            try await page(request, role: .viewer) { _ in SmartLinkRoutes.csvFile(try await links.exportCSV()) }
        }
        router.get("/console/import") { request, _ -> Response in
            try await page(request, role: .editor) { viewer in
                ConsolePages.response(.ok, ConsolePages.importForm(values: Self.importDefaults, viewer: viewer))
            }
        }
        // Another system's export, uploaded as a file (multipart: the console has no script to read it). Its
        // megabytes are read for a signed-in editor only, and only once the form's CSRF token (in the form's
        // action, so it is known before the body is) is right.
        router.post("/console/import") { request, _ -> Response in
            try await page(request, role: .editor) { viewer in
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
                    form = try await MultipartForm.read(request, limit: SmartLinkRoutes.maxImportSize + 16_384)
                } catch is NIOTooManyBytesError {
                    return ConsolePages.response(
                        .contentTooLarge,
                        ConsolePages.importForm(
                            values: Self.importDefaults,
                            problem:
                                "The file is larger than \(SmartLinkRoutes.maxImportSize >> 20) MiB: split it into smaller files and import each.",
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
                let read: (format: LinkImport.Format, rows: [LinkImport.Row])
                do {
                    read = try LinkImport(policy: policy).rows(text, format: format, columns: columns)
                } catch {
                    return failure("The file cannot be read as \(format.rawValue): \(error)")
                }
                let dryRun = values["dryRun"] != nil
                let report = try await links.importing(read, conflict: conflict, dryRun: dryRun)
                return ConsolePages.response(
                    .ok,
                    ConsolePages.importReport(report, file: file.filename, dryRun: dryRun, viewer: viewer)
                )
            }
        }
        router.get("/console/links/:code") { request, context -> Response in
            try await page(request, role: .viewer) { viewer in
                guard let link = try await existing(context) else { return notFound(viewer) }
                let qr = try QRCode(text: policy.qrURL(link.code), level: .medium)
                return ConsolePages.response(
                    .ok,
                    ConsolePages.link(
                        link,
                        rows: try await store.stats(link.code),
                        referrers: try await store.referrers(link.code),
                        qr: QRImage(code: qr, margin: 4).svg(pixels: 200),
                        viewer: viewer,
                        policy: policy
                    )
                )
            }
        }
        for format in ["svg", "png"] {
            router.get("/console/links/:code/qr.\(format)") { request, context -> Response in
                try await page(request, role: .viewer) { viewer in
                    guard let link = try await existing(context) else { return notFound(viewer) }
                    let qr = try QRCode(text: policy.qrURL(link.code), level: .medium)
                    let image = QRImage(code: qr, margin: 4)
                    let bytes = format == "png" ? image.png(pixels: 1024) : Array(image.svg(pixels: 1024).utf8)
                    return Response(
                        status: .ok,
                        headers: [
                            .contentType: format == "png" ? "image/png" : "image/svg+xml",
                            .cacheControl: "no-store",
                            .contentDisposition: "attachment; filename=\"\(link.code).\(format)\"",
                            .xContentTypeOptions: "nosniff",
                        ],
                        body: .init(byteBuffer: ByteBuffer(bytes: bytes))
                    )
                }
            }
        }
        router.get("/console/links/:code/edit") { request, context -> Response in
            try await page(request, role: .editor) { viewer in
                guard let link = try await existing(context) else { return notFound(viewer) }
                return ConsolePages.response(
                    .ok,
                    ConsolePages.linkForm(
                        code: link.code,
                        values: ConsolePages.formValues(link),
                        problems: [:],
                        viewer: viewer,
                        policy: policy
                    )
                )
            }
        }
        router.post("/console/links/:code/edit") { request, context -> Response in
            try await form(request, context, role: .editor) { viewer, fields in
                guard let stored = try await existing(context) else { return notFound(viewer) }
                var values = fields
                values["code"] = stored.code
                let (link, problems) = parsed(values)
                guard let link, problems.isEmpty else { return formFailure(stored.code, fields, problems, viewer) }
                guard try await store.update(link) else { return notFound(viewer) }
                return Self.redirect("/console/links/\(link.code)")
            }
        }
        router.get("/console/links/:code/delete") { request, context -> Response in
            try await page(request, role: .editor) { viewer in
                guard let link = try await existing(context) else { return notFound(viewer) }
                return ConsolePages.response(.ok, ConsolePages.confirmDelete(link, viewer: viewer))
            }
        }
        router.post("/console/links/:code/delete") { request, context -> Response in
            try await form(request, context, role: .editor) { viewer, _ in
                guard let link = try await existing(context), try await store.delete(link.code) else {
                    return notFound(viewer)
                }
                return Self.redirect("/console/links?deleted=\(ConsolePages.formEncoded(link.code))")
            }
        }
    }

    private func existing(_ context: AppRequestContext) async throws -> SmartLink? {
        let code = try context.parameters.require("code")
        guard SmartLinkValidator.isCode(code) else { return nil }
        return try await store.find(code)
    }

    private func notFound(_ viewer: ConsolePages.Viewer) -> Response {
        ConsolePages.response(
            .notFound,
            ConsolePages.message(title: "No such link", viewer: viewer, text: "There is no link with this code.")
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

    /// The form's fields as a link, checked by the API's validator; the problems by field name (`""`: the link's).
    func parsed(_ values: [String: String]) -> (SmartLink?, [String: [String]]) {
        func text(_ name: String) -> String? {
            guard let value = values[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else {
                return nil
            }
            return value
        }
        var problems: [String: [String]] = [:]
        // No route: a web link (its fallback is where every platform goes).
        var link = SmartLink(code: text("code") ?? "", route: text("route"))
        link.app = text("app").flatMap { $0 == policy.primary.bundleID ? nil : $0 }
        link.destinations = .init(
            ios: text("destinations.ios"),
            ipad: text("destinations.ipad"),
            android: text("destinations.android"),
            desktop: text("destinations.desktop"),
            fallback: text("destinations.fallback")
        )
        link.preview = .init(
            title: text("preview.title"),
            description: text("preview.description"),
            image: text("preview.image")
        )
        link.passQuery = values["passQuery"] == "on"
        link.expiredURL = text("expiredURL")
        if let expiry = text("expiresAt") {
            if let milliseconds = ConsolePages.parseDateTime(expiry) {
                link.expiresAt = milliseconds
            } else {
                problems["expiresAt", default: []].append("expiresAt: a date and time, as 2026-12-31T23:59 (UTC)")
            }
        }
        for problem in policy.validator.problems(link) {
            // The validator names the field before a colon: `destinations.ios: ...`.
            let field = problem.prefix { $0 != ":" }
            problems[values.keys.contains(String(field)) || field == "code" ? String(field) : "", default: []]
                .append(problem)
        }
        return (problems.isEmpty ? link : nil, problems)
    }

    // MARK: Association

    private func association(_ request: Request, viewer: ConsolePages.Viewer) -> String {
        func pretty(_ data: Data) -> String {
            guard let object = try? JSONSerialization.jsonObject(with: data),
                let text = try? JSONSerialization.data(
                    withJSONObject: object,
                    options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                )
            else { return String(decoding: data, as: UTF8.self) }
            return String(decoding: text, as: UTF8.self)
        }
        var served: [(name: String, path: String, body: String, diagnostics: [AASADiagnostic])] = [
            (
                "apple-app-site-association", "/.well-known/apple-app-site-association",
                pretty(files.appleAppSiteAssociation.body),
                AASAValidator.validate(data: files.appleAppSiteAssociation.body)
            )
        ]
        if let link = files.linkDomainAssociation {
            served.append(
                (
                    "apple-app-site-association of \(link.hosts.joined(separator: ", "))",
                    "/.well-known/apple-app-site-association",
                    pretty(link.file.body), AASAValidator.validate(data: link.file.body)
                )
            )
        }
        if let assetLinks = files.assetLinks {
            served.append(
                (
                    "assetlinks.json", "/.well-known/assetlinks.json", pretty(assetLinks.body),
                    AssetLinksValidator.validate(data: assetLinks.body)
                )
            )
        }
        let url = String((request.uri.queryParameters["url"] ?? "").prefix(4096)).trimmingCharacters(in: .whitespaces)
        var verdicts: [ConsolePages.Verdict] = []
        var problem: String?
        if !url.isEmpty {
            do {
                let parts = try URLParts(parsing: url, limits: SmartLinkValidator.destinationLimits)
                guard parts.scheme == "https" else { throw URLRejection(reason: "iOS opens apps for https URLs only") }
                for app in policy.apps {
                    var route: String?
                    var parameters: [(String, String)] = []
                    var routeProblem: String?
                    if let table = policy.validator.manifests[app.bundleID]?.table {
                        switch table.match(url) {
                        case .success(let match):
                            route = match.destination.route
                            parameters = match.parameters.values.sorted { $0.key < $1.key }.flatMap { name, values in
                                values.map { (name, $0) }
                            }
                        case .failure(let rejection):
                            routeProblem = "\(rejection)"
                        }
                    }
                    verdicts.append(
                        .init(
                            app: app,
                            decision: policy.opens(app, url),
                            route: route,
                            parameters: parameters,
                            routeProblem: routeProblem
                        )
                    )
                }
            } catch let error as URLRejection {
                problem = "Not a URL iOS would open: \(error.reason)"
            } catch {
                problem = "Not a URL iOS would open: \(error)"
            }
        }
        return ConsolePages.association(
            files: served,
            url: url,
            verdicts: verdicts,
            urlProblem: problem,
            viewer: viewer
        )
    }

    private struct URLRejection: Error {
        let reason: String
    }

    // MARK: API keys

    private func registerKeys(on router: Router<AppRequestContext>) {
        router.get("/console/keys") { request, _ -> Response in
            try await page(request, role: .admin) { viewer in
                try await keysPage(.ok, viewer: viewer)
            }
        }
        router.post("/console/keys") { request, context -> Response in
            try await form(request, context, role: .admin) { viewer, fields in
                guard let role = OperatorRole(rawValue: fields["role"] ?? "") else {
                    return try await keysPage(.unprocessableContent, viewer: viewer, error: "Choose a role.")
                }
                do {
                    let (key, secret) = try await operators.createKey(
                        name: fields["name"] ?? "",
                        role: role,
                        createdBy: viewer.signedIn.email,
                        ownerID: viewer.signedIn.id
                    )
                    return try await keysPage(.created, viewer: viewer, created: (key.name, secret))
                } catch let failure as Operators.Failure {
                    return try await keysPage(.unprocessableContent, viewer: viewer, error: "\(failure)")
                }
            }
        }
        router.post("/console/keys/:id/revoke") { request, context -> Response in
            try await form(request, context, role: .admin) { viewer, _ in
                guard let id = Int64(try context.parameters.require("id")) else {
                    return try await keysPage(.notFound, viewer: viewer, error: "\(Operators.Failure.noSuchKey)")
                }
                do {
                    try await operators.revokeKey(id: id, by: viewer.signedIn.email)
                } catch let failure as Operators.Failure {
                    return try await keysPage(.notFound, viewer: viewer, error: "\(failure)")
                }
                return Self.redirect("/console/keys")
            }
        }
    }

    private func registerOperators(on router: Router<AppRequestContext>) {
        router.post("/console/operators") { request, context -> Response in
            try await form(request, context, role: .admin) { viewer, fields in
                guard let role = OperatorRole(rawValue: fields["role"] ?? "") else {
                    return try await keysPage(.unprocessableContent, viewer: viewer, error: "Choose a role.")
                }
                do {
                    _ = try await hashing.run {
                        try await operators.create(
                            email: fields["email"] ?? "",
                            password: fields["password"] ?? "",
                            role: role,
                            hasher: hasher,
                            by: viewer.signedIn.email
                        )
                    }
                } catch let failure as Operators.Failure {
                    return try await keysPage(.unprocessableContent, viewer: viewer, error: "\(failure)")
                }
                return Self.redirect("/console/keys")
            }
        }
        router.post("/console/operators/remove") { request, context -> Response in
            try await form(request, context, role: .admin) { viewer, fields in
                try await changeOperator(fields["email"], by: viewer, yourself: "You cannot remove yourself.") {
                    try await operators.remove(email: $0, by: viewer.signedIn.email)
                }
            }
        }
        // A new role for an operator; lowering it lowers their keys.
        router.post("/console/operators/role") { request, context -> Response in
            try await form(request, context, role: .admin) { viewer, fields in
                guard let role = OperatorRole(rawValue: fields["role"] ?? "") else {
                    return try await keysPage(.unprocessableContent, viewer: viewer, error: "Choose a role.")
                }
                return try await changeOperator(
                    fields["email"],
                    by: viewer,
                    yourself: "You cannot change your own role."
                ) {
                    try await operators.setRole(email: $0, to: role, by: viewer.signedIn.email)
                }
            }
        }
    }

    /// An admin's change to another operator: never to themselves, whatever the spelling of the address (422), and
    /// never to the last admin (409); back to the keys page when done.
    private func changeOperator(
        _ submitted: String?,
        by viewer: ConsolePages.Viewer,
        yourself: String,
        _ change: (String) async throws -> Void
    ) async throws -> Response {
        let email = Operators.normalized(submitted ?? "")
        guard email != viewer.signedIn.email else {
            return try await keysPage(.unprocessableContent, viewer: viewer, error: yourself)
        }
        do {
            try await change(email)
        } catch let failure as Operators.Failure {
            return try await keysPage(
                failure == .lastAdmin ? .conflict : .notFound,
                viewer: viewer,
                error: "\(failure)"
            )
        }
        return Self.redirect("/console/keys")
    }

    private func keysPage(
        _ status: HTTPResponse.Status,
        viewer: ConsolePages.Viewer,
        created: (name: String, secret: String)? = nil,
        error: String? = nil
    ) async throws -> Response {
        ConsolePages.response(
            status,
            ConsolePages.keys(
                try await operators.keys(),
                operators: try await operators.list(),
                audit: try await operators.auditEvents(limit: 20),
                created: created,
                error: error,
                viewer: viewer
            )
        )
    }

    /// `/v1/keys`: the same keys for scripts, behind an admin's key.
    private func registerKeyAPI(on router: Router<AppRequestContext>) {
        @Sendable func json(_ key: Operators.APIKey) -> JSONValue {
            var object: [String: JSONValue] = [
                "id": .number(Double(key.id)), "name": .string(key.name), "role": .string(key.role.rawValue),
                "prefix": .string(key.prefix), "createdAt": .number(Double(key.createdAt)),
            ]
            if let by = key.createdBy { object["createdBy"] = .string(by) }
            if let used = key.lastUsedAt { object["lastUsedAt"] = .number(Double(used)) }
            if let revoked = key.revokedAt { object["revokedAt"] = .number(Double(revoked)) }
            if let note = key.note { object["note"] = .string(note) }
            return .object(object)
        }
        router.get("/v1/keys") { request, _ -> Response in
            try await access.require(.admin, request, api: .keys)
            return JSONResponse.make(.ok, ["keys": .array(try await operators.keys().map(json))])
        }
        router.post("/v1/keys") { request, context -> Response in
            // A key made with an operator's key is that operator's too (removing them revokes both).
            let holder = try await access.require(.admin, request, api: .keys)
            let body = try await JSONBody.read(request, context: context)
            guard let role = OperatorRole(rawValue: try body.string("role")) else {
                throw APIError.malformed("'role' is viewer, editor or admin")
            }
            do {
                let (key, secret) = try await operators.createKey(
                    name: try body.string("name"),
                    role: role,
                    createdBy: holder?.operatorEmail ?? "api",
                    ownerID: holder?.operatorID
                )
                guard case .object(var object) = json(key) else { fatalError("a key is an object") }
                object["key"] = .string(secret)
                return JSONResponse.make(.created, object)
            } catch let failure as Operators.Failure {
                throw APIError.malformed("\(failure)")
            }
        }
        router.delete("/v1/keys/:id") { request, context -> Response in
            let holder = try await access.require(.admin, request, api: .keys)
            guard let id = Int64(try context.parameters.require("id")) else {
                throw APIError(status: .notFound, code: .noSuchKey)
            }
            do {
                try await operators.revokeKey(id: id, by: holder?.operatorEmail ?? "api")
            } catch Operators.Failure.noSuchKey {
                throw APIError(status: .notFound, code: .noSuchKey)
            }
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }

    // MARK: Sessions and forms

    /// Runs `body` for a signed-in operator with at least `role`; otherwise the sign-in page (303) or 403.
    private func page(
        _ request: Request,
        role: OperatorRole,
        _ body: (ConsolePages.Viewer) async throws -> Response
    ) async throws -> Response {
        guard let token = Self.cookie(Self.sessionCookie, request), let signedIn = try await operators.session(token)
        else {
            let path = request.uri.path
            return Self.redirect(
                "/console/sign-in" + (request.method == .get ? "?next=\(ConsolePages.formEncoded(path))" : "")
            )
        }
        let viewer = ConsolePages.Viewer(signedIn: signedIn, csrf: Self.csrf(token))
        guard signedIn.role >= role else {
            return ConsolePages.response(
                .forbidden,
                ConsolePages.message(
                    title: "Not allowed",
                    viewer: viewer,
                    text:
                        "Your role (\(signedIn.role.rawValue)) does not allow this: \(role.grants) needs the role \(role.rawValue)."
                )
            )
        }
        return try await body(viewer)
    }

    /// A form post: the session and role as for a page, then the CSRF token; a post without the right token
    /// changes nothing.
    private func form(
        _ request: Request,
        _ context: AppRequestContext,
        role: OperatorRole,
        _ body: (ConsolePages.Viewer, [String: String]) async throws -> Response
    ) async throws -> Response {
        let fields = try await FormBody.read(request, context: context)
        return try await page(request, role: role) { viewer in
            if let refused = Self.refusal(csrf: fields["csrf"], viewer) { return refused }
            return try await body(viewer, fields)
        }
    }

    /// The answer to a form whose CSRF token is missing or wrong; nil when it is the session's.
    static func refusal(csrf sent: String?, _ viewer: ConsolePages.Viewer) -> Response? {
        if let sent, SecureBytes.equal(Array(sent.utf8), Array(viewer.csrf.utf8)) { return nil }
        return ConsolePages.response(
            .forbidden,
            ConsolePages.message(
                title: "Form refused",
                viewer: viewer,
                text:
                    "The form expired or came from another site (its CSRF token is missing or wrong): nothing was changed. Reload the page and try again."
            )
        )
    }

    /// The import form as it first shows: the format told from the header row, taken codes skipped, checked without
    /// writing.
    static let importDefaults = ["format": "auto", "onConflict": "skip", "dryRun": "on"]

    /// The token a session's forms carry: an HMAC of the session token, so nothing more is stored.
    static func csrf(_ session: String) -> String {
        let key = SymmetricKey(data: SHA256.hash(data: Array(session.utf8)))
        return Base64URL.encode(Array(HMAC<SHA256>.authenticationCode(for: Array("console-csrf".utf8), using: key)))
    }

    static func cookie(_ name: String, _ request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    static func setCookie(_ name: String, _ value: String) -> String {
        "\(name)=\(value); Path=/console; Secure; HttpOnly; SameSite=Strict"
    }

    static func clearCookie(_ name: String) -> String {
        "\(name)=; Path=/console; Max-Age=0; Secure; HttpOnly; SameSite=Strict"
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// A path to return to after sign-in: the console's own, never another site's (`//host`).
    static func safeNext(_ path: String) -> String? {
        guard path.hasPrefix("/console/"), !path.contains("//"), !path.contains("\\"), path.count < 500,
            path.allSatisfy({ $0.isASCII && !$0.isWhitespace })
        else { return nil }
        return path
    }
}
