import SQLKit

/// Universal-link health: requests from iOS that reached the server on a path an association file claims (each a
/// tap that did not open the app), counted per day, domain, cause and detail (the in-app browser's name) in
/// `link_health`, with no row per visitor; and each domain's last comparison of Apple's CDN copy of its file with
/// the one served, in `association_cdn_checks`, which makes the "differs" webhook go out once across replicas. The
/// only place their SQL is written.
package enum HealthStore {
    /// One count to add.
    package struct Count: Sendable, Hashable {
        package let day: String
        package let domain: String
        package let cause: String
        package let detail: String

        package init(day: String, domain: String, cause: String, detail: String) {
            (self.day, self.domain, self.cause, self.detail) = (day, domain, cause, detail)
        }
    }

    /// Adds `counts` in one transaction (a flush's: a few rows, one per domain and cause).
    package static func add(_ counts: [Count: Int64], database: Database) async throws {
        guard !counts.isEmpty else { return }
        try await database.transaction { sql in
            for (count, requests) in counts {
                try await sql.raw(
                    """
                    INSERT INTO link_health (day, domain, cause, detail, requests)
                    VALUES (\(bind: count.day), \(bind: count.domain), \(bind: count.cause), \(bind: count.detail), \(bind: requests))
                    ON CONFLICT (day, domain, cause, detail) DO UPDATE SET requests = link_health.requests + \(bind: requests)
                    """
                ).run()
            }
        }
    }

    /// The counts from `first` to `last` (days, inclusive), of `domain` or every domain, per domain, cause and
    /// detail, the largest first.
    package static func counts(domain: String?, from first: String, to last: String, database: Database) async throws
        -> [(domain: String, cause: String, detail: String, requests: Int64)]
    {
        let only: SQLQueryString = domain.map { "domain = \(bind: $0) AND " } ?? ""
        let rows = try await database.read { sql in
            try await sql.raw(
                """
                SELECT domain, cause, detail, CAST(SUM(requests) AS BIGINT) AS total FROM link_health
                WHERE \(only)day >= \(bind: first) AND day <= \(bind: last)
                GROUP BY domain, cause, detail ORDER BY total DESC, domain, cause, detail
                """
            ).all()
        }
        return try rows.map {
            (
                try $0.decode(column: "domain", as: String.self), try $0.decode(column: "cause", as: String.self),
                try $0.decode(column: "detail", as: String.self), try $0.decode(column: "total", as: Int64.self)
            )
        }
    }

    /// A domain's last comparison of Apple's CDN copy with the served file.
    package struct CDNCheck: Sendable, Equatable {
        package let domain: String
        package let checkedAt: Int64
        /// Since when the copies have differed, by the first server that saw it; nil when they are the same.
        package let differsSince: Int64?
        /// When the webhook said so (once per stretch of differing).
        package let notifiedAt: Int64?
    }

    /// Records a comparison made at `now`, and returns the domain's state after it: a stretch of differing starts
    /// at the first server's sighting and ends at any server's sighting of the same copy.
    package static func checked(domain: String, differs: Bool, at now: Int64, database: Database) async throws
        -> CDNCheck
    {
        let since: Int64? = differs ? now : nil
        return try await database.transaction { sql in
            let update: SQLQueryString =
                differs
                ? "checked_at = \(bind: now), differs_since = COALESCE(association_cdn_checks.differs_since, \(bind: now))"
                : "checked_at = \(bind: now), differs_since = NULL, notified_at = NULL"
            try await sql.raw(
                """
                INSERT INTO association_cdn_checks (domain, checked_at, differs_since)
                VALUES (\(bind: domain), \(bind: now), \(bind: since))
                ON CONFLICT (domain) DO UPDATE SET \(update)
                """
            ).run()
            return try await check(domain, on: sql)!
        }
    }

    /// Claims the notice of `domain`'s differing copy when it has differed since `before` or earlier and no server
    /// sent it yet, then runs `send` (queueing the webhook) in the same transaction: true when this call claimed it.
    package static func claimNotice(
        domain: String,
        differingSince before: Int64,
        at now: Int64,
        database: Database,
        send: @Sendable (DatabaseConnection) async throws -> Void
    ) async throws -> Bool {
        try await database.transaction { sql in
            let claimed = try await sql.raw(
                """
                UPDATE association_cdn_checks SET notified_at = \(bind: now)
                WHERE domain = \(bind: domain) AND notified_at IS NULL AND differs_since <= \(bind: before)
                RETURNING domain
                """
            ).all()
            guard !claimed.isEmpty else { return false }
            try await send(sql)
            return true
        }
    }

    /// Every domain's last comparison, by domain.
    package static func checks(database: Database) async throws -> [CDNCheck] {
        try await database.read { sql in
            try await sql.raw(
                "SELECT domain, checked_at, differs_since, notified_at FROM association_cdn_checks ORDER BY domain"
            ).all().map { try Self.check($0) }
        }
    }

    private static func check(_ domain: String, on sql: DatabaseConnection) async throws -> CDNCheck? {
        try await sql.raw(
            """
            SELECT domain, checked_at, differs_since, notified_at FROM association_cdn_checks
            WHERE domain = \(bind: domain)
            """
        ).first().map { try Self.check($0) }
    }

    private static func check(_ row: any SQLRow) throws -> CDNCheck {
        CDNCheck(
            domain: try row.decode(column: "domain", as: String.self),
            checkedAt: try row.decode(column: "checked_at", as: Int64.self),
            differsSince: try row.decode(column: "differs_since", as: Int64?.self),
            notifiedAt: try row.decode(column: "notified_at", as: Int64?.self)
        )
    }

    /// Deletes counts of days before `day`.
    package static func prune(daysBefore day: String, database: Database) async throws {
        try await database.withConnection { sql in
            try await sql.raw("DELETE FROM link_health WHERE day < \(bind: day)").run()
        }
    }
}
