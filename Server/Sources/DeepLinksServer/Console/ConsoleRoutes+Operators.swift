import Crypto
import DeepLinks
import DeepLinksQR
import DeepLinksSupport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Operators: add, remove, change a role (never yourself, never the last admin).
extension ConsoleRoutes {
    func registerOperators(on router: Router<AppRequestContext>) {
        group(router, .admin)
            .post("/console/operators", use: addOperator)
            .post("/console/operators/remove", use: removeOperator)
            .post("/console/operators/role", use: changeRole)
    }

    @Sendable func addOperator(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await form(request, context) { viewer, fields in
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
            } catch let failure as OperatorError {
                return try await keysPage(.unprocessableContent, viewer: viewer, error: "\(failure)")
            }
            return Self.redirect("/console/keys")
        }
    }

    @Sendable func removeOperator(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await form(request, context) { viewer, fields in
            try await changeOperator(fields["email"], by: viewer, yourself: "You cannot remove yourself.") {
                try await operators.remove(email: $0, by: viewer.signedIn.email)
            }
        }
    }

    /// A new role for an operator; lowering it lowers their keys.
    @Sendable func changeRole(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await form(request, context) { viewer, fields in
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
        } catch let failure as OperatorError {
            return try await keysPage(
                failure == .lastAdmin ? .conflict : .notFound,
                viewer: viewer,
                error: "\(failure)"
            )
        }
        return Self.redirect("/console/keys")
    }
}
