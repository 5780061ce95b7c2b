import Hummingbird

/// An API group's role: every endpoint of the group needs `Authorization: Bearer KEY` of at least `role`
/// (``Access/require(_:_:api:)``: 401, 403, or 503 while the API has no key). Who the key speaks for is in
/// ``AppRequestContext/keyHolder``. No handler checks a role itself.
struct KeyRoleMiddleware: RouterMiddleware {
    let role: OperatorRole
    let api: Access.API
    let access: Access

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.keyHolder = try await access.require(role, request, api: api)
        return try await next(request, context)
    }
}

extension RouterMethods where Context == AppRequestContext {
    /// The routes added to the group need a key of at least `role` for `api`.
    func group(_ role: OperatorRole, _ api: Access.API, access: Access) -> RouterGroup<Context> {
        group().add(middleware: KeyRoleMiddleware(role: role, api: api, access: access))
    }
}
