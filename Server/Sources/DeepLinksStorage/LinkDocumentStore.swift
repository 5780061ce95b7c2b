import Foundation
import SQLKit

/// The link tables: `links` (one JSON document per code), `link_changes` (the change log other servers' caches
/// follow), and the counts the stats read (`link_clicks`, `link_referrers`). The only place their SQL is written;
/// documents are text here, and the server's `LinkStore` holds the model, the cache and the events.
///
/// Reads go through ``Database/read(_:)`` (SQLite's read connections); writes take the caller's transaction
/// (`on sql`), so a link's change, its change-log row and its webhook events commit together.
package struct LinkDocumentStore: Sendable {
    /// Clicks of one link on one day, platform, bot or not, and source.
    package struct ClickCount: Record {
        package let day: String
        package let platform: String
        package let bot: Bool
        package let source: String
        package let clicks: Int64
    }

    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// On a SQLite file, the point look-up a cache miss uses (``SQLiteLookup``); nil elsewhere.
    package func sqliteLookup() -> SQLiteLookup? {
        guard case .sqliteFile(let path) = database.url else { return nil }
        return SQLiteLookup(path: path, sql: "SELECT document FROM links WHERE code = ?1")
    }

    package func document(_ code: String) async throws -> String? {
        let row = try await database.read { sql in
            try await sql.raw("SELECT document FROM links WHERE code = \(bind: code)").first()
        }
        return try row?.decode(column: "document", as: String.self)
    }

    /// The documents of those of `codes` that are links, in one query.
    package func documents(_ codes: [String]) async throws -> [String: String] {
        let rows = try await database.read { sql in
            try await sql.raw(
                "SELECT code, document FROM links WHERE code IN (\(binds: codes))"
            ).all()
        }
        var documents: [String: String] = [:]
        for row in rows {
            documents[try row.decode(column: "code", as: String.self)] = try row.decode(
                column: "document",
                as: String.self
            )
        }
        return documents
    }

    /// Which of `codes` are links, 500 codes a query.
    package func existing(_ codes: [String]) async throws -> Set<String> {
        var found = Set<String>()
        for start in stride(from: 0, to: codes.count, by: 500) {
            let batch = codes[start..<min(start + 500, codes.count)]
            let rows = try await database.withConnection { sql in
                try await sql.raw(
                    "SELECT code FROM links WHERE code IN (\(binds: Array(batch)))"
                ).all()
            }
            for row in rows { found.insert(try row.decode(column: "code", as: String.self)) }
        }
        return found
    }

    /// A page of documents in code order, after `cursor`.
    package func documents(after cursor: String?, limit: Int) async throws -> [String] {
        let rows = try await database.withConnection { sql in
            try await sql.raw(
                "SELECT document FROM links WHERE code > \(bind: cursor ?? "") ORDER BY code LIMIT \(bind: limit)"
            ).all()
        }
        return try rows.map { try $0.decode(column: "document", as: String.self) }
    }

    /// A page of documents in code order after `cursor` whose code or document holds `text` (any case; LIKE's
    /// wildcards in it are literal), each with its clicks by people.
    package func search(_ text: String, after cursor: String?, limit: Int) async throws -> [(
        document: String, clicks: Int64
    )] {
        let escaped = text.lowercased().replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
        let pattern = "%\(escaped)%"
        let rows = try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT l.document,
                       CAST(COALESCE((SELECT SUM(c.clicks) FROM link_clicks c WHERE c.code = l.code AND c.bot = \(bind: false)), 0) AS BIGINT) AS clicks
                FROM links l
                WHERE l.code > \(bind: cursor ?? "")
                  AND (LOWER(l.code) LIKE \(bind: pattern) ESCAPE '\\' OR LOWER(l.document) LIKE \(bind: pattern) ESCAPE '\\')
                ORDER BY l.code LIMIT \(bind: limit)
                """
            ).all()
        }
        return try rows.map {
            (try $0.decode(column: "document", as: String.self), try $0.decode(column: "clicks", as: Int64.self))
        }
    }

    /// Clicks of `code` per day, platform, bot or not, and source, in that order.
    package func clicks(_ code: String) async throws -> [ClickCount] {
        let rows = try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT day, platform, bot, source, clicks FROM link_clicks WHERE code = \(bind: code)
                ORDER BY day, platform, source
                """
            ).all()
        }
        return try rows.map {
            try $0.record(ClickCount.self)
        }
    }

    /// The referring hosts of `code`, most clicks first, at most `limit`.
    package func referrers(_ code: String, limit: Int) async throws -> [(host: String, clicks: Int64)] {
        let rows = try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT referrer, CAST(SUM(clicks) AS BIGINT) AS total FROM link_referrers WHERE code = \(bind: code)
                GROUP BY referrer ORDER BY total DESC, referrer LIMIT \(bind: limit)
                """
            ).all()
        }
        return try rows.map {
            (try $0.decode(column: "referrer", as: String.self), try $0.decode(column: "total", as: Int64.self))
        }
    }

    /// Clicks of `code` per rule and variant ("" for a rule without a split), all days together.
    package func ruleClicks(_ code: String) async throws -> [(rule: String, variant: String, clicks: Int64)] {
        let rows = try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT rule, variant, CAST(SUM(clicks) AS BIGINT) AS total FROM link_rule_clicks WHERE code = \(bind: code)
                GROUP BY rule, variant ORDER BY rule, variant
                """
            ).all()
        }
        return try rows.map {
            (
                try $0.decode(column: "rule", as: String.self), try $0.decode(column: "variant", as: String.self),
                try $0.decode(column: "total", as: Int64.self)
            )
        }
    }

    // MARK: The change log

    /// The newest change's id (0 when there is none).
    package func lastChange() async throws -> Int64 {
        let row = try await database.read { sql in
            try await sql.raw("SELECT COALESCE(MAX(id), 0) AS id FROM link_changes").first()
        }
        return try row?.decode(column: "id", as: Int64.self) ?? 0
    }

    /// Up to `limit` changes after `cursor` in id order, of those past `position` or written since `since`.
    package func changes(after cursor: Int64, position: Int64, since: Int64, limit: Int) async throws -> [(
        id: Int64, code: String
    )] {
        let rows = try await database.read { sql in
            try await sql.raw(
                """
                SELECT id, code FROM link_changes WHERE id > \(bind: cursor) AND (id > \(bind: position) OR at >= \(bind: since))
                ORDER BY id LIMIT \(bind: limit)
                """
            ).all()
        }
        return try rows.map {
            (id: try $0.decode(column: "id", as: Int64.self), code: try $0.decode(column: "code", as: String.self))
        }
    }

    /// Whether the change log has a change of `code` after `since`.
    package func changed(_ code: String, since: Int64) async throws -> Bool {
        try await database.withConnection { sql in
            try await sql.raw("SELECT id FROM link_changes WHERE code = \(bind: code) AND at > \(bind: since)").first()
        } != nil
    }

    // MARK: Writes, in the caller's transaction

    /// Records that `code` changed; returns the change's id.
    package static func recordChange(_ code: String, at now: Int64, on sql: DatabaseConnection) async throws -> Int64 {
        let row = try await sql.raw(
            "INSERT INTO link_changes (code, at) VALUES (\(bind: code), \(bind: now)) RETURNING id"
        ).first()
        guard let id = try row?.decode(column: "id", as: Int64.self) else {
            throw DatabaseError.unexpectedAnswer("the change log's insert returned no id")
        }
        return id
    }

    /// Inserts a link; false when its code is taken.
    package static func insert(_ code: String, document: String, at now: Int64, on sql: DatabaseConnection)
        async throws -> Bool
    {
        try await !sql.raw(
            "INSERT INTO links (code, document, created_at, updated_at) VALUES (\(bind: code), \(bind: document), \(bind: now), \(bind: now)) ON CONFLICT (code) DO NOTHING RETURNING code"
        ).all().isEmpty
    }

    /// Inserts the links of `rows` whose code is free, in one statement; returns the codes it inserted. Callers keep
    /// a statement to ``bulkRows`` rows (the databases bound the number of parameters a statement takes).
    package static func insertNew(_ rows: [(code: String, document: String)], at now: Int64, on sql: DatabaseConnection)
        async throws -> Set<String>
    {
        guard !rows.isEmpty else { return [] }
        let values = rows.map { row -> SQLQueryString in
            "(\(bind: row.code), \(bind: row.document), \(bind: now), \(bind: now))"
        }
        let inserted = try await sql.raw(
            "INSERT INTO links (code, document, created_at, updated_at) VALUES \(values.joined(separator: ", ")) ON CONFLICT (code) DO NOTHING RETURNING code"
        ).all()
        return Set(try inserted.map { try $0.decode(column: "code", as: String.self) })
    }

    /// Records that each of `codes` changed, in one statement; returns the changes' ids, in no particular order.
    package static func recordChanges(_ codes: [String], at now: Int64, on sql: DatabaseConnection) async throws
        -> [(id: Int64, code: String)]
    {
        guard !codes.isEmpty else { return [] }
        let values = codes.map { code -> SQLQueryString in "(\(bind: code), \(bind: now))" }
        return try await sql.raw(
            "INSERT INTO link_changes (code, at) VALUES \(values.joined(separator: ", ")) RETURNING id, code"
        ).all().map { (try $0.decode(column: "id", as: Int64.self), try $0.decode(column: "code", as: String.self)) }
    }

    /// The most rows one bulk statement writes: 500 rows of 4 parameters stay far below SQLite's 32,766 and
    /// PostgreSQL's 65,535.
    package static let bulkRows = 500

    /// Replaces the document of a link; false when there is none.
    package static func update(_ code: String, document: String, at now: Int64, on sql: DatabaseConnection)
        async throws -> Bool
    {
        try await !sql.raw(
            "UPDATE links SET document = \(bind: document), updated_at = \(bind: now) WHERE code = \(bind: code) RETURNING code"
        ).all().isEmpty
    }

    /// Deletes a link and its counts; false when there is none.
    package static func delete(_ code: String, on sql: DatabaseConnection) async throws -> Bool {
        try await sql.raw("DELETE FROM link_clicks WHERE code = \(bind: code)").run()
        try await sql.raw("DELETE FROM link_referrers WHERE code = \(bind: code)").run()
        for table in ["link_rule_clicks"] + AnalyticsStore.tables {
            try await sql.raw("DELETE FROM \(unsafeRaw: table) WHERE code = \(bind: code)").run()
        }
        return try await sql.raw("DELETE FROM links WHERE code = \(bind: code) RETURNING code").all().count == 1
    }
}
