import AppSiteAssociation
import Foundation
import Hummingbird

/// `POST /v1/accounts`, `POST /v1/sessions`, `GET /v1/me`, `POST /v1/me/password`, `DELETE /v1/sessions/current`.
struct AccountRoutes: Sendable {
    let accounts: AccountService

    func register(on router: Router<AppRequestContext>) {
        router.post("/v1/accounts") { request, context -> Response in
            let body = try await JSONBody.read(request, context: context)
            let account = try await accounts.signUp(email: try body.string("email"), password: try body.string("password"))
            return JSONResponse.make(.created, ["email": .string(account.display)])
        }
        router.post("/v1/sessions") { request, context -> Response in
            let body = try await JSONBody.read(request, context: context)
            let token = try await accounts.signIn(email: try body.string("email"), password: try body.string("password"))
            return JSONResponse.make(.created, ["token": .string(token)])
        }
        router.get("/v1/me") { request, _ -> Response in
            guard let token = Self.bearer(request), let account = try await accounts.account(session: token) else { throw APIError.unauthorized }
            return JSONResponse.make(.ok, ["email": .string(account.display)])
        }
        router.post("/v1/me/password") { request, context -> Response in
            guard let token = Self.bearer(request), let account = try await accounts.account(session: token) else { throw APIError.unauthorized }
            let body = try await JSONBody.read(request, context: context)
            try await accounts.changePassword(
                account: account, session: token, current: try body.string("currentPassword"), new: try body.string("newPassword")
            )
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
        router.delete("/v1/sessions/current") { request, _ -> Response in
            guard let token = Self.bearer(request), try await accounts.account(session: token) != nil else { throw APIError.unauthorized }
            try await accounts.signOut(session: token)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }

    static func bearer(_ request: Request) -> String? {
        guard let value = request.headers[.authorization], value.count > 7, value.prefix(7).lowercased() == "bearer " else { return nil }
        return String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }
}
