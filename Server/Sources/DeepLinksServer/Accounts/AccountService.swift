import DeepLinksJSON
import DeepLinksSecrets
import DeepLinksStorage
import DeepLinksSupport
import Foundation
import Hummingbird

/// Accounts and their sessions. A session token is 256 random bits, stored only as a keyed hash.
struct AccountService: Sendable {
    let database: Database
    let keys: SecretKeys
    let clock: WallClock
    let policy: PasswordPolicy
    let hasher: PasswordHasher
    /// Password hashes computed or waiting at once; past it, 503 with `Retry-After` (a login flood cannot
    /// queue unbounded work in front of real users).
    let hashing: InFlightGate
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
    /// A sign-up that nobody signs in to, or resets the password of, within this long is deleted by the pruning:
    /// sign-up proves no address, so an account never used cannot be told from one made by a flood.
    static let unusedSignUpMilliseconds: Int64 = 30 * 86_400_000

    var store: AccountStore { AccountStore(database: database) }

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
        let inserted = try await store.insert(
            email: email.normalized,
            display: email.display,
            passwordHash: hash,
            at: now
        )
        guard let id = inserted else {
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
            guard let owner = try await AccountStore.find(email: email.normalized, on: sql),
                try await !AccountStore.hasEvent("signup.taken", account: owner.id, since: now - 86_400_000, on: sql)
            else { return false }
            try await AccountStore.audit("signup.taken", account: owner.id, at: now, on: sql)
            let mail = ResetMail.signUpAttempt(
                to: owner.display,
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
        let credential = try await store.credential(email: email.normalized)
        // An unknown address still costs one hash, so the answer takes as long as for a wrong password.
        let stored = credential?.passwordHash ?? decoyHash
        let matches = try await hashing.run { await hasher.verify(password, against: stored) }
        guard let credential, matches else { throw invalid }
        try await store.markUsed(credential.id, at: clock.milliseconds())
        return try await sessions.start(owner: credential.id)
    }

    /// The account of a live `Bearer` session token (used within the idle limit, signed in within the
    /// lifetime), or nil; marks the session used (at most once a minute).
    func account(session token: String) async throws -> Account? {
        guard let id = try await sessions.owner(of: token), let row = try await store.find(id: id) else { return nil }
        return Account(id: row.id, email: row.email, display: row.display)
    }

    /// Changes the password of a signed-in account, given the current one. Bumps the credential
    /// generation, which kills any reset link in flight (T3), and signs out every other session.
    func changePassword(account: Account, session: String, current: String, new password: String) async throws {
        guard current.utf8.count <= policy.maximumBytes,
            let stored = try await store.passwordHash(of: account.id),
            try await hashing.run({ await hasher.verify(current, against: stored) })
        else { throw APIError(status: .forbidden, code: .invalidCredentials) }
        let problems = policy.problems(password, email: account.email)
        guard problems.isEmpty else { throw Self.weakPassword(problems) }
        let hash = try await hashing.run { try await hasher.hash(password) }
        let keep = keys.digest(session, purpose: "session", key: keys.current)
        try await database.transaction { sql in
            try await AccountStore.setPassword(account.id, hash: hash, on: sql)
            try await SessionStore.deleteAll(.accounts, owner: account.id, keeping: keep, on: sql)
            try await PasswordResetStore.deleteAll(of: account.id, on: sql)
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
