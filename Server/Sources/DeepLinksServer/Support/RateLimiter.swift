import Foundation
import Synchronization

/// Token buckets by key (an IP address, say), in memory: `capacity` requests at once, refilled at `perMinute`.
final class RateLimiter: Sendable {
    let capacity: Double
    let perMinute: Double
    private let state = Mutex<[String: (tokens: Double, at: Int64)]>([:])

    init(capacity: Int, perMinute: Int) {
        self.capacity = Double(capacity)
        self.perMinute = Double(perMinute)
    }

    /// The seconds `key` must wait before its next token, or nil when it has one; takes nothing.
    func wait(_ key: String, now: Int64) -> Int? {
        state.withLock { buckets in
            guard let bucket = buckets[key] else { return nil }
            let tokens = min(capacity, bucket.tokens + Double(now - bucket.at) / 60_000 * perMinute)
            return tokens >= 1 ? nil : Int(((1 - tokens) / perMinute * 60).rounded(.up))
        }
    }

    /// Takes a token for `key`; returns nil when allowed, or the seconds to wait.
    func take(_ key: String, now: Int64) -> Int? {
        state.withLock { buckets in
            // Past 100,000 keys, forget the buckets that have refilled (the same as absent); never an active one.
            if buckets.count > 100_000 {
                let full = capacity / perMinute * 60_000
                buckets = buckets.filter { Double(now - $0.value.at) < full }
            }
            var bucket = buckets[key] ?? (capacity, now)
            bucket.tokens = min(capacity, bucket.tokens + Double(now - bucket.at) / 60_000 * perMinute)
            bucket.at = now
            defer { buckets[key] = bucket }
            guard bucket.tokens >= 1 else {
                return Int(((1 - bucket.tokens) / perMinute * 60).rounded(.up))
            }
            bucket.tokens -= 1
            return nil
        }
    }
}
