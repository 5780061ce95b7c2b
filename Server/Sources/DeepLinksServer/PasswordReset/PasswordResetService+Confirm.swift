import Crypto
import DeepLinksMail
import DeepLinksSecrets
import DeepLinksStorage
import DeepLinksSupport
import Foundation
import Hummingbird
import Logging
import Prometheus

/// Verify and confirm: the live token a link names, and the one winning confirmation.
extension PasswordResetService {
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
                try await AccountStore.changeCredentials(
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
    func consumed(_ live: LiveToken, now: Int64, on sql: DatabaseConnection) async throws -> Bool {
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
    func completed(_ live: LiveToken, client: Client, on sql: DatabaseConnection) async throws {
        try await SessionStore.deleteAll(.accounts, owner: live.accountID, on: sql)
        try await PasswordResetStore.deleteAll(of: live.accountID, on: sql)
        try await AccountStore.markUsed(live.accountID, at: clock.milliseconds(), on: sql)
        try await outbox.enqueue(
            ResetMail.passwordChanged(to: live.display, appName: appName, resetPage: links.page),
            kind: "password-changed",
            on: sql
        )
        try await audit("reset.succeeded", account: live.accountID, client: client, on: sql)
        // The reset journey's own goal, in the funnel of every link (`GET /v1/funnel`), without the app saying so.
        try await FunnelStore.add(
            .init(code: "", day: ClickCounter.day(clock.milliseconds()), kind: .goal, name: "password_changed"),
            on: sql
        )
    }
}
