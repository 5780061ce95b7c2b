import DeepLinksStorage
import Foundation

/// Token buckets kept in the database (``RateLimitStore``), so every server sharing it draws from the same bucket:
/// with three replicas the limit is the limit, not three times it. Used for the security throttles (reset
/// request, verify and confirm, sign-in, sign-up).
struct SharedRateLimiter: Sendable {
    let store: RateLimitStore
    /// Prefixes every key: `reset-request`, `sign-in-address`...
    let name: String
    let capacity: Int
    let perMinute: Int

    init(database: Database, name: String, capacity: Int, perMinute: Int) {
        self.store = RateLimitStore(database: database)
        self.name = name
        self.capacity = capacity
        self.perMinute = perMinute
    }

    /// Takes a token from the bucket of `key`; returns nil when allowed, or the seconds to wait.
    func take(_ key: String, now: Int64) async throws -> Int? {
        try await store.take("\(name):\(key)", capacity: capacity, perMinute: perMinute, now: now)
    }

    /// Gives back a token taken from the bucket of `key` (never above its capacity): for an attempt that turned
    /// out to be no threat, such as a right password.
    func give(_ key: String) async throws {
        try await store.give("\(name):\(key)", capacity: capacity)
    }

    /// Takes a token from the bucket of `key`, or throws 429 with `Retry-After`.
    func admit(_ key: String, now: Int64) async throws {
        if let wait = try await take(key, now: now) { throw APIError.tooManyRequests(retryAfter: wait) }
    }

    /// The seconds to wait before the bucket of `key` has a token, or nil when it has one now; takes nothing.
    func wait(_ key: String, now: Int64) async throws -> Int? {
        try await store.wait("\(name):\(key)", capacity: capacity, perMinute: perMinute, now: now)
    }
}
