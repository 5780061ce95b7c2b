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
    var store: PasswordResetStore { PasswordResetStore(database: database) }
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
            try await PasswordResetStore.insertRequest(
                address: email.normalized,
                addressKey: key,
                clientKey: network,
                at: now,
                on: sql
            )
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
            let pending = try await store.pendingRequests(now: now, limit: 50)
            if pending.isEmpty { return }
            for request in pending {
                if let backend {
                    guard
                        try await lookUp(
                            id: request.id,
                            address: request.address,
                            attempts: request.lookupAttempts,
                            backend: backend
                        )
                    else { continue }
                }
                try await process(id: request.id, address: request.address, key: request.addressKey)
            }
        }
    }

    /// Whether `address_key` already had its `mailPerWindow` or `mailPerDay` mails.
    func throttled(_ key: String, now: Int64, on sql: any SQLDatabase) async throws -> Bool {
        func mailedSince(_ start: Int64) async throws -> Int {
            try await PasswordResetStore.mailed(to: key, since: start, on: sql)
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
            guard try await PasswordResetStore.claimRequest(id, on: sql),
                let account = try await PasswordResetStore.enabledAccount(email: address, on: sql)
            else { return false }
            let accountID = account.id
            guard try await !throttled(key, now: now, on: sql) else {
                try await audit("reset.throttled", account: accountID, client: nil, on: sql)
                return false
            }
            // The hourly budget holds back mail to accounts younger than a day only: sign-ups made to spend it
            // cannot stop mail to the accounts people already had.
            let isNew = account.createdAt > now - 86_400_000
            if isNew {
                let spent = try await PasswordResetStore.mailsToNewAccounts(
                    since: now - 3_600_000,
                    networkOf: id,
                    on: sql
                )
                guard spent.all < settings.mailBudgetPerHour, spent.network < settings.mailBudgetPerNetworkPerHour
                else {
                    try await audit("reset.budget_exhausted", account: accountID, client: nil, on: sql)
                    return nil
                }
            }
            try await PasswordResetStore.markMailed(id, newAccount: isNew, on: sql)
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
    func issue(
        _ token: String,
        account: PasswordResetStore.ResetAccount,
        mail: Bool,
        now: Int64,
        on sql: any SQLDatabase
    ) async throws {
        let display = account.display
        let tokenHash = keys.digest(token, purpose: "reset", key: keys.current)
        try await PasswordResetStore.replaceToken(
            of: account,
            tokenHash: tokenHash,
            keyVersion: keys.current.version,
            expiresAt: now + settings.tokenLifetimeSeconds * 1000,
            at: now,
            on: sql
        )
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
        try await audit("reset.requested", account: account.id, client: nil, on: sql)
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
        guard let row = try await store.storedToken(digests: digests),
            digests.contains(where: { SecureBytes.equal(Array($0.utf8), Array(row.tokenHash.utf8)) })
        else {
            if let addressBucket { _ = try await addressLimiter.take(addressBucket, now: now) }
            try await countFailure(tokenID: nil, client: client)
            return nil
        }
        let found = LiveToken(
            id: row.id,
            accountID: row.accountID,
            email: row.email,
            display: row.display,
            generation: row.credentialGeneration,
            digest: row.tokenHash,
            subject: row.subject
        )
        // Valid while now < expiry: at T-1 s yes, at T+1 s no (T4).
        guard now < row.expiresAt, row.failedAttempts < Int64(settings.failedAttemptCap) else {
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
            if let tokenID { try await PasswordResetStore.countFailure(of: tokenID, on: sql) }
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
        let won: Bool = try await database.transaction { sql in
            guard try await consumed(live, now: now, on: sql) else { return false }
            guard
                try await PasswordResetStore.changeCredentials(
                    of: live.accountID,
                    from: live.generation,
                    email: live.email,
                    passwordHash: hash,
                    on: sql
                )
            else { throw Self.invalidToken }
            try await completed(live, client: client, on: sql)
            return true
        }
        guard won else { throw Self.invalidToken }
        wake()
    }

    /// The conditional delete that makes one confirmation the winner: true when it took the live token (not
    /// expired, not capped, not held by a password hook in flight).
    func consumed(_ live: LiveToken, now: Int64, on sql: any SQLDatabase) async throws -> Bool {
        try await PasswordResetStore.consume(
            live.id,
            tokenHash: live.digest,
            now: now,
            failureCap: Int64(settings.failedAttemptCap),
            on: sql
        )
    }

    /// After a changed password: every session (S1) and every other one-time secret (S2) ends, the notice
    /// is queued (S3), and the audit says so.
    func completed(_ live: LiveToken, client: Client, on sql: any SQLDatabase) async throws {
        try await SessionStore.deleteAll(.accounts, owner: live.accountID, on: sql)
        try await PasswordResetStore.deleteAll(of: live.accountID, on: sql)
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
