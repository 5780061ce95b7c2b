import SQLKit

/// The app's accounts (`accounts`) and their audit trail (`audit_events`): the one store that writes `accounts`, for
/// the account service and the reset journey alike (the reset journey's reads are `PasswordResetStore`'s).
package struct AccountStore: Sendable {
    package struct AccountRow: Record {
        package let id: Int64
        package let email: String
        package let display: String

        /// The columns (as the decoder reads them, in camel case) of the fields named otherwise.
        enum CodingKeys: String, CodingKey {
            case id, email, display = "emailDisplay"
        }
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

    /// Marks account `id` used (someone signed in to it), once: a used account is never pruned.
    package func markUsed(_ id: Int64, at now: Int64) async throws {
        try await database.withConnection { sql in try await Self.markUsed(id, at: now, on: sql) }
    }

    package static func markUsed(_ id: Int64, at now: Int64, on sql: DatabaseConnection) async throws {
        try await sql.raw("UPDATE accounts SET used_at = \(bind: now) WHERE id = \(bind: id) AND used_at IS NULL").run()
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
        try row.record(AccountRow.self)
    }
}

// MARK: Credentials, as the reset journey changes them

extension AccountStore {
    /// External accounts: the row of the backend's user `subject`, now at `email`. A row another subject had for
    /// the address goes; an address change moves the credential generation (ending the subject's earlier links).
    package static func recordSubject(_ subject: String, email: String, display: String, on sql: DatabaseConnection)
        async throws -> PasswordResetStore.ResetAccount
    {
        try await sql.raw(
            "DELETE FROM accounts WHERE email = \(bind: email) AND (subject IS NULL OR subject <> \(bind: subject))"
        ).run()
        let row = try await sql.raw(
            """
            INSERT INTO accounts (email, email_display, password_hash, subject, created_at)
            VALUES (\(bind: email), \(bind: display), '', \(bind: subject), 0)
            ON CONFLICT (subject) DO UPDATE SET
              credential_generation = CASE WHEN accounts.email = excluded.email
                THEN accounts.credential_generation ELSE accounts.credential_generation + 1 END,
              email = excluded.email, email_display = excluded.email_display, disabled = \(bind: false)
            RETURNING id, email, email_display, credential_generation, created_at
            """
        ).first()
        guard let row else { throw DatabaseError.unexpectedAnswer("the account's upsert returned no row") }
        return try PasswordResetStore.resetAccount(row)
    }

    package static func deleteAccount(email: String, on sql: DatabaseConnection) async throws {
        try await sql.raw("DELETE FROM accounts WHERE email = \(bind: email)").run()
    }

    /// Moves the credential generation of account `id` (setting `passwordHash` when given), only if it is still at
    /// `generation` and `email` and enabled: false otherwise.
    package static func changeCredentials(
        of id: Int64,
        from generation: Int64,
        email: String,
        passwordHash: String?,
        on sql: DatabaseConnection
    ) async throws -> Bool {
        let password: SQLQueryString = passwordHash.map { "password_hash = \(bind: $0)," } ?? ""
        return try await sql.raw(
            """
            UPDATE accounts SET \(password) credential_generation = credential_generation + 1
            WHERE id = \(bind: id) AND credential_generation = \(bind: generation)
              AND email = \(bind: email) AND disabled = \(bind: false) RETURNING id
            """
        ).all().count == 1
    }

    package static func moveGeneration(of id: Int64, on sql: DatabaseConnection) async throws {
        try await sql.raw(
            "UPDATE accounts SET credential_generation = credential_generation + 1 WHERE id = \(bind: id)"
        ).run()
    }

    /// Moves the credential generation of the backend's user `subject`; the ids of its rows.
    package static func moveGeneration(ofSubject subject: String, on sql: DatabaseConnection) async throws -> [Int64] {
        try await sql.raw(
            "UPDATE accounts SET credential_generation = credential_generation + 1 WHERE subject = \(bind: subject) RETURNING id"
        ).all().map { try $0.decode(column: "id", as: Int64.self) }
    }
}
