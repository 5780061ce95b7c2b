import AppSiteAssociation
import Crypto
import DeepLinksStorage
import DeepLinksSupport
import Foundation
import SQLKit
import Synchronization

/// The people who sign in to the console (`operators`, apart from the app's own accounts: an app user never
/// gets a console role by signing up), their sessions, and the scoped API keys. Secrets (session tokens, API
/// keys) are 256 random bits, stored only as their SHA-256: a database copy holds nothing that signs in, and
/// `deeplinks operators` and `deeplinks keys` need no server key to write them.
public struct Operators: Sendable {
    let database: Database
    let clock: WallClock

    public init(database: Database, clock: WallClock = .system) {
        self.database = database
        self.clock = clock
    }

    /// A console session ends after this long unused, and this long after sign-in whatever its use.
    static let sessionIdleMilliseconds: Int64 = 12 * 3_600_000
    static let sessionLifetimeMilliseconds: Int64 = 7 * 86_400_000

    public struct Operator: Sendable, Equatable {
        public let id: Int64
        public let email: String
        public let role: OperatorRole
    }

    public enum Failure: Error, CustomStringConvertible, Equatable {
        case invalidEmail(String)
        case weakPassword([String])
        case taken
        case noSuchOperator
        case noSuchKey
        case invalidName
        case lastAdmin

        public var description: String {
            switch self {
            case .invalidEmail(let reason): "not an email address (\(reason))"
            case .weakPassword(let reasons): "the password is too weak: \(reasons.joined(separator: ", "))"
            case .taken: "an operator with this address exists"
            case .noSuchOperator: "no operator has this address"
            case .noSuchKey: "no API key has this id"
            case .invalidName: "a key's name is 1 to 80 printable characters"
            case .lastAdmin: "this is the last admin: make another operator an admin first"
            }
        }
    }

    // MARK: Operators

    /// Adds an operator; the password must pass the reset journey's policy.
    public func create(
        email submitted: String,
        password: String,
        role: OperatorRole,
        hasher: PasswordHasher,
        by actor: String = "cli"
    ) async throws -> Operator {
        let email: EmailAddress
        do {
            email = try EmailAddress(submitted)
        } catch {
            throw Failure.invalidEmail(error.rawValue)
        }
        let problems = PasswordPolicy().problems(password, email: email.normalized)
        guard problems.isEmpty else { throw Failure.weakPassword(problems.map(\.rawValue)) }
        let hash = try await hasher.hash(password)
        let row = try await database.withConnection { sql in
            try await sql.raw(
                """
                INSERT INTO operators (email, password_hash, role, created_at)
                VALUES (\(bind: email.normalized), \(bind: hash), \(bind: role.rawValue), \(bind: clock.milliseconds()))
                ON CONFLICT (email) DO NOTHING RETURNING id
                """
            ).first()
        }
        guard let id = try row?.decode(column: "id", as: Int64.self) else { throw Failure.taken }
        try await database.withConnection { sql in
            try await Self.audit(
                sql,
                clock.milliseconds(),
                actor,
                "operator.added",
                "\(email.normalized) (\(role.rawValue))"
            )
        }
        return Operator(id: id, email: email.normalized, role: role)
    }

    public func list() async throws -> [Operator] {
        try await database.withConnection { sql in
            try await sql.raw("SELECT id, email, role FROM operators ORDER BY email").all()
        }.map(Self.operatorRow)
    }

    /// Removes an operator: ends their sessions, forgets their sign-in devices and revokes every API key they made
    /// (a key belongs to whoever made it). The last admin is never removed. `by` is who did it, for the audit.
    public func remove(email submitted: String, by actor: String) async throws {
        let email = Self.normalized(submitted)
        let now = clock.milliseconds()
        try await database.transaction { sql in
            guard let target = try await Self.operatorNamed(email, sql) else { throw Failure.noSuchOperator }
            if target.role == .admin { try await Self.requireAnotherAdmin(than: target.id, sql) }
            try await sql.raw("DELETE FROM operators WHERE id = \(bind: target.id)").run()
            try await SessionStore.deleteAll(.console, owner: target.id, on: sql)
            try await sql.raw("DELETE FROM operator_devices WHERE operator_id = \(bind: target.id)").run()
            let note = "revoked: \(email) was removed by \(actor)"
            let revoked = try await sql.raw(
                """
                UPDATE api_keys SET revoked_at = \(bind: now), note = \(bind: note)
                WHERE operator_id = \(bind: target.id) AND revoked_at IS NULL RETURNING prefix
                """
            ).all().map { try $0.decode(column: "prefix", as: String.self) }
            try await Self.audit(sql, now, actor, "operator.removed", "\(email) (\(target.role.rawValue))")
            for prefix in revoked.sorted() {
                try await Self.audit(sql, now, actor, "key.revoked", "\(prefix)… of \(email): its operator was removed")
            }
        }
    }

    /// Gives an operator another role. Lowering it lowers their API keys to the new role (a key never does more
    /// than its operator may); the last admin is never demoted.
    public func setRole(email submitted: String, to role: OperatorRole, by actor: String) async throws {
        let email = Self.normalized(submitted)
        let now = clock.milliseconds()
        try await database.transaction { sql in
            guard let target = try await Self.operatorNamed(email, sql) else { throw Failure.noSuchOperator }
            guard target.role != role else { return }
            if target.role == .admin { try await Self.requireAnotherAdmin(than: target.id, sql) }
            try await sql.raw("UPDATE operators SET role = \(bind: role.rawValue) WHERE id = \(bind: target.id)").run()
            try await Self.audit(
                sql,
                now,
                actor,
                "operator.role",
                "\(email): \(target.role.rawValue) → \(role.rawValue)"
            )
            for higher in OperatorRole.allCases where higher > role {
                let note = "lowered from \(higher.rawValue): \(email) became \(role.rawValue) (\(actor))"
                let lowered = try await sql.raw(
                    """
                    UPDATE api_keys SET role = \(bind: role.rawValue), note = \(bind: note)
                    WHERE operator_id = \(bind: target.id) AND revoked_at IS NULL AND role = \(bind: higher.rawValue)
                    RETURNING prefix
                    """
                ).all().map { try $0.decode(column: "prefix", as: String.self) }
                for prefix in lowered.sorted() {
                    try await Self.audit(
                        sql,
                        now,
                        actor,
                        "key.lowered",
                        "\(prefix)… of \(email): \(higher.rawValue) → \(role.rawValue), its operator's role"
                    )
                }
            }
        }
    }

    /// An address as operators are stored: normalized where it is an address at all.
    static func normalized(_ submitted: String) -> String {
        (try? EmailAddress(submitted).normalized) ?? submitted.lowercased()
    }

    private static func operatorNamed(_ email: String, _ sql: any SQLDatabase) async throws -> Operator? {
        try await sql.raw("SELECT id, email, role FROM operators WHERE email = \(bind: email)").first()
            .map(operatorRow)
    }

    private static func requireAnotherAdmin(than id: Int64, _ sql: any SQLDatabase) async throws {
        let other = try await sql.raw(
            "SELECT id FROM operators WHERE role = \(bind: OperatorRole.admin.rawValue) AND id <> \(bind: id)"
        ).first()
        guard other != nil else { throw Failure.lastAdmin }
    }

    // MARK: Audit

    /// One line of the console's audit: who (`actor`, an operator's address, `cli` or `api`) did what.
    public struct AuditEvent: Sendable, Equatable {
        public let at: Int64
        public let actor: String
        public let event: String
        public let detail: String
    }

    static func audit(
        _ sql: any SQLDatabase,
        _ now: Int64,
        _ actor: String,
        _ event: String,
        _ detail: String
    ) async throws {
        try await sql.raw(
            """
            INSERT INTO console_audit (at, actor, event, detail)
            VALUES (\(bind: now), \(bind: actor), \(bind: event), \(bind: detail))
            """
        ).run()
    }

    /// The newest events first.
    public func auditEvents(limit: Int = 50) async throws -> [AuditEvent] {
        try await database.withConnection { sql in
            try await sql.raw(
                "SELECT at, actor, event, detail FROM console_audit ORDER BY id DESC LIMIT \(bind: limit)"
            ).all()
        }.map { row in
            AuditEvent(
                at: try row.decode(column: "at", as: Int64.self),
                actor: try row.decode(column: "actor", as: String.self),
                event: try row.decode(column: "event", as: String.self),
                detail: try row.decode(column: "detail", as: String.self)
            )
        }
    }

    /// A hash every failed sign-in verifies against when the address is unknown, so that the time taken does not
    /// tell who is an operator.
    private static let decoy = Mutex<String?>(nil)

    /// The operator whose address and password these are, or nil (after the same work either way).
    func verify(email submitted: String, password: String, hasher: PasswordHasher) async throws -> Operator? {
        let email = (try? EmailAddress(submitted).normalized) ?? ""
        let row = try await database.withConnection { sql in
            try await sql.raw("SELECT id, email, role, password_hash FROM operators WHERE email = \(bind: email)")
                .first()
        }
        guard let row else {
            let decoy = try await Self.decoyHash(hasher)
            _ = await hasher.verify(password, against: decoy)
            return nil
        }
        let hash = try row.decode(column: "password_hash", as: String.self)
        guard await hasher.verify(password, against: hash) else { return nil }
        return try Self.operatorRow(row)
    }

    private static func decoyHash(_ hasher: PasswordHasher) async throws -> String {
        if let hash = decoy.withLock({ $0 }) { return hash }
        let hash = try await hasher.hash(Base64URL.encode(SecureBytes.random(count: 16)))
        decoy.withLock { $0 = hash }
        return hash
    }

    private static func operatorRow(_ row: any SQLRow) throws -> Operator {
        Operator(
            id: try row.decode(column: "id", as: Int64.self),
            email: try row.decode(column: "email", as: String.self),
            role: OperatorRole(rawValue: try row.decode(column: "role", as: String.self)) ?? .viewer
        )
    }

    // MARK: Sign-in devices

    /// A browser an operator signed in from keeps a device cookie this long; its sign-ins are throttled on their own
    /// bucket, so a stranger's wrong passwords for the address never lock it out.
    static let deviceLifetimeMilliseconds: Int64 = 90 * 86_400_000

    /// A new device token for the browser `signedIn` just signed in from (stored as its hash only).
    func rememberDevice(of signedIn: Operator) async throws -> String {
        let token = Base64URL.encode(SecureBytes.random(count: 32))
        try await database.withConnection { sql in
            try await sql.raw(
                """
                INSERT INTO operator_devices (token_hash, operator_id, created_at)
                VALUES (\(bind: Self.digest(token)), \(bind: signedIn.id), \(bind: clock.milliseconds()))
                """
            ).run()
        }
        return token
    }

    /// Whether `token` is a live device cookie of the operator with this address.
    func isDevice(_ token: String, of submitted: String) async throws -> Bool {
        guard token.utf8.count < 100 else { return false }
        let row = try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT 1 AS known FROM operator_devices d JOIN operators o ON o.id = d.operator_id
                WHERE d.token_hash = \(bind: Self.digest(token)) AND o.email = \(bind: Self.normalized(submitted))
                  AND d.created_at > \(bind: clock.milliseconds() - Self.deviceLifetimeMilliseconds)
                """
            ).first()
        }
        return row != nil
    }

    /// The name of the per-address sign-in bucket (``SharedRateLimiter``), which only wrong passwords from browsers
    /// the operator never signed in from take from.
    static let signInAddressBucket = "console-sign-in-address"

    /// `deeplinks operators unlock`: refills the sign-in bucket of an address, so that its owner can sign in from a
    /// new browser at once after a stranger's wrong passwords emptied it.
    public func unlock(email submitted: String) async throws {
        let email = Self.normalized(submitted)
        try await database.withConnection { sql in
            try await sql.raw("DELETE FROM rate_limits WHERE key = \(bind: "\(Self.signInAddressBucket):\(email)")")
                .run()
        }
    }

    // MARK: Sessions

    /// Console sessions (``Sessions``): their tokens are stored as SHA-256 digests.
    var sessions: Sessions {
        Sessions(
            store: SessionStore(database: database, table: .console),
            clock: clock,
            idle: Self.sessionIdleMilliseconds,
            lifetime: Self.sessionLifetimeMilliseconds,
            digests: { [Self.digest($0)] }
        )
    }

    /// A new session for `signedIn`: the token for the cookie.
    func startSession(_ signedIn: Operator) async throws -> String {
        try await sessions.start(owner: signedIn.id)
    }

    /// The operator of a live session, whose use this records; nil for an unknown, idle or old token.
    func session(_ token: String) async throws -> Operator? {
        guard let id = try await sessions.owner(of: token) else { return nil }
        return try await database.withConnection { sql in
            try await sql.raw("SELECT id, email, role FROM operators WHERE id = \(bind: id)").first()
        }.map(Self.operatorRow)
    }

    func endSession(_ token: String) async throws {
        try await sessions.end(token)
    }

    // MARK: API keys

    public struct APIKey: Sendable {
        public let id: Int64
        public let name: String
        public let role: OperatorRole
        /// The key's first characters (`dlk_AbCd1234`), to tell keys apart; never the key.
        public let prefix: String
        public let createdAt: Int64
        public let createdBy: String?
        public let lastUsedAt: Int64?
        public let revokedAt: Int64?
        /// Why the key was revoked or lowered by a change to its operator, if it was.
        public let note: String?
    }

    /// Who a live key speaks for: its id, its role now (never above its operator's), and its operator, if an
    /// operator made it (keys made by `deeplinks keys create` or with `DEEPLINKS_ADMIN_KEY` have none).
    struct KeyHolder: Sendable, Equatable {
        let keyID: Int64
        let role: OperatorRole
        let operatorID: Int64?
        let operatorEmail: String?
    }

    /// The marker every scoped key starts with (secret scanners can look for it).
    static let keyPrefix = "dlk_"

    /// A new key with `role`, owned by the operator `ownerID` when an operator made it: the key itself is returned
    /// once, here, and never stored.
    public func createKey(name: String, role: OperatorRole, createdBy: String?, ownerID: Int64? = nil)
        async throws -> (APIKey, String)
    {
        let name = name.trimmingCharacters(in: .whitespaces)
        guard (1...80).contains(name.count),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw Failure.invalidName }
        let secret = Self.keyPrefix + Base64URL.encode(SecureBytes.random(count: 32))
        let prefix = String(secret.prefix(Self.keyPrefix.count + 8))
        let now = clock.milliseconds()
        let row = try await database.withConnection { sql in
            try await sql.raw(
                """
                INSERT INTO api_keys (name, role, prefix, key_hash, created_at, created_by, operator_id)
                VALUES (\(bind: name), \(bind: role.rawValue), \(bind: prefix), \(bind: Self.digest(secret)), \(bind: now), \(bind: createdBy), \(bind: ownerID))
                RETURNING id
                """
            ).first()
        }
        let id = try row?.decode(column: "id", as: Int64.self) ?? 0
        return (
            APIKey(
                id: id,
                name: name,
                role: role,
                prefix: prefix,
                createdAt: now,
                createdBy: createdBy,
                lastUsedAt: nil,
                revokedAt: nil,
                note: nil
            ), secret
        )
    }

    public func keys() async throws -> [APIKey] {
        let rows = try await database.withConnection { sql in
            try await sql.raw(
                "SELECT id, name, role, prefix, created_at, created_by, last_used_at, revoked_at, note FROM api_keys ORDER BY id"
            ).all()
        }
        return try rows.map { row in
            APIKey(
                id: try row.decode(column: "id", as: Int64.self),
                name: try row.decode(column: "name", as: String.self),
                role: OperatorRole(rawValue: try row.decode(column: "role", as: String.self)) ?? .viewer,
                prefix: try row.decode(column: "prefix", as: String.self),
                createdAt: try row.decode(column: "created_at", as: Int64.self),
                createdBy: try row.decode(column: "created_by", as: String?.self),
                lastUsedAt: try row.decode(column: "last_used_at", as: Int64?.self),
                revokedAt: try row.decode(column: "revoked_at", as: Int64?.self),
                note: try row.decode(column: "note", as: String?.self)
            )
        }
    }

    /// Revokes a key at once, on every server (each request reads the key's row). `by` is who did it, for the audit.
    public func revokeKey(id: Int64, by actor: String) async throws {
        let now = clock.milliseconds()
        try await database.transaction { sql in
            guard
                let row = try await sql.raw(
                    """
                    UPDATE api_keys SET revoked_at = COALESCE(revoked_at, \(bind: now))
                    WHERE id = \(bind: id) RETURNING prefix
                    """
                ).first()
            else { throw Failure.noSuchKey }
            try await Self.audit(
                sql,
                now,
                actor,
                "key.revoked",
                "\(try row.decode(column: "prefix", as: String.self))…"
            )
        }
    }

    /// Who a live key speaks for, noting its use (at most once a minute, so a busy key is not a write per request).
    /// A key whose operator is gone answers nil even if its revocation was missed; its role is never above its
    /// operator's current one.
    func holder(ofKey secret: String) async throws -> KeyHolder? {
        guard secret.hasPrefix(Self.keyPrefix), secret.utf8.count < 100 else { return nil }
        let now = clock.milliseconds()
        let row = try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT k.id, k.role, k.last_used_at, k.operator_id, o.role AS operator_role, o.email AS operator_email
                FROM api_keys k LEFT JOIN operators o ON o.id = k.operator_id
                WHERE k.key_hash = \(bind: Self.digest(secret)) AND k.revoked_at IS NULL
                """
            ).first()
        }
        guard let row, var role = OperatorRole(rawValue: try row.decode(column: "role", as: String.self)) else {
            return nil
        }
        let operatorID = try row.decode(column: "operator_id", as: Int64?.self)
        let operatorEmail = try row.decode(column: "operator_email", as: String?.self)
        if operatorID != nil {
            guard let owner = OperatorRole(rawValue: try row.decode(column: "operator_role", as: String?.self) ?? "")
            else { return nil }
            role = min(role, owner)
        }
        let id = try row.decode(column: "id", as: Int64.self)
        let holder = KeyHolder(keyID: id, role: role, operatorID: operatorID, operatorEmail: operatorEmail)
        if let last = try row.decode(column: "last_used_at", as: Int64?.self), now - last < 60_000 { return holder }
        try await database.withConnection { sql in
            try await sql.raw("UPDATE api_keys SET last_used_at = \(bind: now) WHERE id = \(bind: id)").run()
        }
        return holder
    }

    static func digest(_ secret: String) -> String {
        SHA256.hash(data: Array(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
