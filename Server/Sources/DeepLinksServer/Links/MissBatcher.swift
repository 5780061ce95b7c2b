import Foundation
import Synchronization

/// Reads documents for codes the cache missed, many codes per query: a miss joins the batch being gathered while up
/// to ``maxInFlight`` queries run, so under load one round trip (and one statement parsed) serves dozens of misses
/// instead of one. No timer: an idle server's miss is sent at once.
final class MissBatcher: Sendable {
    typealias Waiter = CheckedContinuation<String?, any Error>
    private struct State {
        var waiting: [String: [Waiter]] = [:]
        var inFlight = 0
    }

    private let state = Mutex(State())
    private let fetch: @Sendable ([String]) async throws -> [String: String]
    /// Queries at once (the pool holds about 8 connections: the rest stay for edits, counts and syncs).
    static let maxInFlight = 4
    /// Codes per query.
    static let maxBatch = 256

    init(fetch: @escaping @Sendable ([String]) async throws -> [String: String]) {
        self.fetch = fetch
    }

    /// The stored document of `code`, or nil when there is none.
    func document(_ code: String) async throws -> String? {
        try await withCheckedThrowingContinuation { (waiter: Waiter) in
            let start = state.withLock { state in
                state.waiting[code, default: []].append(waiter)
                guard state.inFlight < Self.maxInFlight else { return false }
                state.inFlight += 1
                return true
            }
            if start { Task { await self.drain() } }
        }
    }

    /// Sends batches until no code waits.
    private func drain() async {
        while true {
            let batch: [String: [Waiter]] = state.withLock { state in
                guard !state.waiting.isEmpty else {
                    state.inFlight -= 1
                    return [:]
                }
                var taken: [String: [Waiter]] = [:]
                for (code, waiters) in state.waiting {
                    taken[code] = waiters
                    if taken.count == Self.maxBatch { break }
                }
                for code in taken.keys { state.waiting[code] = nil }
                return taken
            }
            if batch.isEmpty { return }
            do {
                let found = try await fetch(Array(batch.keys))
                for (code, waiters) in batch {
                    for waiter in waiters { waiter.resume(returning: found[code]) }
                }
            } catch {
                for waiters in batch.values {
                    for waiter in waiters { waiter.resume(throwing: error) }
                }
            }
        }
    }
}
