import AppSiteAssociation
import Crypto
import DeepLinksMail
import DeepLinksStorage
import DeepLinksSupport
import Foundation
import Hummingbird
import Logging
import Prometheus
import SQLKit

/// The reset journey's server side: request a link, check it, confirm a new password.
///
/// A request only records the submitted address and answers; a background job (``processRequests()``)
/// looks the account up, applies the per-address throttles and queues the mail. So the answer is the
/// same bytes after the same work whether the account exists or not (R1, R2, R3).
struct PasswordResetService: Sendable {
    let database: Database
    let keys: SecretKeys
    let clock: WallClock
    let settings: PasswordResetSettings
    let outbox: MailOutbox
    let links: ResetLinks
    let appName: String
    /// Asks the background jobs to run now.
    let wake: @Sendable () -> Void
    let logger: Logger
    let metrics: ServerMetrics?
    /// Shared with the accounts: the password hashes computed or waiting at once.
    let hashing: HashingGate
    /// The team's backend, when the accounts live there: it says which account uses an address and sets
    /// passwords.
    let backend: AccountsBackend?
    /// What audit rows hash client addresses under, derived once.
    private let ipKey: SymmetricKey
    /// Failed checks that name an address (`email` beside a token that is not theirs), per address, shared by
    /// every server: guessing tokens for one victim is slowed down without ever killing the victim's own link.
    private let addressLimiter: SharedRateLimiter

    init(
        database: Database,
        keys: SecretKeys,
        clock: WallClock,
        settings: PasswordResetSettings,
        outbox: MailOutbox,
        links: ResetLinks,
        appName: String,
        wake: @escaping @Sendable () -> Void,
        logger: Logger,
        metrics: ServerMetrics? = nil,
        hashing: HashingGate,
        backend: AccountsBackend? = nil
    ) {
        self.hashing = hashing
        self.backend = backend
        self.logger = logger
        self.metrics = metrics
        self.addressLimiter = SharedRateLimiter(
            database: database,
            name: "reset-check-address",
            capacity: settings.failedAttemptCap,
            perMinute: 1
        )
        self.database = database
        self.keys = keys
        self.clock = clock
        self.settings = settings
        self.outbox = outbox
        self.links = links
        self.appName = appName
        self.wake = wake
        self.ipKey = keys.subkey("audit ip")
    }

    /// The one failure answer for a token that is unknown, expired, used, capped or for another address (C5).
    static let invalidToken = APIError(status: .badRequest, code: .invalidOrExpiredToken)

    // MARK: Request

    func request(email submitted: String, client: Client) async throws {
        let email = try AccountService.address(submitted)
        let key = keys.digest(email.normalized, purpose: "reset address", key: keys.current)
        let network = hashed(ClientNetwork.key(client.address))
        let now = clock.milliseconds()
        try await database.withConnection { sql in
            try await sql.raw(
                """
                INSERT INTO reset_requests (address, address_key, client_key, received_at)
                VALUES (\(bind: email.normalized), \(bind: key), \(bind: network), \(bind: now))
                """
            ).run()
            // Who asked is known now; which account, only to the background job.
            try await audit("reset.received", account: nil, client: client, on: sql)
        }
        wake()
    }

    /// Turns recorded requests into queued mail: one live token per account (a new one supersedes the
    /// old, T5), at most `mailPerWindow` and `mailPerDay` mails per address and `mailBudgetPerHour` in all.
    /// With external accounts the backend's lookup hook says first which account uses the address.
    func processRequests() async throws {
        // A processed request matters to the daily cap for a day; then ``Pruning`` deletes it.
        while true {
            let now = clock.milliseconds()
            let pending = try await database.withConnection { sql in
                try await sql.raw(
                    """
                    SELECT id, address, address_key, lookup_attempts FROM reset_requests
                    WHERE processed = \(bind: false) AND next_lookup_at <= \(bind: now) ORDER BY id LIMIT 50
                    """
                ).all()
            }
            if pending.isEmpty { return }
            for row in pending {
                let id = try row.decode(column: "id", as: Int64.self)
                let address = try row.decode(column: "address", as: String.self)
                if let backend {
                    let attempts = try row.decode(column: "lookup_attempts", as: Int64.self)
                    guard try await lookUp(id: id, address: address, attempts: attempts, backend: backend) else {
                        continue
                    }
                }
                try await process(id: id, address: address, key: try row.decode(column: "address_key", as: String.self))
            }
        }
    }

    /// Whether `address_key` already had its `mailPerWindow` or `mailPerDay` mails.
    func throttled(_ key: String, now: Int64, on sql: any SQLDatabase) async throws -> Bool {
        func mailedSince(_ start: Int64) async throws -> Int {
            let row = try await sql.raw(
                """
                SELECT COUNT(*) AS n FROM reset_requests
                WHERE mailed = \(bind: true) AND received_at > \(bind: start) AND address_key = \(bind: key)
                """
            ).first()
            return try row?.decode(column: "n", as: Int.self) ?? 0
        }
        if try await mailedSince(now - settings.windowSeconds * 1000) >= settings.mailPerWindow { return true }
        return try await mailedSince(now - 86_400_000) >= settings.mailPerDay
    }

    private func process(id: Int64, address: String, key: String) async throws {
        let now = clock.milliseconds()
        let token = SecretToken.generate()
        // nil: held back by the hourly budget.
        let mailed: Bool? = try await database.transaction { sql in
            // Mark first: whatever happens next, a request is processed once.
            let claimed = try await sql.raw(
                "UPDATE reset_requests SET processed = \(bind: true), address = '' WHERE id = \(bind: id) AND processed = \(bind: false) RETURNING id"
            ).all()
            guard !claimed.isEmpty else { return false }
            guard
                let account = try await sql.raw(
                    "SELECT id, email, email_display, credential_generation, created_at FROM accounts WHERE email = \(bind: address) AND disabled = \(bind: false)"
                ).first()
            else { return false }
            let accountID = try account.decode(column: "id", as: Int64.self)
            guard try await !throttled(key, now: now, on: sql) else {
                try await audit("reset.throttled", account: accountID, client: nil, on: sql)
                return false
            }
            // The hourly budget holds back mail to accounts younger than a day only: sign-ups made to spend it
            // cannot stop mail to the accounts people already had.
            let isNew = try account.decode(column: "created_at", as: Int64.self) > now - 86_400_000
            if isNew {
                let spent = try await sql.raw(
                    """
                    SELECT COUNT(*) AS n,
                           SUM(CASE WHEN client_key = (SELECT client_key FROM reset_requests WHERE id = \(bind: id)) THEN 1 ELSE 0 END) AS here
                    FROM reset_requests WHERE mailed = \(bind: true) AND new_account = \(bind: true) AND received_at > \(bind: now - 3_600_000)
                    """
                ).first()
                guard try spent?.decode(column: "n", as: Int.self) ?? 0 < settings.mailBudgetPerHour,
                    try spent?.decode(column: "here", as: Int?.self) ?? 0 < settings.mailBudgetPerNetworkPerHour
                else {
                    try await audit("reset.budget_exhausted", account: accountID, client: nil, on: sql)
                    return nil
                }
            }
            try await sql.raw(
                "UPDATE reset_requests SET mailed = \(bind: true), new_account = \(bind: isNew) WHERE id = \(bind: id)"
            ).run()
            try await issue(token, account: account, mail: true, now: now, on: sql)
            return true
        }
        switch mailed {
        case true: wake()
        case false: break
        case nil:
            metrics?.resetBudgetExhausted.increment()
            logger.warning(
                "reset mail held back: the hourly budget for accounts younger than a day is spent",
                metadata: [
                    "budget": "\(settings.mailBudgetPerHour)", "per network": "\(settings.mailBudgetPerNetworkPerHour)",
                ]
            )
        }
    }

    /// Stores `token` as the account's one live token (a new one supersedes the old, T5), and queues the mail
    /// carrying it unless `mail` is false (the backend sends its own: `deliver: "return"`).
    func issue(_ token: String, account: any SQLRow, mail: Bool, now: Int64, on sql: any SQLDatabase)
        async throws
    {
        let accountID = try account.decode(column: "id", as: Int64.self)
        let display = try account.decode(column: "email_display", as: String.self)
        try await sql.raw("DELETE FROM password_resets WHERE account_id = \(bind: accountID)").run()
        let tokenHash = keys.digest(token, purpose: "reset", key: keys.current)
        try await sql.raw(
            """
            INSERT INTO password_resets (account_id, token_hash, key_version, email, credential_generation, expires_at, created_at)
            VALUES (\(bind: accountID), \(bind: tokenHash), \(bind: keys.current.version),
                    \(bind: try account.decode(column: "email", as: String.self)),
                    \(bind: try account.decode(column: "credential_generation", as: Int64.self)),
                    \(bind: now + settings.tokenLifetimeSeconds * 1000), \(bind: now))
            """
        ).run()
        if mail {
            let message = ResetMail.reset(
                to: display,
                universal: try links.universal(token: token, email: display),
                scheme: try links.customScheme(token: token, email: display),
                appName: appName,
                lifetimeMinutes: settings.tokenLifetimeSeconds / 60
            )
            try await outbox.enqueue(message, kind: "password-reset", resetTokenHash: tokenHash, on: sql)
        }
        try await audit("reset.requested", account: accountID, client: nil, on: sql)
    }

    // MARK: Verify and confirm

    /// A live reset row, found by keyed hash and compared in constant time (T8).
    struct LiveToken: Sendable {
        let id: Int64
        let accountID: Int64
        let email: String
        let display: String
        let generation: Int64
        let digest: String
        /// The backend's user id, with external accounts.
        let subject: String?
    }

    /// The live token `token` names, or nil.
    ///
    /// A failure counts against a token only when the token was found (a right token with a wrong address,
    /// T7). A check that names an address with a token that is not found takes from that address's bucket,
    /// and once it is empty such checks answer 429: random tokens sent with a victim's address slow down, and
    /// the victim's link stays live.
    func live(_ token: String, email submitted: String?, client: Client, event: String) async throws -> LiveToken? {
        let email = submitted.flatMap { try? EmailAddress($0) }?.normalized
        let addressBucket = email.map { keys.digest($0, purpose: "reset address", key: keys.current) }
        if let addressBucket, let wait = try await addressLimiter.wait(addressBucket, now: clock.milliseconds()) {
            try await audit("reset.slowed", account: nil, client: client)
            throw APIError.tooManyRequests(retryAfter: wait)
        }
        if submitted != nil, email == nil {
            try await countFailure(tokenID: nil, client: client)
            return nil
        }
        guard SecretToken.isWellFormed(token) else {
            try await countFailure(tokenID: nil, client: client)
            return nil
        }
        let digests = keys.digests(token, purpose: "reset")
        let now = clock.milliseconds()
        let row = try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT r.id, r.account_id, r.email, r.token_hash, r.credential_generation, r.expires_at, r.failed_attempts,
                       a.email_display, a.subject
                FROM password_resets r JOIN accounts a ON a.id = r.account_id
                WHERE r.token_hash IN (\(binds: digests)) AND a.disabled = \(bind: false)
                  AND a.credential_generation = r.credential_generation AND a.email = r.email
                """
            ).first()
        }
        guard let row, let stored = try? row.decode(column: "token_hash", as: String.self),
            digests.contains(where: { SecureBytes.equal(Array($0.utf8), Array(stored.utf8)) })
        else {
            if let addressBucket { _ = try await addressLimiter.take(addressBucket, now: now) }
            try await countFailure(tokenID: nil, client: client)
            return nil
        }
        let found = LiveToken(
            id: try row.decode(column: "id", as: Int64.self),
            accountID: try row.decode(column: "account_id", as: Int64.self),
            email: try row.decode(column: "email", as: String.self),
            display: try row.decode(column: "email_display", as: String.self),
            generation: try row.decode(column: "credential_generation", as: Int64.self),
            digest: stored,
            subject: try row.decode(column: "subject", as: String?.self)
        )
        // Valid while now < expiry: at T-1 s yes, at T+1 s no (T4).
        guard now < (try row.decode(column: "expires_at", as: Int64.self)),
            try row.decode(column: "failed_attempts", as: Int64.self) < Int64(settings.failedAttemptCap)
        else {
            try await audit(event + ".failed", account: found.accountID, client: client)
            return nil
        }
        // The address in a link is for display; when given it must be the token's (L4).
        if let email, email != found.email {
            try await countFailure(tokenID: found.id, client: client)
            return nil
        }
        try await audit(event, account: found.accountID, client: client)
        return found
    }

    private func countFailure(tokenID: Int64?, client: Client) async throws {
        try await database.withConnection { sql in
            if let tokenID {
                try await sql.raw(
                    "UPDATE password_resets SET failed_attempts = failed_attempts + 1 WHERE id = \(bind: tokenID)"
                ).run()
            }
            try await audit("reset.failed", account: nil, client: client, on: sql)
        }
    }

    /// `{"valid": true, "email": "u***@example.com"}` for a live token; never consumes it (P4).
    func verify(token: String, email: String?, client: Client) async throws -> String {
        guard let live = try await live(token, email: email, client: client, event: "reset.checked") else {
            throw Self.invalidToken
        }
        return EmailAddress.masked(live.display)
    }

    /// Sets the new password and consumes the token in one transaction whose conditional delete decides
    /// the one winner among concurrent confirmations (T6); then revokes every session (S1) and every other
    /// one-time secret (S2), and queues the notice (S3). A refused password leaves the token live (C4).
    /// With external accounts the backend's password hook sets the password (``confirmAtBackend``).
    func confirm(token: String, password: String, email: String?, client: Client) async throws {
        let policy = settings.passwordPolicy
        // The size ceiling comes before any lookup, normalisation or hashing (C2).
        guard password.utf8.count <= policy.maximumBytes else { throw AccountService.weakPassword([.tooLong]) }
        guard let live = try await live(token, email: email, client: client, event: "reset.confirming") else {
            throw Self.invalidToken
        }
        let problems = policy.problems(password, email: live.email)
        guard problems.isEmpty else { throw AccountService.weakPassword(problems) }
        if let backend {
            return try await confirmAtBackend(live, password: password, backend: backend, client: client)
        }
        let hash = try await hashing.run { try await settings.hasher.hash(password) }
        try await spend(live, settingPassword: hash, client: client)
    }

    /// Consumes `live` in one transaction whose conditional delete decides the one winner (T6), moves the
    /// account's credential generation (setting `hash` as its password, for built-in accounts), and completes
    /// the reset; the loser gets ``invalidToken``.
    func spend(_ live: LiveToken, settingPassword hash: String?, client: Client) async throws {
        let now = clock.milliseconds()
        let password: SQLQueryString = hash.map { "password_hash = \(bind: $0)," } ?? ""
        let won: Bool = try await database.transaction { sql in
            guard try await consumed(live, now: now, on: sql) else { return false }
            let updated = try await sql.raw(
                """
                UPDATE accounts SET \(password) credential_generation = credential_generation + 1
                WHERE id = \(bind: live.accountID) AND credential_generation = \(bind: live.generation)
                  AND email = \(bind: live.email) AND disabled = \(bind: false) RETURNING id
                """
            ).all()
            guard updated.count == 1 else { throw Self.invalidToken }
            try await completed(live, client: client, on: sql)
            return true
        }
        guard won else { throw Self.invalidToken }
        wake()
    }

    /// The conditional delete that makes one confirmation the winner: true when it took the live token (not
    /// expired, not capped, not held by a password hook in flight).
    func consumed(_ live: LiveToken, now: Int64, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            DELETE FROM password_resets WHERE id = \(bind: live.id) AND token_hash = \(bind: live.digest)
              AND expires_at > \(bind: now) AND failed_attempts < \(bind: Int64(settings.failedAttemptCap))
              AND (held_until IS NULL OR held_until <= \(bind: now)) RETURNING id
            """
        ).all().count == 1
    }

    /// After a changed password: every session (S1) and every other one-time secret (S2) ends, the notice
    /// is queued (S3), and the audit says so.
    func completed(_ live: LiveToken, client: Client, on sql: any SQLDatabase) async throws {
        try await SessionStore.deleteAll(.accounts, owner: live.accountID, on: sql)
        try await sql.raw("DELETE FROM password_resets WHERE account_id = \(bind: live.accountID)").run()
        try await outbox.enqueue(
            ResetMail.passwordChanged(to: live.display, appName: appName, resetPage: links.page),
            kind: "password-changed",
            on: sql
        )
        try await audit("reset.succeeded", account: live.accountID, client: client, on: sql)
    }

    // MARK: Audit

    /// Who asked: the address that counts (see ``TrustedProxies``) and the user agent.
    struct Client: Sendable {
        let address: String
        let userAgent: String?
    }

    /// A keyed hash of a client address or network: what rows keep instead of the address.
    private func hashed(_ address: String) -> String {
        Hex.encode(HMAC<SHA256>.authenticationCode(for: Array(address.utf8), using: ipKey).prefix(12))
    }

    /// Records an event with the account, a keyed hash of the IP address and the user agent; never a token,
    /// a password or an address (S4).
    func audit(_ event: String, account: Int64?, client: Client?, on sql: (any SQLDatabase)? = nil) async throws {
        let ipHash = client.map { hashed($0.address) }
        let agent = client?.userAgent.map { String(OutgoingMail.headerValue($0).prefix(200)) }
        let now = clock.milliseconds()
        let insert: @Sendable (any SQLDatabase) async throws -> Void = { sql in
            try await AccountStore.audit(event, account: account, ipHash: ipHash, userAgent: agent, at: now, on: sql)
        }
        if let sql { try await insert(sql) } else { try await database.withConnection(insert) }
    }
}
