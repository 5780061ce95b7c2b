import DeepLinksJSON
import DeepLinksStorage
import HTTPTypes
import Prometheus

/// A ceiling on what anonymous clients write in total, per kind of row, shared by every server (one token bucket
/// in `rate_limits`). The per-network throttles bound one client; this bounds all of them together, so that a
/// flood from many networks (IPv6 /64s, a botnet) cannot grow a table without end. Past it, 503
/// `capacity_reached` with `Retry-After` (the cause is everyone, not this client), counted in
/// `deeplinks_anonymous_writes_refused_total{kind}`. The worst case a day is then `perHour` × 24 rows of each
/// kind (docs/server.md, "What anonymous clients can write").
struct WriteCeiling: Sendable {
    enum Kind: String, CaseIterable, Sendable {
        /// `POST /v1/password-resets` and the reset page's request form: a `reset_requests` row each.
        case resetRequest = "reset-request"
        /// `POST /v1/accounts`: an account.
        case signUp = "sign-up"
        /// `POST /v1/links/{code}/deferred`: a `deferred_links` row.
        case deferredLink = "deferred-link"
    }

    let kind: Kind
    private let limiter: SharedRateLimiter
    private let refused: Counter

    /// The default ceiling of each kind, per hour, all servers together (`--anonymous-writes-per-hour`).
    static let defaultPerHour = 10_000

    init(_ kind: Kind, database: Database, perHour: Int, metrics: ServerMetrics) {
        self.kind = kind
        limiter = SharedRateLimiter(
            database: database,
            name: "ceiling",
            capacity: perHour,
            perMinute: max(1, (perHour + 59) / 60)
        )
        refused = metrics.anonymousWritesRefused(kind.rawValue)
    }

    /// Takes one write from the ceiling, or throws 503 `capacity_reached` with the seconds until there is room.
    func admit(now: Int64) async throws {
        guard let wait = try await limiter.take(kind.rawValue, now: now) else { return }
        refused.increment()
        throw APIError(
            status: .serviceUnavailable,
            code: .capacityReached,
            fields: ["reason": .string("the server takes no more \(kind.rawValue)s this hour, from anyone")],
            headers: [.retryAfter: String(max(1, wait))]
        )
    }
}
