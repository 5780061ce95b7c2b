import DeepLinksJSON
import Foundation
import Hummingbird

/// The reset API: `POST /v1/password-resets`, `.../verify` and `.../confirm`, each behind a per-IP bucket; and
/// the reset page's forms posted without its script (form-encoded, to the page's own path), answered with the page.
struct PasswordResetRoutes: Sendable {
    let service: PasswordResetService
    let proxies: TrustedProxies
    let page: ResetLandingPage
    let requestLimiter: SharedRateLimiter
    let confirmLimiter: SharedRateLimiter
    /// The backend's endpoints (external accounts) require an admin's key.
    let access: Access
    /// All clients together: reset requests an hour.
    let ceiling: WriteCeiling

    init(
        service: PasswordResetService,
        proxies: TrustedProxies,
        page: ResetLandingPage,
        access: Access,
        ceiling: WriteCeiling
    ) {
        self.service = service
        self.ceiling = ceiling
        self.proxies = proxies
        self.page = page
        self.access = access
        let settings = service.settings
        requestLimiter = SharedRateLimiter(
            database: service.database,
            name: "reset-request",
            capacity: settings.requestBurst,
            perMinute: settings.requestsPerMinute
        )
        confirmLimiter = SharedRateLimiter(
            database: service.database,
            name: "reset-confirm",
            capacity: settings.confirmBurst,
            perMinute: settings.confirmsPerMinute
        )
    }

    func register(on router: Router<AppRequestContext>) {
        router.post("/v1/password-resets") { request, context -> Response in
            let started = ContinuousClock.now
            let client = try await admit(request, context, limiter: requestLimiter)
            try await ceiling.admit(now: service.clock.milliseconds())
            let body = try await JSONBody.read(request, context: context).decode(AccountRoutes.Email.self)
            try await service.request(email: body.email, client: client)
            // The same answer after at least the same time, whatever was found (R1, R2).
            let floor = Duration.milliseconds(service.settings.requestFloorMilliseconds)
            try await Task.sleep(until: started + floor, clock: .continuous)
            return try JSONResponse.make(.accepted, Accepted())
        }
        router.post("/v1/password-resets/verify") { request, context -> Response in
            let client = try await admit(request, context, limiter: confirmLimiter)
            let body = try await JSONBody.read(request, context: context).decode(TokenBody.self)
            let masked = try await service.verify(token: body.token, email: body.email, client: client)
            return try JSONResponse.make(.ok, Valid(email: masked))
        }
        router.post("/v1/password-resets/confirm") { request, context -> Response in
            let client = try await admit(request, context, limiter: confirmLimiter)
            let body = try await JSONBody.read(request, context: context).decode(Confirmation.self)
            try await service.confirm(
                token: body.token,
                password: body.password,
                email: body.email,
                client: client
            )
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
        router.post(RouterPath(page.reset.path)) { request, context -> Response in
            try await answerForm(request, context)
        }
        if service.backend != nil { registerBackendEndpoints(on: router) }
    }

    /// External accounts: the backend asks for a link for one of its users, ends a user's links after a
    /// change of its own, and consumes a token the app posted to it. Each requires an admin's key.
    private func registerBackendEndpoints(on router: Router<AppRequestContext>) {
        // The team backend's calls, behind an admin's key (the group's middleware).
        let backend = router.group(.admin, .resetLinks, access: access)
        backend.post("/v1/reset-links") { request, context -> Response in
            let body = try await JSONBody.read(request, context: context).decode(LinkRequest.self)
            let deliver = try body.deliver.map { value in
                guard let delivery = PasswordResetService.Delivery(rawValue: value) else {
                    throw APIError.malformed("'deliver' is \"mail\" or \"return\"")
                }
                return delivery
            }
            // Mail is in English today: the locale is checked and kept for the reader's language to come.
            if let locale = body.locale, !Self.isLanguageTag(locale) {
                throw APIError.malformed("'locale' is not a language tag (en, pt-BR)")
            }
            let issued = try await service.issueLink(
                subject: body.subject,
                email: body.email,
                deliver: deliver ?? .mail
            )
            let answer = IssuedLink(
                delivery: (deliver ?? .mail).rawValue,
                expiresAt: Date(timeIntervalSince1970: Double(issued.expiresAt) / 1000).formatted(.iso8601),
                link: deliver == .return ? issued.link : nil
            )
            return try JSONResponse.make(.created, answer)
        }
        backend.post("/v1/reset-links/revoke") { request, context -> Response in
            let body = try await JSONBody.read(request, context: context).decode(Subject.self)
            try await service.revoke(subject: body.subject)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
        backend.post("/v1/reset-links/consume") { request, context -> Response in
            let body = try await JSONBody.read(request, context: context).decode(TokenBody.self)
            let client = PasswordResetService.Client(
                address: proxies.clientAddress(peer: context.peer, headers: request.headers),
                userAgent: request.headers[.userAgent]
            )
            let consumed = try await service.consume(
                token: body.token,
                email: body.email,
                client: client
            )
            return try JSONResponse.make(.ok, Consumed(subject: consumed.subject, email: consumed.email))
        }
    }

    /// A BCP 47 language tag's shape: letters, digits and hyphens, at most 35 characters.
    static func isLanguageTag(_ value: String) -> Bool {
        (2...35).contains(value.count) && value.first?.isLetter == true
            && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }

    /// The page's two forms as a browser posts them without the script: the same service calls, limits and
    /// floor as the JSON API, answered with the page in the state they lead to.
    private func answerForm(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let started = ContinuousClock.now
        let fields = try await FormBody.read(request, context: context)
        let email = fields["email"] ?? ""
        do {
            switch fields["intent"] {
            case "request":
                let client = try await admit(request, context, limiter: requestLimiter)
                try await ceiling.admit(now: service.clock.milliseconds())
                try await service.request(email: email, client: client)
                let floor = Duration.milliseconds(service.settings.requestFloorMilliseconds)
                try await Task.sleep(until: started + floor, clock: .continuous)
                let minutes = service.settings.tokenLifetimeSeconds / 60
                return page.response(
                    .requested(
                        email: email,
                        message:
                            "If an account uses this address, a link is on its way. It works for \(minutes) minutes, once."
                    )
                )
            case "confirm":
                let client = try await admit(request, context, limiter: confirmLimiter)
                let token = fields["token"] ?? ""
                do {
                    try await service.confirm(
                        token: token,
                        password: fields["password"] ?? "",
                        email: email.isEmpty ? nil : email,
                        client: client
                    )
                    return page.response(.done)
                } catch let error as APIError where error.code == .weakPassword {
                    let reasons = error.fields["reasons"]?.array?.compactMap(\.string) ?? []
                    let text = reasons.map { ResetLandingPage.reasons[$0] ?? $0 }.joined(separator: " ")
                    return page.response(.form(token: token, email: email, error: text), status: error.status)
                } catch let error as APIError where [.serviceUnavailable, .conflict].contains(error.status) {
                    // External accounts: the backend's password hook did not answer; the link still works.
                    let text =
                        "We could not save your new password just now. Your link still works: try again in a moment."
                    return page.response(.form(token: token, email: email, error: text), status: error.status)
                }
            default:
                return page.response(.initial(queryToken: nil), status: .badRequest)
            }
        } catch let error as APIError where error.status == .tooManyRequests {
            let wait = error.headers[.retryAfter] ?? "a few"
            let message = "Too many requests: wait \(wait) seconds, then try again."
            return fields["intent"] == "confirm"
                ? page.response(.form(token: fields["token"] ?? "", email: email, error: message), status: error.status)
                : page.response(.requested(email: email, message: message), status: error.status)
        } catch let error as APIError where error.code == .invalidOrExpiredToken {
            return page.response(.expired(email: email), status: error.status)
        } catch let error as APIError where error.code == .malformedRequest {
            return page.response(
                .requested(email: email, message: "This is not an address we can send to: check it and try again."),
                status: error.status
            )
        }
    }

    /// The client, or 429 with `Retry-After` when the bucket of its network (see ``ClientNetwork``) is empty.
    private func admit(_ request: Request, _ context: AppRequestContext, limiter: SharedRateLimiter) async throws
        -> PasswordResetService.Client
    {
        let address = proxies.clientAddress(peer: context.peer, headers: request.headers)
        try await limiter.admit(ClientNetwork.key(address), now: service.clock.milliseconds())
        return .init(address: address, userAgent: request.headers[.userAgent])
    }
}

extension PasswordResetRoutes {
    /// A token to check or consume, with the address it was sent to when the app asks for it.
    struct TokenBody: Decodable {
        let token: String
        let email: String?
    }

    /// A token and the new password.
    struct Confirmation: Decodable {
        let token: String
        let password: String
        let email: String?
    }

    /// The team backend asks for a link for its user `subject` at `email`: mailed (`deliver` `mail`, the
    /// default) or returned; `locale` is checked and kept.
    struct LinkRequest: Decodable {
        let subject: String
        let email: String
        let deliver: String?
        let locale: String?
    }

    /// The backend's user whose links end.
    struct Subject: Decodable {
        let subject: String
    }

    /// A request for a link, taken (whatever was found).
    struct Accepted: Encodable {
        var status = "accepted"
    }

    /// A token that is live, and its address masked.
    struct Valid: Encodable {
        var valid = true
        let email: String
    }

    /// A reset link the team's backend asked for: mailed, or returned to it.
    struct IssuedLink: Encodable {
        let delivery: String
        let expiresAt: String
        let link: String?
    }

    /// A token the team's backend consumed: whose, and that its sessions must end.
    struct Consumed: Encodable {
        let subject: String
        let email: String
        var endSessions = true
    }
}
