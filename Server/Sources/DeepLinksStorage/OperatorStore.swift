import SQLKit

/// The console's tables: `operators`, `operator_devices`, `api_keys` and `console_audit` (sessions are
/// ``SessionStore``'s). The only place their SQL is written; the rules (who may do what, the last admin, keys never
/// above their operator) are the server's `Operators`. Roles are their raw values here.
package struct OperatorStore: Sendable {
    package struct OperatorRow: Record {
        package let id: Int64
        package let email: String
        package let role: String
    }

    package struct KeyRow: Record {
        package let id: Int64
        package let name: String
        package let role: String
        package let prefix: String
        package let createdAt: Int64
        package let createdBy: String?
        package let lastUsedAt: Int64?
        package let revokedAt: Int64?
        package let note: String?
    }

    /// A live key found by its hash, with its operator's role and address (nil for a key no operator made; an
    /// `operatorRole` of nil with an `operatorID` means the operator is gone).
    package struct LiveKey: Record {
        package let id: Int64
        package let role: String
        package let lastUsedAt: Int64?
        package let operatorID: Int64?
        package let operatorRole: String?
        package let operatorEmail: String?

        enum CodingKeys: String, CodingKey {
            case id, role, lastUsedAt, operatorID = "operatorId", operatorRole, operatorEmail
        }
    }

    package struct AuditRow: Record {
        package let at: Int64
        package let actor: String
        package let event: String
        package let detail: String
    }

    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    // MARK: Operators

    /// Inserts an operator; nil when the address is taken.
    package func insert(email: String, passwordHash: String, role: String, at now: Int64) async throws -> Int64? {
        let row = try await database.withConnection { sql in
            try await sql.raw(
                """
                INSERT INTO operators (email, password_hash, role, created_at)
                VALUES (\(bind: email), \(bind: passwordHash), \(bind: role), \(bind: now))
                ON CONFLICT (email) DO NOTHING RETURNING id
                """
            ).first()
        }
        return try row?.decode(column: "id", as: Int64.self)
    }

    package func all() async throws -> [OperatorRow] {
        try await database.withConnection { sql in
            try await sql.raw("SELECT id, email, role FROM operators ORDER BY email").all()
        }.map(Self.operatorRow)
    }

    package func find(id: Int64) async throws -> OperatorRow? {
        try await database.withConnection { sql in
            try await sql.raw("SELECT id, email, role FROM operators WHERE id = \(bind: id)").first()
        }.map(Self.operatorRow)
    }

    /// The operator with `email` and their password hash.
    package func credential(email: String) async throws -> (OperatorRow, passwordHash: String)? {
        let row = try await database.withConnection { sql in
            try await sql.raw("SELECT id, email, role, password_hash FROM operators WHERE email = \(bind: email)")
                .first()
        }
        guard let row else { return nil }
        return (try Self.operatorRow(row), try row.decode(column: "password_hash", as: String.self))
    }

    package static func find(email: String, on sql: DatabaseConnection) async throws -> OperatorRow? {
        try await sql.raw("SELECT id, email, role FROM operators WHERE email = \(bind: email)").first()
            .map(operatorRow)
    }

    /// Locks the rows of every operator with `role` until the transaction ends, in id order (two transactions never
    /// wait on each other crosswise), so that a check made after it sees what a concurrent change committed: two
    /// admins removing or demoting each other at once cannot both see the other still there. On PostgreSQL; SQLite's
    /// write transactions (`BEGIN IMMEDIATE`) already run one at a time.
    package static func lock(role: String, on sql: DatabaseConnection) async throws {
        guard sql.dialect.name == "postgresql" else { return }
        _ = try await sql.raw("SELECT id FROM operators WHERE role = \(bind: role) ORDER BY id FOR UPDATE").all()
    }

    /// Whether an operator other than `id` has `role`.
    package static func another(_ role: String, than id: Int64, on sql: DatabaseConnection) async throws -> Bool {
        try await sql.raw("SELECT id FROM operators WHERE role = \(bind: role) AND id <> \(bind: id)").first() != nil
    }

    /// Deletes an operator and their devices (their sessions are ``SessionStore``'s, their keys revoked apart).
    package static func delete(_ id: Int64, on sql: DatabaseConnection) async throws {
        try await sql.raw("DELETE FROM operators WHERE id = \(bind: id)").run()
        try await sql.raw("DELETE FROM operator_devices WHERE operator_id = \(bind: id)").run()
    }

    package static func setRole(_ id: Int64, to role: String, on sql: DatabaseConnection) async throws {
        try await sql.raw("UPDATE operators SET role = \(bind: role) WHERE id = \(bind: id)").run()
    }

    // MARK: Sign-in devices

    package func insertDevice(tokenHash: String, operatorID: Int64, at now: Int64) async throws {
        try await database.withConnection { sql in
            try await sql.raw(
                """
                INSERT INTO operator_devices (token_hash, operator_id, created_at)
                VALUES (\(bind: tokenHash), \(bind: operatorID), \(bind: now))
                """
            ).run()
        }
    }

    /// Whether a device stored as `tokenHash`, created after `createdAfter`, belongs to the operator with `email`.
    package func isDevice(tokenHash: String, of email: String, createdAfter: Int64) async throws -> Bool {
        try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT 1 AS known FROM operator_devices d JOIN operators o ON o.id = d.operator_id
                WHERE d.token_hash = \(bind: tokenHash) AND o.email = \(bind: email) AND d.created_at > \(bind: createdAfter)
                """
            ).first()
        } != nil
    }

    // MARK: API keys

    /// Inserts a key (its hash only); returns its id.
    package func insertKey(
        name: String,
        role: String,
        prefix: String,
        keyHash: String,
        at now: Int64,
        createdBy: String?,
        operatorID: Int64?
    ) async throws -> Int64 {
        let row = try await database.withConnection { sql in
            try await sql.raw(
                """
                INSERT INTO api_keys (name, role, prefix, key_hash, created_at, created_by, operator_id)
                VALUES (\(bind: name), \(bind: role), \(bind: prefix), \(bind: keyHash), \(bind: now), \(bind: createdBy), \(bind: operatorID))
                RETURNING id
                """
            ).first()
        }
        guard let id = try row?.decode(column: "id", as: Int64.self) else {
            throw DatabaseError.unexpectedAnswer("the key's insert returned no id")
        }
        return id
    }

    package func keys() async throws -> [KeyRow] {
        let rows = try await database.withConnection { sql in
            try await sql.raw(
                "SELECT id, name, role, prefix, created_at, created_by, last_used_at, revoked_at, note FROM api_keys ORDER BY id"
            ).all()
        }
        return try rows.map { try $0.record() }
    }

    /// Revokes a key (kept revoked at its first revocation); its prefix, or nil when there is no such key.
    package static func revokeKey(_ id: Int64, at now: Int64, on sql: DatabaseConnection) async throws -> String? {
        try await sql.raw(
            "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, \(bind: now)) WHERE id = \(bind: id) RETURNING prefix"
        ).first()?.decode(column: "prefix", as: String.self)
    }

    /// Revokes every live key of an operator, with `note`; their prefixes.
    package static func revokeKeys(of operatorID: Int64, at now: Int64, note: String, on sql: DatabaseConnection)
        async throws -> [String]
    {
        try await sql.raw(
            """
            UPDATE api_keys SET revoked_at = \(bind: now), note = \(bind: note)
            WHERE operator_id = \(bind: operatorID) AND revoked_at IS NULL RETURNING prefix
            """
        ).all().map { try $0.decode(column: "prefix", as: String.self) }
    }

    /// Sets the role of an operator's live keys that have `role` to `lowered`, with `note`; their prefixes.
    package static func lowerKeys(
        of operatorID: Int64,
        from role: String,
        to lowered: String,
        note: String,
        on sql: DatabaseConnection
    ) async throws -> [String] {
        try await sql.raw(
            """
            UPDATE api_keys SET role = \(bind: lowered), note = \(bind: note)
            WHERE operator_id = \(bind: operatorID) AND revoked_at IS NULL AND role = \(bind: role)
            RETURNING prefix
            """
        ).all().map { try $0.decode(column: "prefix", as: String.self) }
    }

    /// The live (not revoked) key stored as `keyHash`, with its operator.
    package func liveKey(hash keyHash: String) async throws -> LiveKey? {
        let row = try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT k.id, k.role, k.last_used_at, k.operator_id, o.role AS operator_role, o.email AS operator_email
                FROM api_keys k LEFT JOIN operators o ON o.id = k.operator_id
                WHERE k.key_hash = \(bind: keyHash) AND k.revoked_at IS NULL
                """
            ).first()
        }
        return try row?.record()
    }

    package func recordKeyUse(_ id: Int64, at now: Int64) async throws {
        try await database.withConnection { sql in
            try await sql.raw("UPDATE api_keys SET last_used_at = \(bind: now) WHERE id = \(bind: id)").run()
        }
    }

    // MARK: Audit

    package static func audit(
        at now: Int64,
        actor: String,
        event: String,
        detail: String,
        on sql: DatabaseConnection
    ) async throws {
        try await sql.raw(
            """
            INSERT INTO console_audit (at, actor, event, detail)
            VALUES (\(bind: now), \(bind: actor), \(bind: event), \(bind: detail))
            """
        ).run()
    }

    /// The newest `limit` events first.
    package func auditEvents(limit: Int) async throws -> [AuditRow] {
        try await database.withConnection { sql in
            try await sql.raw(
                "SELECT at, actor, event, detail FROM console_audit ORDER BY id DESC LIMIT \(bind: limit)"
            ).all()
        }.map { try $0.record() }
    }

    private static func operatorRow(_ row: any SQLRow) throws -> OperatorRow { try row.record() }
}
