import Crypto
import DeepLinks
import DeepLinksJSON
import DeepLinksQR
import DeepLinksSupport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// API keys: the console page (`/v1/keys` is ``KeysAPIController``).
extension ConsoleRoutes {
    func registerKeys(on router: Router<AppRequestContext>) {
        group(router, .admin)
            .get("/console/keys", use: keysPage)
            .post("/console/keys", use: createKey)
            .post("/console/keys/:id/revoke", use: revokeKey)
    }

    @Sendable func keysPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.viewer()
        return try await keysPage(.ok, viewer: viewer)
    }

    @Sendable func createKey(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await form(request, context) { viewer, fields in
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

    @Sendable func revokeKey(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await form(request, context) { viewer, _ in
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
}
