import Crypto
import DeepLinks
import DeepLinksJSON
import DeepLinksQR
import DeepLinksSupport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// API keys: the console page and `/v1/keys`.
extension ConsoleRoutes {
    func registerKeys(on router: Router<AppRequestContext>) {
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
                } catch let failure as OperatorError {
                    return try await keysPage(.unprocessableContent, viewer: viewer, error: "\(failure)")
                }
            }
        }
        router.post("/console/keys/:id/revoke") { request, context -> Response in
            try await form(request, context, role: .admin) { viewer, _ in
                guard let id = Int64(try context.parameters.require("id")) else {
                    return try await keysPage(.notFound, viewer: viewer, error: "\(OperatorError.noSuchKey)")
                }
                do {
                    try await operators.revokeKey(id: id, by: viewer.signedIn.email)
                } catch let failure as OperatorError {
                    return try await keysPage(.notFound, viewer: viewer, error: "\(failure)")
                }
                return Self.redirect("/console/keys")
            }
        }
    }

    func keysPage(
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
    func registerKeyAPI(on router: Router<AppRequestContext>) {
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
            } catch let failure as OperatorError {
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
            } catch OperatorError.noSuchKey {
                throw APIError(status: .notFound, code: .noSuchKey)
            }
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        }
    }
}
