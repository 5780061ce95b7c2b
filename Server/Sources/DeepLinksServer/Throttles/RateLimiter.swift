import Synchronization

/// Token buckets by key (a client network, say), in memory: `capacity` requests at once, refilled at `perMinute`.
///
/// Its cost does not grow with the number of clients it has seen: each take does a dictionary look-up and forgets,
/// from the front of the queue of buckets in the order they were made, the ones that have refilled (the same as
/// absent) and, past `maxKeys`, the oldest (memory bounded: a client cycling through more networks than that within
/// a refill is forgotten, as it would be by any limiter keyed by network). A clock that
/// steps back (NTP at boot, a VM restored) refills nothing and takes nothing away: the time between two takes is
/// never negative.
final class RateLimiter: Sendable {
    let capacity: Double
    let perMinute: Double
    let maxKeys: Int
    /// Milliseconds an empty bucket takes to refill.
    private let refill: Int64
    private let state = Mutex(State())

    private struct State {
        var buckets: [String: (tokens: Double, at: Int64)] = [:]
        /// The keys of `buckets`, in the order their buckets were made (from `head` on).
        var order: [String] = []
        var head = 0
    }

    init(capacity: Int, perMinute: Int, maxKeys: Int = 100_000) {
        self.capacity = Double(capacity)
        self.perMinute = Double(perMinute)
        self.maxKeys = maxKeys
        refill = Int64((Double(capacity) / Double(perMinute) * 60_000).rounded(.up))
    }

    /// The tokens a bucket holds at `now`.
    private func tokens(_ bucket: (tokens: Double, at: Int64), now: Int64) -> Double {
        min(capacity, bucket.tokens + Double(max(0, now - bucket.at)) / 60_000 * perMinute)
    }

    /// The seconds `key` must wait before its next token, or nil when it has one; takes nothing.
    func wait(_ key: String, now: Int64) -> Int? {
        state.withLock { state in
            guard let bucket = state.buckets[key] else { return nil }
            let tokens = tokens(bucket, now: now)
            return tokens >= 1 ? nil : Int(((1 - tokens) / perMinute * 60).rounded(.up))
        }
    }

    /// Takes a token for `key`; returns nil when allowed, or the seconds to wait.
    func take(_ key: String, now: Int64) -> Int? {
        state.withLock { state in
            forget(&state, now: now)
            var bucket: (tokens: Double, at: Int64) = (capacity, now)
            if let held = state.buckets[key] {
                bucket = (tokens(held, now: now), now)
            } else {
                state.order.append(key)
            }
            defer { state.buckets[key] = bucket }
            guard bucket.tokens >= 1 else {
                return Int(((1 - bucket.tokens) / perMinute * 60).rounded(.up))
            }
            bucket.tokens -= 1
            return nil
        }
    }

    /// The number of buckets held (for tests and metrics).
    var count: Int { state.withLock { $0.buckets.count } }

    /// Forgets, oldest first, the buckets that have refilled, and the oldest past `maxKeys`, stopping at the first
    /// that is still in use: each bucket is forgotten once, so a take costs O(1) amortized.
    private func forget(_ state: inout State, now: Int64) {
        while state.head < state.order.count {
            let key = state.order[state.head]
            if let bucket = state.buckets[key] {
                guard now - bucket.at >= refill || state.buckets.count >= maxKeys else { break }
                state.buckets[key] = nil
            }
            state.head += 1
        }
        // The consumed front is dropped once it is half the queue: each entry is moved at most once more.
        if state.head > 1_024, state.head * 2 > state.order.count {
            state.order.removeFirst(state.head)
            state.head = 0
        }
    }
}
