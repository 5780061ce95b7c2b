import Foundation
import SQLKit
import Synchronization

/// Links in the database, one JSON document per code, with the documents that redirects read kept in
/// memory for a few seconds (another server on the same PostgreSQL sees a change within `cacheSeconds`;
/// this one at once).
struct LinkStore: Sendable {
    let database: Database
    let clock: WallClock
    let cache = LinkCache()

    /// The link of `code` as a redirect needs it: from memory when read in the last few seconds.
    func resolve(_ code: String) async throws -> SmartLink? {
        let now = clock.milliseconds()
        if let hit = cache.lookup(code, now: now) { return hit.link }
        let link = try await find(code)
        cache.store(code, link, now: now)
        return link
    }

    func find(_ code: String) async throws -> SmartLink? {
        let row = try await database.withConnection { sql in
            try await sql.raw("SELECT document FROM links WHERE code = \(bind: code)").first()
        }
        guard let document = try row?.decode(column: "document", as: String.self) else { return nil }
        return try JSONDecoder().decode(SmartLink.self, from: Data(document.utf8))
    }

    /// Inserts `link`; false when its code is taken.
    func insert(_ link: SmartLink) async throws -> Bool {
        let now = clock.milliseconds()
        let document = try Self.encode(link)
        let rows = try await database.withConnection { sql in
            try await sql.raw(
                "INSERT INTO links (code, document, created_at, updated_at) VALUES (\(bind: link.code), \(bind: document), \(bind: now), \(bind: now)) ON CONFLICT (code) DO NOTHING RETURNING code"
            ).all()
        }
        cache.remove(link.code)
        return rows.count == 1
    }

    /// Replaces the document of an existing code; false when there is none.
    func update(_ link: SmartLink) async throws -> Bool {
        let document = try Self.encode(link)
        let now = clock.milliseconds()
        let rows = try await database.withConnection { sql in
            try await sql.raw("UPDATE links SET document = \(bind: document), updated_at = \(bind: now) WHERE code = \(bind: link.code) RETURNING code").all()
        }
        cache.remove(link.code)
        return rows.count == 1
    }

    func delete(_ code: String) async throws -> Bool {
        defer { cache.remove(code) }
        return try await database.transaction { sql in
            try await sql.raw("DELETE FROM link_clicks WHERE code = \(bind: code)").run()
            return try await sql.raw("DELETE FROM links WHERE code = \(bind: code) RETURNING code").all().count == 1
        }
    }

    /// A page of links in code order, after `cursor`.
    func list(after cursor: String?, limit: Int) async throws -> [SmartLink] {
        let rows = try await database.withConnection { sql in
            try await sql.raw("SELECT document FROM links WHERE code > \(bind: cursor ?? "") ORDER BY code LIMIT \(bind: limit)").all()
        }
        return try rows.map { try JSONDecoder().decode(SmartLink.self, from: Data(try $0.decode(column: "document", as: String.self).utf8)) }
    }

    /// Clicks per day and platform, bots apart.
    func stats(_ code: String) async throws -> [(day: String, platform: String, bot: Bool, clicks: Int64)] {
        let rows = try await database.withConnection { sql in
            try await sql.raw("SELECT day, platform, bot, clicks FROM link_clicks WHERE code = \(bind: code) ORDER BY day, platform").all()
        }
        return try rows.map {
            (try $0.decode(column: "day", as: String.self), try $0.decode(column: "platform", as: String.self),
             try $0.decode(column: "bot", as: Bool.self), try $0.decode(column: "clicks", as: Int64.self))
        }
    }

    static func encode(_ link: SmartLink) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(link), as: UTF8.self)
    }
}

/// Recently read links (and unknown codes), by code, for `ttl` milliseconds; at most `capacity` entries.
final class LinkCache: Sendable {
    let ttl: Int64 = 5_000
    let capacity = 10_000
    private let entries = Mutex<[String: (link: SmartLink?, at: Int64)]>([:])

    func lookup(_ code: String, now: Int64) -> (link: SmartLink?, at: Int64)? {
        entries.withLock { entries in
            guard let entry = entries[code], now - entry.at < ttl else { return nil }
            return entry
        }
    }

    func store(_ code: String, _ link: SmartLink?, now: Int64) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[code] = (link, now)
        }
    }

    func remove(_ code: String) {
        _ = entries.withLock { $0.removeValue(forKey: code) }
    }
}
