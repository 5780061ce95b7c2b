import DeepLinksJSON
import DeepLinksSecrets
import Foundation
import Hummingbird

/// `POST /v1/accounts`, `POST /v1/sessions`, `GET /v1/me`, `POST /v1/me/password`, `DELETE /v1/sessions/current`.
///
/// Sign-up is limited per client network; sign-in per network and per address; a password change per account.
/// Each bucket is in the database, shared by every server.
struct AccountRoutes: Sendable {
    let accounts: AccountService
    let proxies: TrustedProxies
    let signUps: SharedRateLimiter
    /// All clients together: sign-ups an hour.
    let signUpCeiling: WriteCeiling
    let signIns: SharedRateLimiter
    let signInsPerAddress: SharedRateLimiter
    let passwordChanges: SharedRateLimiter

    init(accounts: AccountService, proxies: TrustedProxies, settings: PasswordResetSettings, ceiling: WriteCeiling) {
        self.accounts = accounts
        signUpCeiling = ceiling
        self.proxies = proxies
        let database = accounts.database
        signUps = SharedRateLimiter(
            database: database,
            name: "sign-up",
            capacity: settings.signUpBurst,
            perMinute: settings.signUpsPerMinute
        )
        signIns = SharedRateLimiter(
            database: database,
            name: "sign-in",
            capacity: settings.signInBurst,
            perMinute: settings.signInsPerMinute
        )
        signInsPerAddress = SharedRateLimiter(database: database, name: "sign-in-address", capacity: 10, perMinute: 2)
        passwordChanges = SharedRateLimiter(database: database, name: "password-change", capacity: 5, perMinute: 1)
    }

    private func network(_ request: Request, _ context: AppRequestContext) -> String {
        ClientNetwork.key(proxies.clientAddress(peer: context.peer, headers: request.headers))
    }

    func register(on router: Router<AppRequestContext>) {
        router.post("/v1/accounts") { request, context -> Response in
            try await signUps.admit(network(request, context), now: accounts.clock.milliseconds())
            try await signUpCeiling.admit(now: accounts.clock.milliseconds())
            let body = try await JSONBody.read(request, context: context).decode(Credentials.self)
            let account = try await accounts.signUp(email: body.email, password: body.password)
            return try JSONResponse.make(.created, Email(email: account.display))
        }
        router.post("/v1/sessions") { request, context -> Response in
            try await signIns.admit(network(request, context), now: accounts.clock.milliseconds())
            let body = try await JSONBody.read(request, context: context).decode(Credentials.self)
            let email = body.email
            if let address = try? EmailAddress(email) {
                let bucket = accounts.keys.digest(
                    address.normalized,
                    purpose: "sign-in address",
                    key: accounts.keys.current
                )
                try await signInsPerAddress.admit(bucket, now: accounts.clock.milliseconds())
            }
            let token = try await accounts.signIn(email: email, password: body.password)
            return try JSONResponse.make(.created, Session(token: token))
        }
        router.get("/v1/me") { request, _ -> Response in
            guard let token = request.bearerToken, let account = try await accounts.account(session: token) else {
                throw APIError.unauthorized
            }
            return try JSONResponse.make(.ok, Email(email: account.display))
        }
        router.post("/v1/me/password") { request, context -> Response in
            guard let token = request.bearerToken, let account = try await accounts.account(session: token) else {
                throw APIError.unauthorized
            }
            try await passwordChanges.admit(String(account.id), now: accounts.clock.milliseconds())
            let body = try await JSONBody.read(request, context: context).decode(PasswordChange.self)
            try await accounts.changePassword(
                account: account,
                session: token,
                current: body.currentPassword,
                new: body.newPassword
            )
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
        router.delete("/v1/sessions/current") { request, _ -> Response in
            guard let token = request.bearerToken, try await accounts.account(session: token) != nil else {
                throw APIError.unauthorized
            }
            try await accounts.signOut(session: token)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }

    /// The same paths with external accounts: each answers 404 `accounts_are_external`, saying where accounts
    /// live, rather than a bare "not found".
    static func registerExternal(on router: Router<AppRequestContext>) {
        let answer: @Sendable (Request, AppRequestContext) async throws -> Response = { _, _ in
            throw APIError(
                status: .notFound,
                code: .accountsAreExternal,
                fields: [
                    "reason": .string(
                        "accounts live in the app's own backend: sign up, sign in and sessions are its endpoints"
                    )
                ]
            )
        }
        router.post("/v1/accounts", use: answer)
        router.post("/v1/sessions", use: answer)
        router.get("/v1/me", use: answer)
        router.post("/v1/me/password", use: answer)
        router.delete("/v1/sessions/current", use: answer)
    }
}

extension AccountRoutes {
    /// An account, as sign-up and `GET /v1/me` answer it (sign-up answers a taken address the same); an address,
    /// as a reset request sends it.
    struct Email: Codable {
        let email: String
    }

    /// An address and a password: sign-up and sign-in.
    struct Credentials: Decodable {
        let email: String
        let password: String
    }

    struct PasswordChange: Decodable {
        let currentPassword: String
        let newPassword: String
    }

    /// A new session's bearer token.
    struct Session: Encodable {
        let token: String
    }
}
