import SQLKit

/// The app's accounts (`accounts`) and their audit trail (`audit_events`), when the server keeps them itself. The
/// only place the account service's SQL is written; the reset service's queries on these tables are still its own
/// (see `PasswordResetStore`).
package struct AccountStore: Sendable {
    package struct AccountRow: Sendable {
        package let id: Int64
        package let email: String
        package let display: String
    }

    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// Inserts an account; nil when the address is taken.
    package func insert(email: String, display: String, passwordHash: String, at now: Int64) async throws -> Int64? {
        let row = try await database.withConnection { sql in
            try await sql.raw(
                """
                INSERT INTO accounts (email, email_display, password_hash, created_at)
                VALUES (\(bind: email), \(bind: display), \(bind: passwordHash), \(bind: now))
                ON CONFLICT (email) DO NOTHING RETURNING id
                """
            ).first()
        }
        return try row?.decode(column: "id", as: Int64.self)
    }

    /// The enabled account with `email` and its password hash.
    package func credential(email: String) async throws -> (id: Int64, passwordHash: String)? {
        let row = try await database.withConnection { sql in
            try await sql.raw(
                "SELECT id, password_hash FROM accounts WHERE email = \(bind: email) AND disabled = \(bind: false)"
            ).first()
        }
        guard let row else { return nil }
        return (try row.decode(column: "id", as: Int64.self), try row.decode(column: "password_hash", as: String.self))
    }

    package func passwordHash(of id: Int64) async throws -> String? {
        try await database.withConnection { sql in
            try await sql.raw("SELECT password_hash FROM accounts WHERE id = \(bind: id)").first()
        }?.decode(column: "password_hash", as: String.self)
    }

    /// The enabled account `id`.
    package func find(id: Int64) async throws -> AccountRow? {
        let row = try await database.withConnection { sql in
            try await sql.raw(
                "SELECT id, email, email_display FROM accounts WHERE id = \(bind: id) AND disabled = \(bind: false)"
            ).first()
        }
        return try row.map(Self.accountRow)
    }

    package static func find(email: String, on sql: DatabaseConnection) async throws -> AccountRow? {
        try await sql.raw("SELECT id, email, email_display FROM accounts WHERE email = \(bind: email)").first()
            .map(accountRow)
    }

    /// Sets a new password hash and bumps the credential generation (which kills any reset link in flight).
    package static func setPassword(_ id: Int64, hash: String, on sql: DatabaseConnection) async throws {
        try await sql.raw(
            "UPDATE accounts SET password_hash = \(bind: hash), credential_generation = credential_generation + 1 WHERE id = \(bind: id)"
        ).run()
    }

    /// Whether `account` has an `event` after `since`.
    package static func hasEvent(_ event: String, account: Int64, since: Int64, on sql: DatabaseConnection) async throws
        -> Bool
    {
        try await sql.raw(
            "SELECT 1 FROM audit_events WHERE event = \(bind: event) AND account_id = \(bind: account) AND at > \(bind: since)"
        ).first() != nil
    }

    /// Adds an audit event (the client's address as a keyed hash, its user agent cut short by the caller).
    package static func audit(
        _ event: String,
        account: Int64?,
        ipHash: String? = nil,
        userAgent: String? = nil,
        at now: Int64,
        on sql: DatabaseConnection
    ) async throws {
        try await sql.raw(
            "INSERT INTO audit_events (event, account_id, ip_hash, user_agent, at) VALUES (\(bind: event), \(bind: account), \(bind: ipHash), \(bind: userAgent), \(bind: now))"
        ).run()
    }

    private static func accountRow(_ row: any SQLRow) throws -> AccountRow {
        AccountRow(
            id: try row.decode(column: "id", as: Int64.self),
            email: try row.decode(column: "email", as: String.self),
            display: try row.decode(column: "email_display", as: String.self)
        )
    }
}
