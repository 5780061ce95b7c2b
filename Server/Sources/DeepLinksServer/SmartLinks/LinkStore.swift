import AppSiteAssociation
import DeepLinksStorage
import Foundation
import SQLKit
import Synchronization

/// Links in the database, one JSON document per code, with the documents that redirects read kept in memory
/// (``LinkCache``). Every edit also writes a row to `link_changes`; each server reads the new rows every second
/// (``syncChanges()``) and drops those codes from its cache, so another server's edit is seen within about a
/// second, and never later than ``LinkCache/staleness`` (past it, cached entries are not used until a sync).
struct LinkStore: Sendable {
    let database: Database
    let clock: WallClock
    let cache: LinkCache
    /// `link.created`, `link.updated` and `link.deleted` for the webhook endpoints, queued with the change.
    var events: WebhookEvents? = nil
    /// On a SQLite file, a cache miss reads its document on the caller's thread, its statement prepared once
    /// (``SQLiteLookup``); elsewhere through ``Database/read(_:)``.
    private let lookup: SQLiteLookup?
    /// On PostgreSQL, misses that arrive together are read together, one query for many codes (``MissBatcher``).
    private let batcher: MissBatcher?

    init(database: Database, clock: WallClock, cacheBytes: Int = LinkCache.defaultBytes) {
        self.database = database
        self.clock = clock
        cache = LinkCache(bytes: cacheBytes)
        if case .sqliteFile(let path) = database.url {
            lookup = SQLiteLookup(path: path, sql: "SELECT document FROM links WHERE code = ?1")
        } else {
            lookup = nil
        }
        batcher =
            database.kind == .postgresql
            ? MissBatcher { codes in
                let rows = try await database.read { sql in
                    try await sql.raw(
                        "SELECT code, document FROM links WHERE code IN (\(codes.map { SQLQueryString("\(bind: $0)") }.joined(separator: ", ")))"
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
            } : nil
    }

    /// The link of `code` as a redirect needs it: from memory when read in the last few seconds.
    /// - Parameter beforeLookup: runs when the cache does not know the code, before the database is asked; it
    ///   may refuse (throw) a client that made up too many codes.
    func resolve(_ code: String, beforeLookup: () throws -> Void = {}) async throws -> SmartLink? {
        let now = clock.milliseconds()
        if let hit = cache.lookup(code, now: now) { return hit }
        try beforeLookup()
        // Read before the database is: a sync that drops entries meanwhile may concern this code.
        let generation = cache.generation
        let link = try await find(code)
        cache.store(code, link, now: now, generation: generation)
        return link
    }

    /// Drops from the cache the codes other servers (and this one) changed since the last sync. The first sync
    /// of a cache empties it, and so does one after a gap longer than ``LinkCache/forgetAfter`` (the change log may
    /// have been pruned past it); after a shorter gap every change since the last sync is read and applied.
    func syncChanges() async throws {
        let now = clock.milliseconds()
        guard let position = cache.position else {
            let last = try await database.read { sql in
                try await sql.raw("SELECT COALESCE(MAX(id), 0) AS id FROM link_changes").first()
            }
            cache.synced(codes: nil, position: try last?.decode(column: "id", as: Int64.self) ?? 0, now: now)
            return
        }
        // PostgreSQL hands out ids when rows are written, not when they commit: a change with a smaller id can
        // commit after a larger one was read. So the changes written in the last `window` before the last sync are
        // read again each time, and only ids not seen before drop codes. Read in pages by id: a burst of changes
        // (an import) larger than a page is read to its end.
        let since = min(now, cache.lastSync ?? now) - Self.window
        var changes: [(id: Int64, code: String)] = []
        var cursor = Int64.min
        while true {
            let after = cursor
            let rows = try await database.read { sql in
                try await sql.raw(
                    """
                    SELECT id, code FROM link_changes WHERE id > \(bind: after) AND (id > \(bind: position) OR at >= \(bind: since))
                    ORDER BY id LIMIT \(bind: Self.syncBatch)
                    """
                ).all()
            }
            for row in rows {
                changes.append(
                    (
                        id: try row.decode(column: "id", as: Int64.self),
                        code: try row.decode(column: "code", as: String.self)
                    )
                )
            }
            guard rows.count == Self.syncBatch, let last = changes.last else { break }
            cursor = last.id
        }
        cache.synced(
            codes: cache.unseen(changes, now: now, window: now - since),
            position: max(position, changes.last?.id ?? position),
            now: now
        )
    }

    static let syncBatch = 10_000
    /// How long a change may take to commit after its id was taken (longer than PostgreSQL's statement timeout).
    static let window: Int64 = 30_000
    /// How long the change log keeps a change (``Pruning``): twice ``LinkCache/forgetAfter``.
    static let changeLogRetention: Int64 = 3_600_000

    typealias Change = (id: Int64, code: String)

    /// Whether `code` is no link now but was one within `window` (the change log says so): the console's notice
    /// of a deletion names only such a code.
    func wasDeleted(_ code: String, withinMilliseconds window: Int64) async throws -> Bool {
        guard try await find(code) == nil else { return false }
        let row = try await database.withConnection { sql in
            try await sql.raw(
                "SELECT id FROM link_changes WHERE code = \(bind: code) AND at > \(bind: clock.milliseconds() - window)"
            ).first()
        }
        return row != nil
    }

    /// Records that `code` changed, in the edit's transaction: the other servers' caches drop it. Once the edit is
    /// committed, ``LinkCache/appliedHere(_:now:)`` drops it from this server's.
    private func changed(_ code: String, on sql: any SQLDatabase) async throws -> Change {
        let row = try await sql.raw(
            "INSERT INTO link_changes (code, at) VALUES (\(bind: code), \(bind: clock.milliseconds())) RETURNING id"
        ).first()
        guard let id = try row?.decode(column: "id", as: Int64.self) else {
            throw DatabaseError.unexpectedAnswer("the change log's insert returned no id")
        }
        return (id: id, code: code)
    }

    func find(_ code: String) async throws -> SmartLink? {
        let document: String?
        if let lookup {
            document = try lookup.text(for: code)
        } else if let batcher {
            document = try await batcher.document(code)
        } else {
            let row = try await database.read { sql in
                try await sql.raw("SELECT document FROM links WHERE code = \(bind: code)").first()
            }
            document = try row?.decode(column: "document", as: String.self)
        }
        guard let document else { return nil }
        return try JSONDecoder().decode(SmartLink.self, from: Data(document.utf8))
    }

    /// Inserts `link`; false when its code is taken.
    func insert(_ link: SmartLink) async throws -> Bool {
        let now = clock.milliseconds()
        let document = try Self.encode(link)
        let changes = try await database.transaction { sql -> [Change] in
            let rows = try await sql.raw(
                "INSERT INTO links (code, document, created_at, updated_at) VALUES (\(bind: link.code), \(bind: document), \(bind: now), \(bind: now)) ON CONFLICT (code) DO NOTHING RETURNING code"
            ).all()
            guard !rows.isEmpty else { return [] }
            try await events?.enqueue("link.created", try Self.document(link), on: sql)
            return [try await changed(link.code, on: sql)]
        }
        cache.appliedHere(changes, now: clock.milliseconds())
        return !changes.isEmpty
    }

    enum ImportOutcome: String, Sendable {
        case imported, replaced, skipped
    }

    /// Writes `links` in one transaction: each new code inserted; a taken one left (`skip`) or overwritten
    /// (`replace`).
    func importBatch(_ links: [SmartLink], replacing: Bool) async throws -> [ImportOutcome] {
        let now = clock.milliseconds()
        let (outcomes, changes) = try await database.transaction { sql in
            var outcomes: [ImportOutcome] = []
            var changes: [Change] = []
            for link in links {
                let document = try Self.encode(link)
                let inserted = try await sql.raw(
                    "INSERT INTO links (code, document, created_at, updated_at) VALUES (\(bind: link.code), \(bind: document), \(bind: now), \(bind: now)) ON CONFLICT (code) DO NOTHING RETURNING code"
                ).all()
                if !inserted.isEmpty {
                    outcomes.append(.imported)
                } else if replacing {
                    try await sql.raw(
                        "UPDATE links SET document = \(bind: document), updated_at = \(bind: now) WHERE code = \(bind: link.code)"
                    ).run()
                    outcomes.append(.replaced)
                } else {
                    outcomes.append(.skipped)
                    continue
                }
                changes.append(try await changed(link.code, on: sql))
                let type = outcomes.last == .imported ? "link.created" : "link.updated"
                try await events?.enqueue(type, try Self.document(link), on: sql)
            }
            return (outcomes, changes)
        }
        cache.appliedHere(changes, now: clock.milliseconds())
        return outcomes
    }

    /// Which of `codes` are links already.
    func existing(_ codes: [String]) async throws -> Set<String> {
        var found = Set<String>()
        for start in stride(from: 0, to: codes.count, by: 500) {
            let batch = codes[start..<min(start + 500, codes.count)]
            let rows = try await database.withConnection { sql in
                try await sql.raw(
                    "SELECT code FROM links WHERE code IN (\(batch.map { SQLQueryString("\(bind: $0)") }.joined(separator: ", ")))"
                ).all()
            }
            for row in rows { found.insert(try row.decode(column: "code", as: String.self)) }
        }
        return found
    }

    /// Replaces the document of an existing code; false when there is none.
    func update(_ link: SmartLink) async throws -> Bool {
        let document = try Self.encode(link)
        let now = clock.milliseconds()
        let changes = try await database.transaction { sql -> [Change] in
            let rows = try await sql.raw(
                "UPDATE links SET document = \(bind: document), updated_at = \(bind: now) WHERE code = \(bind: link.code) RETURNING code"
            ).all()
            guard !rows.isEmpty else { return [] }
            try await events?.enqueue("link.updated", try Self.document(link), on: sql)
            return [try await changed(link.code, on: sql)]
        }
        cache.appliedHere(changes, now: clock.milliseconds())
        return !changes.isEmpty
    }

    func delete(_ code: String) async throws -> Bool {
        let changes = try await database.transaction { sql -> [Change] in
            try await sql.raw("DELETE FROM link_clicks WHERE code = \(bind: code)").run()
            try await sql.raw("DELETE FROM link_referrers WHERE code = \(bind: code)").run()
            guard try await sql.raw("DELETE FROM links WHERE code = \(bind: code) RETURNING code").all().count == 1
            else { return [] }
            try await events?.enqueue("link.deleted", .object(["code": .string(code)]), on: sql)
            return [try await changed(code, on: sql)]
        }
        cache.appliedHere(changes, now: clock.milliseconds())
        return !changes.isEmpty
    }

    /// A page of links in code order, after `cursor`.
    func list(after cursor: String?, limit: Int) async throws -> [SmartLink] {
        let rows = try await database.withConnection { sql in
            try await sql.raw(
                "SELECT document FROM links WHERE code > \(bind: cursor ?? "") ORDER BY code LIMIT \(bind: limit)"
            ).all()
        }
        return try rows.map {
            try JSONDecoder().decode(
                SmartLink.self,
                from: Data(try $0.decode(column: "document", as: String.self).utf8)
            )
        }
    }

    /// A page of links in code order after `cursor`, those whose code or document holds `text` (any case), each
    /// with its clicks by people: the console's list.
    func search(_ text: String, after cursor: String?, limit: Int) async throws -> [(link: SmartLink, clicks: Int64)] {
        // LIKE's wildcards in the text are literal.
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
        return try rows.map { row in
            (
                try JSONDecoder().decode(
                    SmartLink.self,
                    from: Data(try row.decode(column: "document", as: String.self).utf8)
                ),
                try row.decode(column: "clicks", as: Int64.self)
            )
        }
    }

    /// Clicks per day and platform, bots apart.
    typealias ClickRow = (day: String, platform: String, bot: Bool, source: String, clicks: Int64)

    func stats(_ code: String) async throws -> [ClickRow] {
        let rows = try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT day, platform, bot, source, clicks FROM link_clicks WHERE code = \(bind: code)
                ORDER BY day, platform, source
                """
            ).all()
        }
        return try rows.map {
            (
                try $0.decode(column: "day", as: String.self), try $0.decode(column: "platform", as: String.self),
                try $0.decode(column: "bot", as: Bool.self), try $0.decode(column: "source", as: String.self),
                try $0.decode(column: "clicks", as: Int64.self)
            )
        }
    }

    /// The sites people came from (hosts of their `Referer`), most clicks first, at most `limit`.
    func referrers(_ code: String, limit: Int = 20) async throws -> [(host: String, clicks: Int64)] {
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

    /// A link as an event's data: its stored document.
    private static func document(_ link: SmartLink) throws -> JSONValue {
        try JSONValue.parse(Data(try encode(link).utf8))
    }

    private static func encode(_ link: SmartLink) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(link), as: UTF8.self)
    }
}
