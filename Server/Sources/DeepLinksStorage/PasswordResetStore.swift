import SQLKit

/// The reset tables: `password_resets` (live reset links, stored as token hashes, one per account), `reset_requests`
/// (the queue of requests and the caps' counts), and the queries the reset journey makes on `accounts`. The only
/// place their SQL is written; the rules (one live link, the caps, the winner among concurrent confirmations) are
/// the server's `PasswordResetService`. Functions taking `on sql` run in the caller's transaction.
package struct PasswordResetStore: Sendable {
    /// An account as a reset link is issued for it.
    package struct ResetAccount: Record {
        package let id: Int64
        package let email: String
        package let display: String
        package let credentialGeneration: Int64
        package let createdAt: Int64

        /// The columns (as the decoder reads them, in camel case) of the fields named otherwise.
        enum CodingKeys: String, CodingKey {
            case id, email, display = "emailDisplay", credentialGeneration, createdAt
        }
    }

    /// A request waiting for the background job.
    package struct PendingRequest: Record {
        package let id: Int64
        package let address: String
        package let addressKey: String
        package let lookupAttempts: Int64
    }

    /// A stored reset link of an enabled account whose address and credentials have not moved since it was issued.
    package struct StoredToken: Record {
        package let id: Int64
        package let accountID: Int64
        package let email: String
        package let display: String
        package let tokenHash: String
        package let credentialGeneration: Int64
        package let expiresAt: Int64
        package let failedAttempts: Int64
        /// The backend's user id, with external accounts.
        package let subject: String?

        /// The columns (as the decoder reads them, in camel case) of the fields named otherwise.
        enum CodingKeys: String, CodingKey {
            case id, accountID = "accountId", email, display = "emailDisplay", tokenHash, credentialGeneration,
                expiresAt, failedAttempts, subject
        }
    }

    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    // MARK: Requests

    package static func insertRequest(
        address: String,
        addressKey: String,
        clientKey: String,
        at now: Int64,
        on sql: DatabaseConnection
    ) async throws {
        try await sql.raw(
            """
            INSERT INTO reset_requests (address, address_key, client_key, received_at)
            VALUES (\(bind: address), \(bind: addressKey), \(bind: clientKey), \(bind: now))
            """
        ).run()
    }

    /// A request the team's backend made, mailed or not, counted for the address's caps.
    package static func insertBackendRequest(addressKey: String, at now: Int64, on sql: DatabaseConnection) async throws
    {
        try await sql.raw(
            """
            INSERT INTO reset_requests (address, address_key, received_at, processed, mailed)
            VALUES ('', \(bind: addressKey), \(bind: now), \(bind: true), \(bind: true))
            """
        ).run()
    }

    /// Up to `limit` unprocessed requests due at `now`, oldest first.
    package func pendingRequests(now: Int64, limit: Int) async throws -> [PendingRequest] {
        try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT id, address, address_key, lookup_attempts FROM reset_requests
                WHERE processed = \(bind: false) AND next_lookup_at <= \(bind: now) ORDER BY id LIMIT \(bind: limit)
                """
            ).all()
        }.map { row in
            try row.record(PendingRequest.self)
        }
    }

    /// Marks a request processed (and forgets its address); false when another server did first.
    package static func claimRequest(_ id: Int64, on sql: DatabaseConnection) async throws -> Bool {
        try await !sql.raw(
            "UPDATE reset_requests SET processed = \(bind: true), address = '' WHERE id = \(bind: id) AND processed = \(bind: false) RETURNING id"
        ).all().isEmpty
    }

    /// A lookup hook that failed: the request is tried again at `next`, or dropped (`giveUp`).
    package static func retryLookup(_ id: Int64, attempt: Int64, next: Int64, giveUp: Bool, on sql: DatabaseConnection)
        async throws
    {
        let drop: SQLQueryString = giveUp ? ", processed = \(bind: true), address = ''" : ""
        try await sql.raw(
            """
            UPDATE reset_requests SET lookup_attempts = \(bind: attempt), next_lookup_at = \(bind: next) \(drop)
            WHERE id = \(bind: id) AND processed = \(bind: false)
            """
        ).run()
    }

    package static func markMailed(_ id: Int64, newAccount: Bool, on sql: DatabaseConnection) async throws {
        try await sql.raw(
            "UPDATE reset_requests SET mailed = \(bind: true), new_account = \(bind: newAccount) WHERE id = \(bind: id)"
        ).run()
    }

    /// Mails sent for `addressKey` since `since`.
    package static func mailed(to addressKey: String, since: Int64, on sql: DatabaseConnection) async throws -> Int {
        let row = try await sql.raw(
            """
            SELECT COUNT(*) AS n FROM reset_requests
            WHERE mailed = \(bind: true) AND received_at > \(bind: since) AND address_key = \(bind: addressKey)
            """
        ).first()
        return try row?.decode(column: "n", as: Int.self) ?? 0
    }

    /// Mails to accounts younger than a day since `since`: in all, and from the network of request `id`.
    package static func mailsToNewAccounts(since: Int64, networkOf id: Int64, on sql: DatabaseConnection) async throws
        -> (all: Int, network: Int)
    {
        let row = try await sql.raw(
            """
            SELECT COUNT(*) AS n,
                   SUM(CASE WHEN client_key = (SELECT client_key FROM reset_requests WHERE id = \(bind: id)) THEN 1 ELSE 0 END) AS here
            FROM reset_requests WHERE mailed = \(bind: true) AND new_account = \(bind: true) AND received_at > \(bind: since)
            """
        ).first()
        return (try row?.decode(column: "n", as: Int.self) ?? 0, try row?.decode(column: "here", as: Int?.self) ?? 0)
    }

    /// Reset mails sent to addresses without an account since `since` (the hourly budget's spending).
    package func mailsToNewAccounts(since: Int64) async throws -> Int {
        let row = try await database.withConnection { sql in
            try await sql.raw(
                "SELECT COUNT(*) AS n FROM reset_requests WHERE mailed = \(bind: true) AND new_account = \(bind: true) AND received_at > \(bind: since)"
            ).first()
        }
        return try row?.decode(column: "n", as: Int.self) ?? 0
    }

    // MARK: Accounts, as the reset journey reads them (written by ``AccountStore`` only)

    package static func enabledAccount(email: String, on sql: DatabaseConnection) async throws -> ResetAccount? {
        try await sql.raw(
            "SELECT id, email, email_display, credential_generation, created_at FROM accounts WHERE email = \(bind: email) AND disabled = \(bind: false)"
        ).first().map(resetAccount)
    }

    // MARK: Reset links

    /// Makes `tokenHash` the account's one live link (a new one supersedes the old).
    package static func replaceToken(
        of account: ResetAccount,
        tokenHash: String,
        keyVersion: Int,
        expiresAt: Int64,
        at now: Int64,
        on sql: DatabaseConnection
    ) async throws {
        try await deleteAll(of: account.id, on: sql)
        try await sql.raw(
            """
            INSERT INTO password_resets (account_id, token_hash, key_version, email, credential_generation, expires_at, created_at)
            VALUES (\(bind: account.id), \(bind: tokenHash), \(bind: keyVersion), \(bind: account.email),
                    \(bind: account.credentialGeneration), \(bind: expiresAt), \(bind: now))
            """
        ).run()
    }

    /// The link stored under one of `digests`, when its account is enabled and its address and credentials have not
    /// moved since (expiry and failures are the caller's to judge).
    package func storedToken(digests: [String]) async throws -> StoredToken? {
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
        guard let row else { return nil }
        return try row.record(StoredToken.self)
    }

    package static func countFailure(of id: Int64, on sql: DatabaseConnection) async throws {
        try await sql.raw("UPDATE password_resets SET failed_attempts = failed_attempts + 1 WHERE id = \(bind: id)")
            .run()
    }

    /// Deletes link `id` if it is still live at `now` (not expired, under `failureCap`, not held): the one
    /// conditional delete that makes a confirmation the winner.
    package static func consume(
        _ id: Int64,
        tokenHash: String,
        now: Int64,
        failureCap: Int64,
        on sql: DatabaseConnection
    ) async throws -> Bool {
        try await sql.raw(
            """
            DELETE FROM password_resets WHERE id = \(bind: id) AND token_hash = \(bind: tokenHash)
              AND expires_at > \(bind: now) AND failed_attempts < \(bind: failureCap)
              AND (held_until IS NULL OR held_until <= \(bind: now)) RETURNING id
            """
        ).all().count == 1
    }

    /// Holds live link `id` until `until` (a password hook in flight); false when it is gone or held already.
    package func hold(_ id: Int64, tokenHash: String, until: Int64, now: Int64) async throws -> Bool {
        try await database.withConnection { sql in
            try await sql.raw(
                """
                UPDATE password_resets SET held_until = \(bind: until)
                WHERE id = \(bind: id) AND token_hash = \(bind: tokenHash) AND expires_at > \(bind: now)
                  AND (held_until IS NULL OR held_until <= \(bind: now)) RETURNING id
                """
            ).all()
        }.count == 1
    }

    package func release(_ id: Int64) async throws {
        try await database.withConnection { sql in
            try await sql.raw("UPDATE password_resets SET held_until = NULL WHERE id = \(bind: id)").run()
        }
    }

    package static func delete(_ id: Int64, on sql: DatabaseConnection) async throws {
        try await sql.raw("DELETE FROM password_resets WHERE id = \(bind: id)").run()
    }

    /// Deletes every reset link of `accountID`.
    package static func deleteAll(of accountID: Int64, on sql: DatabaseConnection) async throws {
        try await sql.raw("DELETE FROM password_resets WHERE account_id = \(bind: accountID)").run()
    }

    /// Whether the reset link stored as `tokenHash` is still live at `now` (not superseded, used or expired).
    package func isLive(tokenHash: String, now: Int64) async throws -> Bool {
        try await database.withConnection { sql in
            try await sql.raw(
                "SELECT id FROM password_resets WHERE token_hash = \(bind: tokenHash) AND expires_at > \(bind: now)"
            ).first()
        } != nil
    }

    static func resetAccount(_ row: any SQLRow) throws -> ResetAccount {
        try row.record(ResetAccount.self)
    }
}
