import DeepLinksStorage
import Foundation
import SQLKit

/// Token buckets kept in the database (`rate_limits`), so every server sharing it draws from the same bucket:
/// with three replicas the limit is the limit, not three times it. Used for the security throttles (reset
/// request, verify and confirm, sign-in, sign-up); each take is one conditional upsert, atomic on both databases.
///
/// A bucket holds `capacity` tokens and refills at `perMinute`; a bucket idle long enough to be full again is
/// the same as no bucket, so ``Pruning`` deletes rows idle for an hour (every bucket here refills sooner).
struct SharedRateLimiter: Sendable {
    let database: Database
    /// Prefixes every key: `reset-request`, `sign-in-address`...
    let name: String
    let capacity: Int
    let perMinute: Int

    /// The smaller of two values, as each database spells it.
    private var least: SQLQueryString { database.kind == .sqlite ? "MIN" : "LEAST" }

    /// Takes a token from the bucket of `key`; returns nil when allowed, or the seconds to wait.
    func take(_ key: String, now: Int64) async throws -> Int? {
        let bucket = "\(name):\(key)"
        let capacity = Double(capacity)
        let perMillisecond = Double(perMinute) / 60_000
        let refilled: SQLQueryString = """
            \(least)(\(bind: capacity), rate_limits.tokens + (CASE WHEN \(bind: now) > rate_limits.updated_at THEN \(bind: now) - rate_limits.updated_at ELSE 0 END) * \(bind: perMillisecond))
            """
        return try await database.withConnection { sql in
            let taken = try await sql.raw(
                """
                INSERT INTO rate_limits (key, tokens, updated_at) VALUES (\(bind: bucket), \(bind: capacity - 1), \(bind: now))
                ON CONFLICT (key) DO UPDATE SET tokens = \(refilled) - 1, updated_at = \(bind: now)
                WHERE \(refilled) >= 1
                RETURNING tokens
                """
            ).first()
            if taken != nil { return nil }
            return try await wait(bucket, now: now, on: sql) ?? 1
        }
    }

    /// Gives back a token taken from the bucket of `key` (never above its capacity): for an attempt that turned
    /// out to be no threat, such as a right password.
    func give(_ key: String, now: Int64) async throws {
        try await database.withConnection { sql in
            try await sql.raw(
                "UPDATE rate_limits SET tokens = \(least)(\(bind: Double(capacity)), tokens + 1) WHERE key = \(bind: "\(name):\(key)")"
            ).run()
        }
    }

    /// Takes a token from the bucket of `key`, or throws 429 with `Retry-After`.
    func admit(_ key: String, now: Int64) async throws {
        if let wait = try await take(key, now: now) { throw APIError.tooManyRequests(retryAfter: wait) }
    }

    /// The seconds to wait before the bucket of `key` has a token, or nil when it has one now; takes nothing.
    func wait(_ key: String, now: Int64) async throws -> Int? {
        try await database.withConnection { sql in try await wait("\(name):\(key)", now: now, on: sql) }
    }

    private func wait(_ bucket: String, now: Int64, on sql: any SQLDatabase) async throws -> Int? {
        guard
            let row = try await sql.raw("SELECT tokens, updated_at FROM rate_limits WHERE key = \(bind: bucket)")
                .first()
        else { return nil }
        let perMillisecond = Double(perMinute) / 60_000
        let since = max(0, now - (try row.decode(column: "updated_at", as: Int64.self)))
        let tokens = min(
            Double(capacity),
            try row.decode(column: "tokens", as: Double.self) + Double(since) * perMillisecond
        )
        guard tokens < 1 else { return nil }
        return max(1, Int(((1 - tokens) / perMillisecond / 1000).rounded(.up)))
    }
}
