import AppSiteAssociation
import Crypto
import Foundation
import SQLKit
import Synchronization

/// What an operator or an API key may do. Each role includes the ones before it: a viewer reads links, their
/// counts and the association files; an editor also creates, edits, imports and deletes links; an admin also
/// manages API keys and issues reset links for the team's backend.
public enum OperatorRole: String, CaseIterable, Comparable, Sendable {
    case viewer, editor, admin

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// What the role adds, for errors and pages.
    var grants: String {
        switch self {
        case .viewer: "reading links, their clicks and the association files"
        case .editor: "creating, editing, importing and deleting links"
        case .admin: "managing API keys and issuing reset links"
        }
    }
}

/// The people who sign in to the console (`operators`, apart from the app's own accounts: an app user never
/// gets a console role by signing up), their sessions, and the scoped API keys. Secrets (session tokens, API
/// keys) are 256 random bits, stored only as their SHA-256: a database copy holds nothing that signs in, and
/// `deeplinks accounts` and `deeplinks keys` need no server key to write them.
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

        public var description: String {
            switch self {
            case .invalidEmail(let reason): "not an email address (\(reason))"
            case .weakPassword(let reasons): "the password is too weak: \(reasons.joined(separator: ", "))"
            case .taken: "an operator with this address exists"
            case .noSuchOperator: "no operator has this address"
            case .noSuchKey: "no API key has this id"
            case .invalidName: "a key's name is 1 to 80 printable characters"
            }
        }
    }

    // MARK: Operators

    /// Adds an operator; the password must pass the reset journey's policy.
    public func create(email submitted: String, password: String, role: OperatorRole, hasher: PasswordHasher)
        async throws -> Operator
    {
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
        return Operator(id: id, email: email.normalized, role: role)
    }

    public func list() async throws -> [Operator] {
        try await database.withConnection { sql in
            try await sql.raw("SELECT id, email, role FROM operators ORDER BY email").all()
        }.map(Self.operatorRow)
    }

    /// Removes an operator and ends their sessions.
    public func remove(email submitted: String) async throws {
        let email = (try? EmailAddress(submitted).normalized) ?? submitted
        let removed = try await database.transaction { sql in
            guard
                let row = try await sql.raw("DELETE FROM operators WHERE email = \(bind: email) RETURNING id").first()
            else { return false }
            let id = try row.decode(column: "id", as: Int64.self)
            try await sql.raw("DELETE FROM console_sessions WHERE operator_id = \(bind: id)").run()
            return true
        }
        guard removed else { throw Failure.noSuchOperator }
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

    // MARK: Sessions

    /// A new session for `signedIn`: the token for the cookie.
    func startSession(_ signedIn: Operator) async throws -> String {
        let token = Base64URL.encode(SecureBytes.random(count: 32))
        let now = clock.milliseconds()
        try await database.withConnection { sql in
            try await sql.raw(
                """
                INSERT INTO console_sessions (token_hash, operator_id, created_at, last_used_at)
                VALUES (\(bind: Self.digest(token)), \(bind: signedIn.id), \(bind: now), \(bind: now))
                """
            ).run()
        }
        return token
    }

    /// The operator of a live session, which this use keeps alive; nil for an unknown, idle or old token.
    func session(_ token: String) async throws -> Operator? {
        let now = clock.milliseconds()
        let row = try await database.withConnection { sql in
            try await sql.raw(
                """
                UPDATE console_sessions SET last_used_at = \(bind: now)
                WHERE token_hash = \(bind: Self.digest(token))
                  AND last_used_at > \(bind: now - Self.sessionIdleMilliseconds)
                  AND created_at > \(bind: now - Self.sessionLifetimeMilliseconds)
                RETURNING operator_id
                """
            ).first()
        }
        guard let id = try row?.decode(column: "operator_id", as: Int64.self) else { return nil }
        return try await database.withConnection { sql in
            try await sql.raw("SELECT id, email, role FROM operators WHERE id = \(bind: id)").first()
        }.map(Self.operatorRow)
    }

    func endSession(_ token: String) async throws {
        try await database.withConnection { sql in
            try await sql.raw("DELETE FROM console_sessions WHERE token_hash = \(bind: Self.digest(token))").run()
        }
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
    }

    /// The marker every scoped key starts with (secret scanners can look for it).
    static let keyPrefix = "dlk_"

    /// A new key with `role`: the key itself is returned once, here, and never stored.
    public func createKey(name: String, role: OperatorRole, createdBy: String?) async throws -> (APIKey, String) {
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
                INSERT INTO api_keys (name, role, prefix, key_hash, created_at, created_by)
                VALUES (\(bind: name), \(bind: role.rawValue), \(bind: prefix), \(bind: Self.digest(secret)), \(bind: now), \(bind: createdBy))
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
                revokedAt: nil
            ), secret
        )
    }

    public func keys() async throws -> [APIKey] {
        let rows = try await database.withConnection { sql in
            try await sql.raw(
                "SELECT id, name, role, prefix, created_at, created_by, last_used_at, revoked_at FROM api_keys ORDER BY id"
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
                revokedAt: try row.decode(column: "revoked_at", as: Int64?.self)
            )
        }
    }

    /// Revokes a key at once, on every server (each request reads the key's row).
    public func revokeKey(id: Int64) async throws {
        let row = try await database.withConnection { sql in
            try await sql.raw(
                """
                UPDATE api_keys SET revoked_at = COALESCE(revoked_at, \(bind: clock.milliseconds()))
                WHERE id = \(bind: id) RETURNING id
                """
            ).first()
        }
        guard row != nil else { throw Failure.noSuchKey }
    }

    /// The role of a live key, noting its use (at most once a minute, so a busy key is not a write per request).
    func role(ofKey secret: String) async throws -> (id: Int64, role: OperatorRole)? {
        guard secret.hasPrefix(Self.keyPrefix), secret.utf8.count < 100 else { return nil }
        let now = clock.milliseconds()
        let row = try await database.withConnection { sql in
            try await sql.raw(
                "SELECT id, role, last_used_at FROM api_keys WHERE key_hash = \(bind: Self.digest(secret)) AND revoked_at IS NULL"
            ).first()
        }
        guard let row, let role = OperatorRole(rawValue: try row.decode(column: "role", as: String.self)) else {
            return nil
        }
        let id = try row.decode(column: "id", as: Int64.self)
        if let last = try row.decode(column: "last_used_at", as: Int64?.self), now - last < 60_000 { return (id, role) }
        try await database.withConnection { sql in
            try await sql.raw("UPDATE api_keys SET last_used_at = \(bind: now) WHERE id = \(bind: id)").run()
        }
        return (id, role)
    }

    static func digest(_ secret: String) -> String {
        SHA256.hash(data: Array(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
