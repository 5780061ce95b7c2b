import SQLKit

/// The reset tables: `password_resets` (live reset links, stored as token hashes) and `reset_requests` (the queue of
/// requests and their daily caps).
///
/// Begun in #34: the queries outside the reset service live here; `PasswordResetService` still writes its own SQL
/// for both tables, to be moved here next.
package struct PasswordResetStore: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// Whether the reset link stored as `tokenHash` is still live at `now` (not superseded, used or expired).
    package func isLive(tokenHash: String, now: Int64) async throws -> Bool {
        try await database.withConnection { sql in
            try await sql.raw(
                "SELECT id FROM password_resets WHERE token_hash = \(bind: tokenHash) AND expires_at > \(bind: now)"
            ).first()
        } != nil
    }

    /// Reset mails sent to addresses without an account since `since` (the hourly budget's spending).
    package func mailsToNewAccounts(since: Int64) async throws -> Int {
        let row = try await database.withConnection { sql in
            try await sql.raw(
                "SELECT COUNT(*) AS n FROM reset_requests WHERE mailed = \(bind: true) AND new_account = \(bind: true) AND received_at > \(bind: since)"
            ).first()
        }
        return try row?.decode(column: "n", as: Int.self) ?? 0
    }

    /// Deletes every reset link of `accountID`, on the caller's transaction.
    package static func deleteAll(of accountID: Int64, on sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM password_resets WHERE account_id = \(bind: accountID)").run()
    }
}
