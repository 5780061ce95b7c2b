import SQLKit

/// The `deferred_links` table: one-time tokens (stored as keyed hashes) for a link's code. The only place its SQL is
/// written; issuing and redeeming are the server's `DeferredLinks`.
package struct DeferredLinkStore: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    package func insert(tokenHash: String, code: String, expiresAt: Int64) async throws {
        try await database.withConnection { sql in
            try await sql.raw(
                "INSERT INTO deferred_links (token_hash, code, expires_at) VALUES (\(bind: tokenHash), \(bind: code), \(bind: expiresAt))"
            ).run()
        }
    }

    /// Deletes the token stored as `tokenHash` and returns its code and expiry, in one statement (two redemptions at
    /// once cannot both succeed), on the caller's transaction; nil when there is none.
    package static func take(tokenHash: String, on sql: DatabaseConnection) async throws -> (
        code: String, expiresAt: Int64
    )? {
        guard
            let row = try await sql.raw(
                "DELETE FROM deferred_links WHERE token_hash = \(bind: tokenHash) RETURNING code, expires_at"
            ).first()
        else { return nil }
        return (try row.decode(column: "code", as: String.self), try row.decode(column: "expires_at", as: Int64.self))
    }
}
