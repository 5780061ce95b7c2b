import DeepLinksJSON
import Hummingbird

/// `/v1/keys`: the console's API keys for scripts, one method per endpoint, behind an admin's key (the group's
/// ``KeyRoleMiddleware``). A key made with an operator's key is that operator's too (removing them revokes both).
struct KeysAPIController: Sendable {
    let operators: Operators
    let access: Access

    var endpoints: RouteCollection<AppRequestContext> {
        let routes = RouteCollection(context: AppRequestContext.self)
        routes.group(.admin, .keys, access: access)
            .get(use: list)
            .post(use: create)
            .delete(":id", use: revoke)
        return routes
    }

    func register(on router: Router<AppRequestContext>) {
        router.addRoutes(endpoints, atPath: "/v1/keys")
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        try JSONResponse.make(.ok, Keys(keys: try await operators.keys().map { Key($0) }))
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await JSONBody.read(request, context: context).decode(NewKey.self)
        guard let role = OperatorRole(rawValue: body.role) else {
            throw APIError.malformed("'role' is viewer, editor or admin")
        }
        do {
            let (key, secret) = try await operators.createKey(
                name: body.name,
                role: role,
                createdBy: context.keyHolder?.operatorEmail ?? "api",
                ownerID: context.keyHolder?.operatorID
            )
            return try JSONResponse.make(.created, Key(key, secret: secret))
        } catch let failure as OperatorError {
            throw APIError.malformed("\(failure)")
        }
    }

    @Sendable func revoke(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let id = Int64(try context.parameters.require("id")) else {
            throw APIError(status: .notFound, code: .noSuchKey)
        }
        do {
            try await operators.revokeKey(id: id, by: context.keyHolder?.operatorEmail ?? "api")
        } catch OperatorError.noSuchKey {
            throw APIError(status: .notFound, code: .noSuchKey)
        }
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    /// A key to make: its name and role (`viewer`, `editor` or `admin`).
    struct NewKey: Decodable {
        let name: String
        let role: String
    }

    /// An API key as the API shows it; its secret only in the answer that made it.
    struct Key: Encodable {
        let id: Int64
        let name: String
        let role: String
        let prefix: String
        let createdAt: Int64
        let createdBy: String?
        let lastUsedAt: Int64?
        let revokedAt: Int64?
        let note: String?
        var key: String? = nil

        init(_ key: Operators.APIKey, secret: String? = nil) {
            (id, name, role, prefix, createdAt) = (key.id, key.name, key.role.rawValue, key.prefix, key.createdAt)
            (createdBy, lastUsedAt, revokedAt, note) = (key.createdBy, key.lastUsedAt, key.revokedAt, key.note)
            self.key = secret
        }
    }

    struct Keys: Encodable {
        let keys: [Key]
    }
}
