import SQLKit

/// The `rate_limits` table: token buckets every server sharing the database draws from. The only place its SQL is
/// written; the rules (which bucket, how large, what a refusal answers) are the server's `SharedRateLimiter`.
///
/// A bucket holds `capacity` tokens and refills at `perMinute`; a bucket idle long enough to be full again is the
/// same as no bucket (pruning deletes rows idle for an hour). Each take is one conditional upsert, atomic on both
/// databases.
package struct RateLimitStore: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// The smaller of two values, as each database spells it.
    private var least: SQLQueryString { database.kind == .sqlite ? "MIN" : "LEAST" }

    /// Takes a token from `bucket`; returns nil when allowed, or the seconds to wait.
    package func take(_ bucket: String, capacity: Int, perMinute: Int, now: Int64) async throws -> Int? {
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
            return try await wait(bucket, capacity: capacity, perMillisecond: perMillisecond, now: now, on: sql) ?? 1
        }
    }

    /// Gives back a token taken from `bucket`, never above its capacity.
    package func give(_ bucket: String, capacity: Int) async throws {
        try await database.withConnection { sql in
            try await sql.raw(
                "UPDATE rate_limits SET tokens = \(least)(\(bind: Double(capacity)), tokens + 1) WHERE key = \(bind: bucket)"
            ).run()
        }
    }

    /// Makes `bucket` full again (a bucket without a row is full).
    package func refill(_ bucket: String) async throws {
        try await database.withConnection { sql in
            try await sql.raw("DELETE FROM rate_limits WHERE key = \(bind: bucket)").run()
        }
    }

    /// The seconds to wait before `bucket` has a token, or nil when it has one now; takes nothing.
    package func wait(_ bucket: String, capacity: Int, perMinute: Int, now: Int64) async throws -> Int? {
        try await database.withConnection { sql in
            try await wait(
                bucket,
                capacity: Double(capacity),
                perMillisecond: Double(perMinute) / 60_000,
                now: now,
                on: sql
            )
        }
    }

    private func wait(
        _ bucket: String,
        capacity: Double,
        perMillisecond: Double,
        now: Int64,
        on sql: DatabaseConnection
    ) async throws -> Int? {
        guard
            let row = try await sql.raw("SELECT tokens, updated_at FROM rate_limits WHERE key = \(bind: bucket)")
                .first()
        else { return nil }
        let since = max(0, now - (try row.decode(column: "updated_at", as: Int64.self)))
        let tokens = min(capacity, try row.decode(column: "tokens", as: Double.self) + Double(since) * perMillisecond)
        guard tokens < 1 else { return nil }
        return max(1, Int(((1 - tokens) / perMillisecond / 1000).rounded(.up)))
    }
}
