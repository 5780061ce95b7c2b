@testable import DeepLinksServer
import Testing

/// The in-memory throttle (made-up codes, deferred links): bounded in memory, forgetting refilled buckets as it
/// goes rather than copying its table, and unmoved by a wall clock that steps back.
@Suite struct RateLimiterTests {
    @Test func aClientCyclingThroughNetworksNeverHoldsMoreThanTheCap() {
        let limiter = RateLimiter(capacity: 5, perMinute: 10, maxKeys: 1_000)
        for network in 0..<50_000 {
            #expect(limiter.take("net-\(network)", now: 1_000) == nil)
            #expect(limiter.count <= 1_000)
        }
        #expect(limiter.count == 1_000)
        // The most recent networks are still throttled as they should be: five takes, then a wait.
        for _ in 0..<4 { #expect(limiter.take("net-49999", now: 1_000) == nil) }
        #expect(limiter.take("net-49999", now: 1_000) != nil)
    }

    @Test func refilledBucketsAreForgottenAsTimePassesAndActiveOnesKept() {
        let limiter = RateLimiter(capacity: 2, perMinute: 60, maxKeys: 100_000)  // refilled in 2 s
        for network in 0..<10_000 { _ = limiter.take("net-\(network)", now: 0) }
        #expect(limiter.count == 10_000)
        _ = limiter.take("busy", now: 0)
        _ = limiter.take("busy", now: 0)
        #expect(limiter.take("busy", now: 1_500) == nil, "1.5 tokens back after 1.5 s")
        // 2.5 s after the start: a take forgets what has refilled, oldest first, up to the first bucket still in use.
        #expect(limiter.take("busy", now: 2_500) == nil)
        #expect(limiter.count == 1, "every refilled bucket forgotten; the busy one kept")
        #expect(limiter.take("busy", now: 2_500) != nil, "busy: half a token left, so it waits")
    }

    /// NTP stepping the clock an hour back at boot, or a VM restored from a snapshot: a client that had used its
    /// burst waits the seconds its bucket needs, not the hour, and one that had not is not refused.
    @Test func aWallClockSteppingBackNeitherRefusesForTheStepNorRefills() {
        let limiter = RateLimiter(capacity: 3, perMinute: 6, maxKeys: 1_000)  // a token every 10 s
        let now: Int64 = 1_800_000_000_000
        for _ in 0..<3 { #expect(limiter.take("a", now: now) == nil) }
        #expect(limiter.take("b", now: now) == nil)
        let back = now - 3_600_000
        let wait = limiter.take("a", now: back)
        #expect(wait != nil && wait! <= 10, "waits for its next token, not an hour: \(String(describing: wait))")
        #expect(limiter.wait("b", now: back) == nil, "b still has tokens")
        #expect(limiter.take("b", now: back) == nil)
        // Time goes on from the stepped-back clock: the bucket refills from there.
        #expect(limiter.take("a", now: back + 10_000) == nil)
    }
}
