import SQLKit

/// The session tables: `sessions` (the app's accounts) and `console_sessions` (console operators), the same shape
/// (a token's digest, its owner, when it was created and last used). The only place their SQL is written; the
/// rules (lifetimes, digests, when a use is recorded) are the server's `Sessions`, one for both.
package struct SessionStore: Sendable {
    package enum Table: Sendable {
        /// `sessions`, owned by `accounts`.
        case accounts
        /// `console_sessions`, owned by `operators`.
        case console

        var name: SQLQueryString { self == .accounts ? "sessions" : "console_sessions" }
        var owner: SQLQueryString { self == .accounts ? "account_id" : "operator_id" }
    }

    /// A session found by its digest.
    package struct Found: Record {
        package let owner: Int64
        /// The digest as stored (compared again by the caller in constant time).
        package let digest: String
        /// The last recorded use, or the creation when there is none.
        package let usedAt: Int64

        /// The columns (as the decoder reads them, in camel case) of the fields named otherwise.
        enum CodingKeys: String, CodingKey {
            case owner, digest = "tokenHash", usedAt
        }
    }

    package let database: Database
    package let table: Table

    package init(database: Database, table: Table) {
        self.database = database
        self.table = table
    }

    package func insert(digest: String, owner: Int64, now: Int64) async throws {
        try await database.withConnection { sql in
            try await sql.raw(
                """
                INSERT INTO \(table.name) (token_hash, \(table.owner), created_at, last_used_at)
                VALUES (\(bind: digest), \(bind: owner), \(bind: now), \(bind: now))
                """
            ).run()
        }
    }

    /// The session stored under one of `digests`, created after `createdAfter` and last used after `usedAfter`.
    package func find(digests: [String], createdAfter: Int64, usedAfter: Int64) async throws -> Found? {
        let row = try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT \(table.owner) AS owner, token_hash, COALESCE(last_used_at, created_at) AS used_at
                FROM \(table.name)
                WHERE token_hash IN (\(binds: digests)) AND created_at > \(bind: createdAfter)
                  AND COALESCE(last_used_at, created_at) > \(bind: usedAfter)
                """
            ).first()
        }
        guard let row else { return nil }
        return try row.record(Found.self)
    }

    package func recordUse(digest: String, at now: Int64) async throws {
        try await database.withConnection { sql in
            try await sql.raw("UPDATE \(table.name) SET last_used_at = \(bind: now) WHERE token_hash = \(bind: digest)")
                .run()
        }
    }

    package func delete(digests: [String]) async throws {
        try await database.withConnection { sql in
            try await sql.raw("DELETE FROM \(table.name) WHERE token_hash IN (\(binds: digests))").run()
        }
    }

    /// Ends every session of `owner` but the one stored as `kept`, on the caller's connection (inside its
    /// transaction: a password change, a reset, an operator's removal).
    package static func deleteAll(
        _ table: Table,
        owner: Int64,
        keeping kept: String? = nil,
        on sql: DatabaseConnection
    ) async throws {
        let keep: SQLQueryString = kept.map { "AND token_hash <> \(bind: $0)" } ?? ""
        try await sql.raw("DELETE FROM \(table.name) WHERE \(table.owner) = \(bind: owner) \(keep)").run()
    }
}
