import SQLKit

/// The click analytics' tables: the only place their SQL is written. Per link, clicks and visitors per hour
/// (`link_click_hours`) and per day (`link_click_days`) by class, clicks per day by facet (`link_click_facets`:
/// country, region, city, os, browser, in-app browser); the day's salts (`analytics_salts`) and the day's visitor
/// hashes (`click_visitors`), which are what makes a visitor count exact across replicas and are deleted once their
/// day is over. The server's `ClickCounter` counts in memory and writes here in batches.
package enum AnalyticsStore {
    /// The tables that hold a link's analytics (deleted with the link).
    package static let tables = [
        "link_click_hours", "link_click_days", "link_click_facets", "click_visitors", "link_funnel",
    ]

    /// A row to add: its key columns' values, then its counts (added to a row that is there).
    package typealias Row = [ClickCountStore.Field]

    /// Adds `rows` to `table` (key columns `keys`, count columns `sums`) on the caller's transaction; rows of a
    /// link that no longer exists are dropped. `returning` names columns to return of the rows written; with
    /// `onlyNew`, a row already there is left as it is (and not returned).
    @discardableResult
    package static func add(
        _ rows: [Row],
        to table: String,
        keys: [String],
        sums: [String] = [],
        onlyNew: Bool = false,
        returning: [String] = [],
        kind: DatabaseKind,
        on sql: DatabaseConnection
    ) async throws -> [any SQLRow] {
        guard let first = rows.first else { return [] }
        let columns = keys + sums
        var counted: SQLQueryString
        if kind == .postgresql {
            counted = "SELECT * FROM unnest("
            for (index, field) in first.enumerated() {
                if index > 0 { counted = counted + ", " }
                switch field {
                case .text:
                    let column: [String] = rows.map { row -> String in
                        guard case .text(let text) = row[index] else { return "" }
                        return text
                    }
                    counted = counted + "\(bind: column)"
                case .number:
                    let column: [Int64] = rows.map { row -> Int64 in
                        guard case .number(let number) = row[index] else { return 0 }
                        return number
                    }
                    counted = counted + "\(bind: column)"
                }
            }
            counted = counted + ")"
        } else {
            let values = columns.indices.map { "value ->> \($0)" }.joined(separator: ", ")
            counted = "SELECT \(unsafeRaw: values) FROM json_each(\(bind: ClickCountStore.json(rows) { $0 }))"
        }
        let list = columns.joined(separator: ", ")
        let conflict =
            onlyNew || sums.isEmpty
            ? "DO NOTHING"
            : "DO UPDATE SET " + sums.map { "\($0) = \(table).\($0) + excluded.\($0)" }.joined(separator: ", ")
        return try await sql.raw(
            """
            WITH counted (\(unsafeRaw: list)) AS (\(counted))
            INSERT INTO \(unsafeRaw: table) (\(unsafeRaw: list))
            SELECT \(unsafeRaw: list) FROM counted WHERE EXISTS (SELECT 1 FROM links WHERE links.code = counted.code)
            ON CONFLICT (\(unsafeRaw: keys.joined(separator: ", "))) \(unsafeRaw: conflict)\
            \(unsafeRaw: returning.isEmpty ? "" : " RETURNING " + returning.joined(separator: ", "))
            """
        ).all()
    }

    /// Inserts each visitor (`code`, `day`, `visitor` hash) that is not there yet, on the caller's transaction;
    /// returns those inserted: the visitors new to the day, whichever server saw them first.
    package static func addVisitors(
        _ visitors: [(code: String, day: String, visitor: String)],
        kind: DatabaseKind,
        on sql: DatabaseConnection
    ) async throws -> [(code: String, day: String, visitor: String)] {
        let rows = try await add(
            visitors.map { [.text($0.code), .text($0.day), .text($0.visitor)] },
            to: "click_visitors",
            keys: ["code", "day", "visitor"],
            onlyNew: true,
            returning: ["code", "day", "visitor"],
            kind: kind,
            on: sql
        )
        return try rows.map {
            (
                try $0.decode(column: "code", as: String.self), try $0.decode(column: "day", as: String.self),
                try $0.decode(column: "visitor", as: String.self)
            )
        }
    }

    // MARK: Salts

    /// The salts of `days` (`YYYY-MM-DD`): those stored, after storing `fresh` for each day that had none, so every
    /// server that asks gets the same salt for the same day, whoever made it.
    package static func salts(for days: [String], fresh: [String: String], database: Database) async throws -> [String:
        String]
    {
        try await database.transaction { sql in
            for day in days {
                guard let salt = fresh[day] else { continue }
                try await sql.raw(
                    "INSERT INTO analytics_salts (day, salt) VALUES (\(bind: day), \(bind: salt)) ON CONFLICT (day) DO NOTHING"
                ).run()
            }
            var salts: [String: String] = [:]
            for day in days {
                let row = try await sql.raw("SELECT salt FROM analytics_salts WHERE day = \(bind: day)").first()
                if let salt = try row?.decode(column: "salt", as: String.self) { salts[day] = salt }
            }
            return salts
        }
    }

    /// Deletes the salts and visitor hashes of the days before `day`: once a day is over, nothing can tell its
    /// visitors apart again.
    package static func forgetVisitors(before day: String, database: Database) async throws {
        for table in ["click_visitors", "analytics_salts"] {
            try await database.withConnection { sql in
                try await sql.raw("DELETE FROM \(unsafeRaw: table) WHERE day < \(bind: day)").run()
            }
        }
    }

    /// Deletes hourly counts before `hour` (`YYYY-MM-DDTHH`) and daily ones before `day`, when given.
    package static func prune(hoursBefore hour: String?, daysBefore day: String?, database: Database) async throws {
        var statements: [SQLQueryString] = []
        if let hour { statements.append("DELETE FROM link_click_hours WHERE hour < \(bind: hour)") }
        if let day {
            statements.append("DELETE FROM link_click_days WHERE day < \(bind: day)")
            statements.append("DELETE FROM link_click_facets WHERE day < \(bind: day)")
        }
        for statement in statements {
            try await database.withConnection { sql in try await sql.raw(statement).run() }
        }
    }

    // MARK: Reading

    /// One bucket of a series: its start (`YYYY-MM-DD` or `YYYY-MM-DDTHH`), the class, clicks and visitors.
    package struct Point: Sendable, Decodable {
        package let bucket: String
        package let `class`: String
        package let clicks: Int64
        package let visitors: Int64
    }

    /// Clicks and visitors of `code` (every link when nil) per bucket and class, from `first` to `last` inclusive
    /// (days, or hours with `hourly`), in bucket order.
    package static func series(
        code: String?,
        from first: String,
        to last: String,
        hourly: Bool,
        database: Database
    ) async throws -> [Point] {
        let (table, column) = hourly ? ("link_click_hours", "hour") : ("link_click_days", "day")
        let link: SQLQueryString = code.map { "code = \(bind: $0) AND " } ?? ""
        let rows = try await database.read { sql in
            try await sql.raw(
                """
                SELECT \(unsafeRaw: column) AS bucket, class, CAST(SUM(clicks) AS BIGINT) AS clicks,
                       CAST(SUM(visitors) AS BIGINT) AS visitors
                FROM \(unsafeRaw: table) WHERE \(link)\(unsafeRaw: column) >= \(bind: first) AND \(unsafeRaw: column) <= \(bind: last)
                GROUP BY \(unsafeRaw: column), class ORDER BY \(unsafeRaw: column), class
                """
            ).all()
        }
        return try rows.map { try $0.decode(model: Point.self) }
    }

    /// One value of a breakdown: the value, the class, the clicks.
    package struct Share: Sendable, Decodable {
        package let value: String
        package let `class`: String
        package let clicks: Int64
    }

    /// Clicks of `code` (every link when nil) per value of `facet` and class over the days `first` to `last`, most
    /// clicks first, at most `limit` values per class.
    package static func facet(
        _ facet: String,
        code: String?,
        from first: String,
        to last: String,
        limit: Int,
        database: Database
    ) async throws -> [Share] {
        let link: SQLQueryString = code.map { "code = \(bind: $0) AND " } ?? ""
        let rows = try await database.read { sql in
            try await sql.raw(
                """
                SELECT value, class, CAST(SUM(clicks) AS BIGINT) AS clicks FROM link_click_facets
                WHERE \(link)facet = \(bind: facet) AND day >= \(bind: first) AND day <= \(bind: last)
                GROUP BY value, class ORDER BY clicks DESC, value LIMIT \(bind: limit)
                """
            ).all()
        }
        return try rows.map { try $0.decode(model: Share.self) }
    }

    /// Clicks of `code` (every link when nil) grouped by the columns a table of the counts has (`link_clicks` by
    /// platform or source, `link_referrers` by referrer, `link_rule_clicks` by rule and variant): the breakdowns the
    /// analytics share with the older stats. People's clicks only for `link_clicks` (its `bot` rows are previews and
    /// scanners).
    package static func counted(
        in table: String,
        by column: String,
        code: String?,
        from first: String,
        to last: String,
        limit: Int,
        database: Database
    ) async throws -> [(value: String, clicks: Int64)] {
        let link: SQLQueryString = code.map { "code = \(bind: $0) AND " } ?? ""
        let people: SQLQueryString = table == "link_clicks" ? "bot = \(bind: false) AND " : ""
        let rows = try await database.read { sql in
            try await sql.raw(
                """
                SELECT \(unsafeRaw: column) AS value, CAST(SUM(clicks) AS BIGINT) AS clicks FROM \(unsafeRaw: table)
                WHERE \(link)\(people)day >= \(bind: first) AND day <= \(bind: last)
                GROUP BY \(unsafeRaw: column) ORDER BY clicks DESC, value LIMIT \(bind: limit)
                """
            ).all()
        }
        return try rows.map {
            (try $0.decode(column: "value", as: String.self), try $0.decode(column: "clicks", as: Int64.self))
        }
    }

    /// The links with the most clicks by people from `first` to `last`, with their visitors.
    package static func topLinks(from first: String, to last: String, limit: Int, database: Database) async throws
        -> [(code: String, clicks: Int64, visitors: Int64)]
    {
        let rows = try await database.read { sql in
            try await sql.raw(
                """
                SELECT code, CAST(SUM(clicks) AS BIGINT) AS clicks, CAST(SUM(visitors) AS BIGINT) AS visitors
                FROM link_click_days WHERE class = 'people' AND day >= \(bind: first) AND day <= \(bind: last)
                GROUP BY code ORDER BY clicks DESC, code LIMIT \(bind: limit)
                """
            ).all()
        }
        return try rows.map {
            (
                try $0.decode(column: "code", as: String.self), try $0.decode(column: "clicks", as: Int64.self),
                try $0.decode(column: "visitors", as: Int64.self)
            )
        }
    }
}
