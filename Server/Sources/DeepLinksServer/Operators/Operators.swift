import Crypto
import DeepLinksStorage
import DeepLinksSupport
import Foundation
import Synchronization

/// The people who sign in to the console (`operators`, apart from the app's own accounts: an app user never
/// gets a console role by signing up), their sessions, and the scoped API keys. Secrets (session tokens, API
/// keys) are 256 random bits, stored only as their SHA-256: a database copy holds nothing that signs in, and
/// `deeplinks operators` and `deeplinks keys` need no server key to write them.
public struct Operators: Sendable {
    let database: Database
    let clock: WallClock

    var store: OperatorStore { OperatorStore(database: database) }

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
            throw OperatorError.invalidEmail(error.rawValue)
        }
        let problems = PasswordPolicy().problems(password, email: email.normalized)
        guard problems.isEmpty else { throw OperatorError.weakPassword(problems.map(\.rawValue)) }
        let hash = try await hasher.hash(password)
        let inserted = try await store.insert(
            email: email.normalized,
            passwordHash: hash,
            role: role.rawValue,
            at: clock.milliseconds()
        )
        guard let id = inserted else { throw OperatorError.taken }
        try await database.withConnection { sql in
            try await OperatorStore.audit(
                at: clock.milliseconds(),
                actor: actor,
                event: "operator.added",
                detail: "\(email.normalized) (\(role.rawValue))",
                on: sql
            )
        }
        return Operator(id: id, email: email.normalized, role: role)
    }

    public func list() async throws -> [Operator] {
        try await store.all().map(Operator.init)
    }

    /// Removes an operator: ends their sessions, forgets their sign-in devices and revokes every API key they made
    /// (a key belongs to whoever made it). The last admin is never removed. `by` is who did it, for the audit.
    public func remove(email submitted: String, by actor: String) async throws {
        let email = Self.normalized(submitted)
        let now = clock.milliseconds()
        try await database.transaction { sql in
            guard let target = try await Self.operatorNamed(email, sql) else { throw OperatorError.noSuchOperator }
            if target.role == .admin { try await Self.requireAnotherAdmin(than: target.id, sql) }
            try await OperatorStore.delete(target.id, on: sql)
            try await SessionStore.deleteAll(.console, owner: target.id, on: sql)
            let note = "revoked: \(email) was removed by \(actor)"
            let revoked = try await OperatorStore.revokeKeys(of: target.id, at: now, note: note, on: sql)
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
            guard let target = try await Self.operatorNamed(email, sql) else { throw OperatorError.noSuchOperator }
            guard target.role != role else { return }
            if target.role == .admin { try await Self.requireAnotherAdmin(than: target.id, sql) }
            try await OperatorStore.setRole(target.id, to: role.rawValue, on: sql)
            try await Self.audit(
                sql,
                now,
                actor,
                "operator.role",
                "\(email): \(target.role.rawValue) → \(role.rawValue)"
            )
            for higher in OperatorRole.allCases where higher > role {
                let note = "lowered from \(higher.rawValue): \(email) became \(role.rawValue) (\(actor))"
                let lowered = try await OperatorStore.lowerKeys(
                    of: target.id,
                    from: higher.rawValue,
                    to: role.rawValue,
                    note: note,
                    on: sql
                )
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

    private static func operatorNamed(_ email: String, _ sql: DatabaseConnection) async throws -> Operator? {
        try await OperatorStore.find(email: email, on: sql).map(Operator.init)
    }

    private static func requireAnotherAdmin(than id: Int64, _ sql: DatabaseConnection) async throws {
        try await OperatorStore.lock(role: OperatorRole.admin.rawValue, on: sql)
        guard try await OperatorStore.another(OperatorRole.admin.rawValue, than: id, on: sql) else {
            throw OperatorError.lastAdmin
        }
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
        _ sql: DatabaseConnection,
        _ now: Int64,
        _ actor: String,
        _ event: String,
        _ detail: String
    ) async throws {
        try await OperatorStore.audit(at: now, actor: actor, event: event, detail: detail, on: sql)
    }

    /// The newest events first.
    public func auditEvents(limit: Int = 50) async throws -> [AuditEvent] {
        try await store.auditEvents(limit: limit).map {
            AuditEvent(at: $0.at, actor: $0.actor, event: $0.event, detail: $0.detail)
        }
    }

    /// A hash every failed sign-in verifies against when the address is unknown, so that the time taken does not
    /// tell who is an operator.
    private static let decoy = Mutex<String?>(nil)

    /// The operator whose address and password these are, or nil (after the same work either way).
    func verify(email submitted: String, password: String, hasher: PasswordHasher) async throws -> Operator? {
        let email = (try? EmailAddress(submitted).normalized) ?? ""
        guard let (row, hash) = try await store.credential(email: email) else {
            let decoy = try await Self.decoyHash(hasher)
            _ = await hasher.verify(password, against: decoy)
            return nil
        }
        guard await hasher.verify(password, against: hash) else { return nil }
        return Operator(row)
    }

    private static func decoyHash(_ hasher: PasswordHasher) async throws -> String {
        if let hash = decoy.withLock({ $0 }) { return hash }
        let hash = try await hasher.hash(Base64URL.encode(SecureBytes.random(count: 16)))
        decoy.withLock { $0 = hash }
        return hash
    }

    // MARK: Sign-in devices

    /// A browser an operator signed in from keeps a device cookie this long; its sign-ins are throttled on their own
    /// bucket, so a stranger's wrong passwords for the address never lock it out.
    static let deviceLifetimeMilliseconds: Int64 = 90 * 86_400_000

    /// A new device token for the browser `signedIn` just signed in from (stored as its hash only).
    func rememberDevice(of signedIn: Operator) async throws -> String {
        let token = Base64URL.encode(SecureBytes.random(count: 32))
        try await store.insertDevice(tokenHash: Self.digest(token), operatorID: signedIn.id, at: clock.milliseconds())
        return token
    }

    /// Whether `token` is a live device cookie of the operator with this address.
    func isDevice(_ token: String, of submitted: String) async throws -> Bool {
        guard token.utf8.count < 100 else { return false }
        return try await store.isDevice(
            tokenHash: Self.digest(token),
            of: Self.normalized(submitted),
            createdAfter: clock.milliseconds() - Self.deviceLifetimeMilliseconds
        )
    }

    /// The name of the per-address sign-in bucket (``SharedRateLimiter``), which only wrong passwords from browsers
    /// the operator never signed in from take from.
    static let signInAddressBucket = "console-sign-in-address"

    /// `deeplinks operators unlock`: refills the sign-in bucket of an operator's address, so that they can sign in
    /// from a new browser at once after a stranger's wrong passwords emptied it. (The browsers they signed in from
    /// are held by neither that bucket nor their network's.) An address that is no operator's is refused.
    public func unlock(email submitted: String) async throws {
        let email = Self.normalized(submitted)
        guard try await store.credential(email: email) != nil else { throw OperatorError.noSuchOperator }
        try await RateLimitStore(database: database).refill("\(Self.signInAddressBucket):\(Self.signInBucket(email))")
    }

    /// The key of the per-address sign-in bucket for what was typed as the address: a digest, so a bucket's key
    /// has one length whatever is submitted (a 60,000-character "email" is no 60,000-byte key).
    static func signInBucket(_ submitted: String) -> String {
        "address:" + digest(normalized(submitted))
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
        return try await store.find(id: id).map(Operator.init)
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
        else { throw OperatorError.invalidName }
        let secret = Self.keyPrefix + Base64URL.encode(SecureBytes.random(count: 32))
        let prefix = String(secret.prefix(Self.keyPrefix.count + 8))
        let now = clock.milliseconds()
        let id = try await store.insertKey(
            name: name,
            role: role.rawValue,
            prefix: prefix,
            keyHash: Self.digest(secret),
            at: now,
            createdBy: createdBy,
            operatorID: ownerID
        )
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
        try await store.keys().map { row in
            APIKey(
                id: row.id,
                name: row.name,
                role: OperatorRole(rawValue: row.role) ?? .viewer,
                prefix: row.prefix,
                createdAt: row.createdAt,
                createdBy: row.createdBy,
                lastUsedAt: row.lastUsedAt,
                revokedAt: row.revokedAt,
                note: row.note
            )
        }
    }

    /// Revokes a key at once, on every server (each request reads the key's row). `by` is who did it, for the audit.
    public func revokeKey(id: Int64, by actor: String) async throws {
        let now = clock.milliseconds()
        try await database.transaction { sql in
            guard let prefix = try await OperatorStore.revokeKey(id, at: now, on: sql) else {
                throw OperatorError.noSuchKey
            }
            try await Self.audit(sql, now, actor, "key.revoked", "\(prefix)…")
        }
    }

    /// Who a live key speaks for, noting its use (at most once a minute, so a busy key is not a write per request).
    /// A key whose operator is gone answers nil even if its revocation was missed; its role is never above its
    /// operator's current one.
    func holder(ofKey secret: String) async throws -> KeyHolder? {
        guard secret.hasPrefix(Self.keyPrefix), secret.utf8.count < 100 else { return nil }
        let now = clock.milliseconds()
        guard let key = try await store.liveKey(hash: Self.digest(secret)),
            var role = OperatorRole(rawValue: key.role)
        else { return nil }
        if key.operatorID != nil {
            guard let owner = OperatorRole(rawValue: key.operatorRole ?? "") else { return nil }
            role = min(role, owner)
        }
        let holder = KeyHolder(keyID: key.id, role: role, operatorID: key.operatorID, operatorEmail: key.operatorEmail)
        if let last = key.lastUsedAt, now - last < 60_000 { return holder }
        try await store.recordKeyUse(key.id, at: now)
        return holder
    }

    static func digest(_ secret: String) -> String {
        SHA256.hash(data: Array(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

extension Operators.Operator {
    init(_ row: OperatorStore.OperatorRow) {
        self.init(id: row.id, email: row.email, role: OperatorRole(rawValue: row.role) ?? .viewer)
    }
}

extension Operators {
    /// Who is signed in to the console, and the token each form of its pages carries.
    struct Viewer: Sendable {
        let signedIn: Operator
        let csrf: String
    }
}
