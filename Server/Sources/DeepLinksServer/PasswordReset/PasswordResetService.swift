import Crypto
import DeepLinksMail
import DeepLinksSecrets
import DeepLinksStorage
import DeepLinksSupport
import Foundation
import Hummingbird
import Logging
import Prometheus

/// The reset journey's server side: request a link, check it, confirm a new password.
///
/// A request only records the submitted address and answers; a background job (``ResetRequestsJob``)
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
    let hashing: InFlightGate
    /// The team's backend, when the accounts live there: it says which account uses an address and sets
    /// passwords.
    let backend: AccountsBackend?
    /// What audit rows hash client addresses under, derived once.
    private let ipKey: SymmetricKey
    /// Failed checks that name an address (`email` beside a token that is not theirs), per address, shared by
    /// every server: guessing tokens for one victim is slowed down without ever killing the victim's own link.
    let addressLimiter: SharedRateLimiter

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
        hashing: InFlightGate,
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

    // MARK: Audit

    /// Who asked: the address that counts (see ``TrustedProxies``) and the user agent.
    struct Client: Sendable {
        let address: String
        let userAgent: String?
    }

    /// A keyed hash of a client address or network: what rows keep instead of the address.
    func hashed(_ address: String) -> String {
        Hex.encode(HMAC<SHA256>.authenticationCode(for: Array(address.utf8), using: ipKey).prefix(12))
    }

    /// Records an event with the account, a keyed hash of the IP address and the user agent; never a token,
    /// a password or an address (S4).
    func audit(_ event: String, account: Int64?, client: Client?, on sql: (DatabaseConnection)? = nil) async throws {
        let ipHash = client.map { hashed($0.address) }
        let agent = client?.userAgent.map { String(OutgoingMail.headerValue($0).prefix(200)) }
        let now = clock.milliseconds()
        let insert: @Sendable (DatabaseConnection) async throws -> Void = { sql in
            try await AccountStore.audit(event, account: account, ipHash: ipHash, userAgent: agent, at: now, on: sql)
        }
        if let sql { try await insert(sql) } else { try await database.withConnection(insert) }
    }
}
