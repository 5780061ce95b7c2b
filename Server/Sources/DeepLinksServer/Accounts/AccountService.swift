import AppSiteAssociation
import DeepLinksStorage
import DeepLinksSupport
import Foundation
import Hummingbird
import SQLKit

/// Accounts and their sessions. A session token is 256 random bits, stored only as a keyed hash.
struct AccountService: Sendable {
    let database: Database
    let keys: SecretKeys
    let clock: WallClock
    let policy: PasswordPolicy
    let hasher: PasswordHasher
    /// Password hashes computed or waiting at once; past it, 503 with `Retry-After` (a login flood cannot
    /// queue unbounded work in front of real users).
    let hashing: HashingGate
    /// Where mail to an account's owner goes, the app's name, and the reset page the mail points to (nil
    /// when the reset journey is off).
    let outbox: MailOutbox
    let appName: String
    let resetPage: String?
    /// Asks the mail job to run now.
    let wake: @Sendable () -> Void
    /// Whether the mail transport delivers to a local part that is not ASCII (SMTPUTF8); nil when unknown.
    var deliversUTF8: @Sendable () async -> Bool? = { true }
    /// A session ends after this long unused, and this long after sign-in whatever its use.
    static let sessionIdleMilliseconds: Int64 = 30 * 86_400_000
    static let sessionLifetimeMilliseconds: Int64 = 90 * 86_400_000

    var sessions: Sessions {
        Sessions(
            store: SessionStore(database: database, table: .accounts),
            clock: clock,
            idle: Self.sessionIdleMilliseconds,
            lifetime: Self.sessionLifetimeMilliseconds,
            digests: { [keys] in keys.digests($0, purpose: "session") }
        )
    }

    struct Account: Sendable {
        let id: Int64
        let email: String
        let display: String
    }

    func signUp(email submitted: String, password: String) async throws -> Account {
        let email = try Self.address(submitted)
        // Said now rather than at the first reset, when it is too late: the domain goes as IDNA, but a local
        // part that is not ASCII needs a relay with SMTPUTF8.
        if let at = email.display.lastIndex(of: "@"), !email.display[..<at].allSatisfy(\.isASCII),
            await deliversUTF8() == false
        {
            throw APIError(
                status: .unprocessableContent,
                code: .addressUndeliverable,
                fields: [
                    "reason": .string(
                        "the mail server cannot deliver to an address with non-ASCII characters before the @"
                    )
                ]
            )
        }
        let problems = policy.problems(password, email: email.normalized)
        guard problems.isEmpty else { throw Self.weakPassword(problems) }
        let hash = try await hashing.run { try await hasher.hash(password) }
        let now = clock.milliseconds()
        let inserted = try await database.withConnection { sql in
            try await sql.raw(
                """
                INSERT INTO accounts (email, email_display, password_hash, created_at)
                VALUES (\(bind: email.normalized), \(bind: email.display), \(bind: hash), \(bind: now))
                ON CONFLICT (email) DO NOTHING RETURNING id
                """
            ).first()
        }
        guard let id = try inserted?.decode(column: "id", as: Int64.self) else {
            // Taken: the same answer as a new account, after the same work (the hash, one insert), so sign-up
            // does not tell who has an account; the owner hears of it by mail, off the request's time.
            Task { try? await noticeTaken(email, at: now) }
            return Account(id: 0, email: email.normalized, display: email.display)
        }
        return Account(id: id, email: email.normalized, display: email.display)
    }

    /// Tells an account's owner that someone tried to sign up with their address: at most once a day.
    func noticeTaken(_ email: EmailAddress, at now: Int64) async throws {
        let queued: Bool = try await database.transaction { sql in
            guard
                let owner = try await sql.raw(
                    "SELECT id, email_display FROM accounts WHERE email = \(bind: email.normalized)"
                ).first()
            else { return false }
            let id = try owner.decode(column: "id", as: Int64.self)
            let recent = try await sql.raw(
                "SELECT 1 FROM audit_events WHERE event = 'signup.taken' AND account_id = \(bind: id) AND at > \(bind: now - 86_400_000)"
            ).first()
            guard recent == nil else { return false }
            try await sql.raw(
                "INSERT INTO audit_events (event, account_id, at) VALUES ('signup.taken', \(bind: id), \(bind: now))"
            ).run()
            let mail = ResetMail.signUpAttempt(
                to: try owner.decode(column: "email_display", as: String.self),
                appName: appName,
                resetPage: resetPage
            )
            try await outbox.enqueue(mail, kind: "sign-up-taken", on: sql)
            return true
        }
        if queued { wake() }
    }

    /// A new session token for the right address and password; one generic failure otherwise.
    func signIn(email submitted: String, password: String) async throws -> String {
        let invalid = APIError(status: .unauthorized, code: .invalidCredentials)
        guard let email = try? EmailAddress(submitted), password.utf8.count <= policy.maximumBytes else {
            throw invalid
        }
        let row = try await database.withConnection { sql in
            try await sql.raw(
                "SELECT id, password_hash FROM accounts WHERE email = \(bind: email.normalized) AND disabled = \(bind: false)"
            ).first()
        }
        // An unknown address still costs one hash, so the answer takes as long as for a wrong password.
        let stored = try row?.decode(column: "password_hash", as: String.self) ?? decoyHash
        let matches = try await hashing.run { await hasher.verify(password, against: stored) }
        guard let row, matches else { throw invalid }
        return try await sessions.start(owner: try row.decode(column: "id", as: Int64.self))
    }

    /// The account of a live `Bearer` session token (used within the idle limit, signed in within the
    /// lifetime), or nil; marks the session used (at most once a minute).
    func account(session token: String) async throws -> Account? {
        guard let id = try await sessions.owner(of: token) else { return nil }
        let row = try await database.withConnection { sql in
            try await sql.raw(
                "SELECT id, email, email_display FROM accounts WHERE id = \(bind: id) AND disabled = \(bind: false)"
            ).first()
        }
        guard let row else { return nil }
        return Account(
            id: try row.decode(column: "id", as: Int64.self),
            email: try row.decode(column: "email", as: String.self),
            display: try row.decode(column: "email_display", as: String.self)
        )
    }

    /// Changes the password of a signed-in account, given the current one. Bumps the credential
    /// generation, which kills any reset link in flight (T3), and signs out every other session.
    func changePassword(account: Account, session: String, current: String, new password: String) async throws {
        let row = try await database.withConnection { sql in
            try await sql.raw("SELECT password_hash FROM accounts WHERE id = \(bind: account.id)").first()
        }
        guard current.utf8.count <= policy.maximumBytes,
            let stored = try row?.decode(column: "password_hash", as: String.self),
            try await hashing.run({ await hasher.verify(current, against: stored) })
        else { throw APIError(status: .forbidden, code: .invalidCredentials) }
        let problems = policy.problems(password, email: account.email)
        guard problems.isEmpty else { throw Self.weakPassword(problems) }
        let hash = try await hashing.run { try await hasher.hash(password) }
        let keep = keys.digest(session, purpose: "session", key: keys.current)
        try await database.transaction { sql in
            try await sql.raw(
                "UPDATE accounts SET password_hash = \(bind: hash), credential_generation = credential_generation + 1 WHERE id = \(bind: account.id)"
            ).run()
            try await SessionStore.deleteAll(.accounts, owner: account.id, keeping: keep, on: sql)
            try await sql.raw("DELETE FROM password_resets WHERE account_id = \(bind: account.id)").run()
        }
    }

    func signOut(session token: String) async throws {
        try await sessions.end(token)
    }

    static func address(_ submitted: String) throws -> EmailAddress {
        do {
            return try EmailAddress(submitted)
        } catch {
            throw APIError.malformed("'email' is not an email address (\(error.rawValue))")
        }
    }

    static func weakPassword(_ reasons: [PasswordPolicy.Reason]) -> APIError {
        APIError(
            status: .unprocessableContent,
            code: .weakPassword,
            fields: ["reasons": .array(reasons.map { .string($0.rawValue) })]
        )
    }

    /// A well-formed hash of nothing, at the configured cost, verified when the address is unknown.
    var decoyHash: String {
        "$scrypt$ln=\(hasher.logN),r=\(hasher.r),p=\(hasher.p)$" + Base64URL.encode(SecureBytes.random(count: 16)) + "$"
            + Base64URL.encode(SecureBytes.random(count: 32))
    }
}
