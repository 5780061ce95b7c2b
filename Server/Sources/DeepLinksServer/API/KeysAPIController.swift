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
        JSONResponse.make(.ok, ["keys": .array(try await operators.keys().map(Self.json))])
    }

    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await JSONBody.read(request, context: context)
        guard let role = OperatorRole(rawValue: try body.string("role")) else {
            throw APIError.malformed("'role' is viewer, editor or admin")
        }
        do {
            let (key, secret) = try await operators.createKey(
                name: try body.string("name"),
                role: role,
                createdBy: context.keyHolder?.operatorEmail ?? "api",
                ownerID: context.keyHolder?.operatorID
            )
            var object = Self.fields(key)
            object["key"] = .string(secret)
            return JSONResponse.make(.created, object)
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

    static func json(_ key: Operators.APIKey) -> JSONValue { .object(fields(key)) }

    static func fields(_ key: Operators.APIKey) -> [String: JSONValue] {
        var object: [String: JSONValue] = [
            "id": .number(Double(key.id)), "name": .string(key.name), "role": .string(key.role.rawValue),
            "prefix": .string(key.prefix), "createdAt": .number(Double(key.createdAt)),
        ]
        if let by = key.createdBy { object["createdBy"] = .string(by) }
        if let used = key.lastUsedAt { object["lastUsedAt"] = .number(Double(used)) }
        if let revoked = key.revokedAt { object["revokedAt"] = .number(Double(revoked)) }
        if let note = key.note { object["note"] = .string(note) }
        return object
    }
}
