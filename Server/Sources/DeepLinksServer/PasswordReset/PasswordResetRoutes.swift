import AppSiteAssociation
import Foundation
import Hummingbird

/// The reset API: `POST /v1/password-resets`, `.../verify` and `.../confirm`, each behind a per-IP bucket.
struct PasswordResetRoutes: Sendable {
    let service: PasswordResetService
    let proxies: TrustedProxies
    let requestLimiter: SharedRateLimiter
    let confirmLimiter: SharedRateLimiter

    init(service: PasswordResetService, proxies: TrustedProxies) {
        self.service = service
        self.proxies = proxies
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
            let body = try await JSONBody.read(request, context: context)
            try await service.request(email: try body.string("email"), client: client)
            // The same answer after at least the same time, whatever was found (R1, R2).
            let floor = Duration.milliseconds(service.settings.requestFloorMilliseconds)
            try await Task.sleep(until: started + floor, clock: .continuous)
            return JSONResponse.make(.accepted, ["status": .string("accepted")])
        }
        router.post("/v1/password-resets/verify") { request, context -> Response in
            let client = try await admit(request, context, limiter: confirmLimiter)
            let body = try await JSONBody.read(request, context: context)
            let masked = try await service.verify(
                token: try body.string("token"),
                email: try body.optionalString("email"),
                client: client
            )
            return JSONResponse.make(.ok, ["valid": .bool(true), "email": .string(masked)])
        }
        router.post("/v1/password-resets/confirm") { request, context -> Response in
            let client = try await admit(request, context, limiter: confirmLimiter)
            let body = try await JSONBody.read(request, context: context)
            try await service.confirm(
                token: try body.string("token"),
                password: try body.string("password"),
                email: try body.optionalString("email"),
                client: client
            )
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
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
