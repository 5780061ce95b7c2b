import DeepLinksJSON
import SQLKit

/// Adds counted clicks to `link_clicks` and `link_referrers`: the only place that writes them (the stats read them
/// through ``LinkDocumentStore``). The counting itself (in memory, flushed in batches) is the server's `ClickCounter`.
///
/// Each statement's text is the same whatever the number of rows, and each column is one bound value, so preparing
/// it costs nothing per row: on PostgreSQL the columns are bound as arrays (`unnest`), on SQLite the rows as one
/// JSON array of arrays (`json_each`). Counts for a link that no longer exists are dropped.
package enum ClickCountStore {
    /// Clicks of one link on one day, platform, bot or not, and source.
    package struct Count: Sendable {
        package let code: String
        package let day: String
        package let platform: String
        package let bot: Bool
        package let source: String
        package let clicks: Int64

        package init(code: String, day: String, platform: String, bot: Bool, source: String, clicks: Int64) {
            (self.code, self.day, self.platform, self.bot, self.source, self.clicks) =
                (code, day, platform, bot, source, clicks)
        }
    }

    /// People's clicks of one link on one day from one referring host.
    package struct ReferrerCount: Sendable {
        package let code: String
        package let day: String
        package let host: String
        package let clicks: Int64

        package init(code: String, day: String, host: String, clicks: Int64) {
            (self.code, self.day, self.host, self.clicks) = (code, day, host, clicks)
        }
    }

    /// Adds `rows` on the caller's transaction; with `returningCodes`, the codes of the rows written (none for a
    /// deleted link), else an empty set.
    package static func add(
        _ rows: [Count],
        kind: DatabaseKind,
        returningCodes: Bool,
        on sql: DatabaseConnection
    ) async throws -> Set<String> {
        guard !rows.isEmpty else { return [] }
        let counted: SQLQueryString =
            kind == .postgresql
            ? """
            SELECT * FROM unnest(\(bind: rows.map(\.code)), \(bind: rows.map(\.day)), \(bind: rows.map(\.platform)), \
            \(bind: rows.map(\.bot)), \(bind: rows.map(\.source)), \(bind: rows.map(\.clicks)))
            """
            : """
            SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 FROM json_each(\(bind:
                json(rows) { [.text($0.code), .text($0.day), .text($0.platform), .number($0.bot ? 1 : 0),
                    .text($0.source), .number($0.clicks)] }))
            """
        let written = try await sql.raw(
            """
            WITH counted (code, day, platform, bot, source, clicks) AS (\(counted))
            INSERT INTO link_clicks (code, day, platform, bot, source, clicks)
            SELECT code, day, platform, bot, source, clicks FROM counted WHERE EXISTS (SELECT 1 FROM links WHERE links.code = counted.code)
            ON CONFLICT (code, day, platform, bot, source) DO UPDATE SET clicks = link_clicks.clicks + excluded.clicks\
            \(unsafeRaw: returningCodes ? " RETURNING code" : "")
            """
        ).all()
        return Set(try written.map { try $0.decode(column: "code", as: String.self) })
    }

    /// Adds `rows` on the caller's transaction.
    package static func add(_ rows: [ReferrerCount], kind: DatabaseKind, on sql: DatabaseConnection) async throws {
        guard !rows.isEmpty else { return }
        let counted: SQLQueryString =
            kind == .postgresql
            ? """
            SELECT * FROM unnest(\(bind: rows.map(\.code)), \(bind: rows.map(\.day)), \(bind: rows.map(\.host)), \
            \(bind: rows.map(\.clicks)))
            """
            : """
            SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(\(bind:
                json(rows) { [.text($0.code), .text($0.day), .text($0.host), .number($0.clicks)] }))
            """
        try await sql.raw(
            """
            WITH counted (code, day, referrer, clicks) AS (\(counted))
            INSERT INTO link_referrers (code, day, referrer, clicks)
            SELECT code, day, referrer, clicks FROM counted WHERE EXISTS (SELECT 1 FROM links WHERE links.code = counted.code)
            ON CONFLICT (code, day, referrer) DO UPDATE SET clicks = link_referrers.clicks + excluded.clicks
            """
        ).run()
    }

    package struct RuleCount: Sendable {
        package let code: String
        package let day: String
        package let rule: String
        package let variant: String
        package let clicks: Int64

        package init(code: String, day: String, rule: String, variant: String, clicks: Int64) {
            (self.code, self.day, self.rule, self.variant, self.clicks) = (code, day, rule, variant, clicks)
        }
    }

    /// Adds `rows` (clicks per rule and variant of a link) on the caller's transaction.
    package static func add(_ rows: [RuleCount], kind: DatabaseKind, on sql: DatabaseConnection) async throws {
        guard !rows.isEmpty else { return }
        let counted: SQLQueryString =
            kind == .postgresql
            ? """
            SELECT * FROM unnest(\(bind: rows.map(\.code)), \(bind: rows.map(\.day)), \(bind: rows.map(\.rule)), \
            \(bind: rows.map(\.variant)), \(bind: rows.map(\.clicks)))
            """
            : """
            SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4 FROM json_each(\(bind:
                json(rows) { [.text($0.code), .text($0.day), .text($0.rule), .text($0.variant), .number($0.clicks)] }))
            """
        try await sql.raw(
            """
            WITH counted (code, day, rule, variant, clicks) AS (\(counted))
            INSERT INTO link_rule_clicks (code, day, rule, variant, clicks)
            SELECT code, day, rule, variant, clicks FROM counted WHERE EXISTS (SELECT 1 FROM links WHERE links.code = counted.code)
            ON CONFLICT (code, day, rule, variant) DO UPDATE SET clicks = link_rule_clicks.clicks + excluded.clicks
            """
        ).run()
    }

    /// A value of a row written for `json_each`.
    package enum Field: Sendable {
        case text(String)
        case number(Int64)
    }

    /// `[[field, ...], ...]`: the rows as compact JSON, built in one string.
    package static func json<Row>(_ rows: [Row], _ fields: (Row) -> [Field]) -> String {
        var output = "["
        output.reserveCapacity(rows.count * 64)
        for (index, row) in rows.enumerated() {
            output += index == 0 ? "[" : ",["
            for (position, field) in fields(row).enumerated() {
                if position > 0 { output += "," }
                switch field {
                case .number(let value): output += String(value)
                case .text(let value): output += JSONValue.string(value).compactJSON
                }
            }
            output += "]"
        }
        return output + "]"
    }
}
