import SQLKit

/// What happened after the clicks: the app's reports of links it opened and goals it reached, installs (deferred
/// links redeemed) and the reset journey's own goal, counted per link (`""` for an app path opened without a short
/// link), day, kind and name in `link_funnel`; each app event's ID in `app_events`, so a retry, on any replica, is
/// counted once. The only place their SQL is written.
package enum FunnelStore {
    /// What a funnel count is.
    package enum Kind: String, Sendable, CaseIterable {
        /// The app opened a link (name: the channel, `universal_link`, `custom_scheme`, `deferred`).
        case open
        /// A deferred link redeemed at the first launch after an install (name: "").
        case install
        /// A goal reached (name: the app's, `signup`; or the server's own, `password_changed`).
        case goal
    }

    /// One count to add.
    package struct Count: Sendable, Hashable {
        package let code: String
        package let day: String
        package let kind: Kind
        package let name: String

        package init(code: String, day: String, kind: Kind, name: String) {
            (self.code, self.day, self.kind, self.name) = (code, day, kind, name)
        }
    }

    /// Counts `count` for the event `id`, unless an event with that ID was counted already (by this server or
    /// another): true when it was new. One transaction: the ID and the count are written together or not at all.
    package static func record(id: String, count: Count, at now: Int64, database: Database) async throws -> Bool {
        try await database.transaction { sql in
            let inserted = try await sql.raw(
                """
                INSERT INTO app_events (id, received_at) VALUES (\(bind: id), \(bind: now))
                ON CONFLICT (id) DO NOTHING RETURNING id
                """
            ).all()
            guard !inserted.isEmpty else { return false }
            try await add(count, on: sql)
            return true
        }
    }

    /// Adds one to `count` on the caller's transaction (an install with its redemption, say).
    package static func add(_ count: Count, on sql: DatabaseConnection) async throws {
        try await sql.raw(
            """
            INSERT INTO link_funnel (code, day, kind, name, count)
            VALUES (\(bind: count.code), \(bind: count.day), \(bind: count.kind.rawValue), \(bind: count.name), 1)
            ON CONFLICT (code, day, kind, name) DO UPDATE SET count = link_funnel.count + 1
            """
        ).run()
    }

    /// The counts of `code` (every code when nil) from `first` to `last` (days, inclusive) per kind and name.
    package static func counts(code: String?, from first: String, to last: String, database: Database) async throws
        -> [(kind: String, name: String, count: Int64)]
    {
        let link: SQLQueryString = code.map { "code = \(bind: $0) AND " } ?? ""
        let rows = try await database.read { sql in
            try await sql.raw(
                """
                SELECT kind, name, CAST(SUM(count) AS BIGINT) AS total FROM link_funnel
                WHERE \(link)day >= \(bind: first) AND day <= \(bind: last) GROUP BY kind, name ORDER BY kind, name
                """
            ).all()
        }
        return try rows.map {
            (
                try $0.decode(column: "kind", as: String.self), try $0.decode(column: "name", as: String.self),
                try $0.decode(column: "total", as: Int64.self)
            )
        }
    }

    /// Deletes event IDs received before `time` (a retry comes within hours; they are kept a week) and counts of
    /// days before `day`, when given.
    package static func prune(eventsBefore time: Int64, daysBefore day: String?, database: Database) async throws {
        try await database.withConnection { sql in
            try await sql.raw("DELETE FROM app_events WHERE received_at < \(bind: time)").run()
        }
        guard let day else { return }
        try await database.withConnection { sql in
            try await sql.raw("DELETE FROM link_funnel WHERE day < \(bind: day)").run()
        }
    }
}
