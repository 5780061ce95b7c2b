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
    /// - Parameter beforeLookup: runs when the cache does not know the code, before the database is asked; it
    ///   may refuse (throw) a client that made up too many codes.
    func resolve(_ code: String, beforeLookup: () throws -> Void = {}) async throws -> SmartLink? {
        let now = clock.milliseconds()
        if let hit = cache.lookup(code, now: now) { return hit }
        try beforeLookup()
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
            try await sql.raw(
                "UPDATE links SET document = \(bind: document), updated_at = \(bind: now) WHERE code = \(bind: link.code) RETURNING code"
            ).all()
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

    /// Clicks per day and platform, bots apart.
    func stats(_ code: String) async throws -> [(day: String, platform: String, bot: Bool, clicks: Int64)] {
        let rows = try await database.withConnection { sql in
            try await sql.raw(
                "SELECT day, platform, bot, clicks FROM link_clicks WHERE code = \(bind: code) ORDER BY day, platform"
            ).all()
        }
        return try rows.map {
            (
                try $0.decode(column: "day", as: String.self), try $0.decode(column: "platform", as: String.self),
                try $0.decode(column: "bot", as: Bool.self), try $0.decode(column: "clicks", as: Int64.self)
            )
        }
    }

    private static func encode(_ link: SmartLink) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(link), as: UTF8.self)
    }
}

/// Recently read links, by code, each for `ttl` milliseconds (the staleness another server's edit may see;
/// this server's own edits remove the entry at once), in two bounded CLOCK caches: one for known links and a
/// smaller one for unknown codes, so requests for made-up codes evict each other and never a real link.
///
/// When a cache is full, the clock hand evicts one entry: the first whose reference bit is clear, clearing the
/// bits it passes (a second chance for entries read since the last sweep). Nothing is ever emptied at once.
final class LinkCache: Sendable {
    let ttl: Int64
    private let known: Mutex<ClockCache<SmartLink>>
    private let unknown: Mutex<ClockCache<Void>>

    init(ttl: Int64 = 5_000, capacity: Int = 100_000, unknownCapacity: Int = 10_000) {
        self.ttl = ttl
        known = Mutex(ClockCache(capacity: capacity))
        unknown = Mutex(ClockCache(capacity: unknownCapacity))
    }

    /// `.some(link)` for a fresh entry (`.some(nil)`: a code known not to exist), nil when the database must say.
    func lookup(_ code: String, now: Int64) -> SmartLink?? {
        if let link = known.withLock({ $0.value(code, now: now, ttl: ttl) }) { return .some(link) }
        if unknown.withLock({ $0.value(code, now: now, ttl: ttl) }) != nil { return .some(nil) }
        return nil
    }

    func store(_ code: String, _ link: SmartLink?, now: Int64) {
        if let link {
            known.withLock { $0.insert(code, link, now: now) }
        } else {
            unknown.withLock { $0.insert(code, (), now: now) }
        }
    }

    func remove(_ code: String) {
        known.withLock { $0.remove(code) }
        unknown.withLock { $0.remove(code) }
    }

    var counts: (known: Int, unknown: Int) { (known.withLock { $0.count }, unknown.withLock { $0.count }) }
}

/// A fixed number of slots, an index by key, a reference bit per slot and a hand (the CLOCK algorithm).
struct ClockCache<Value> {
    private struct Slot {
        var key: String
        var value: Value
        var storedAt: Int64
        var referenced: Bool
    }

    let capacity: Int
    private var slots: [Slot?]
    private var index: [String: Int] = [:]
    private var hand = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a cache holds at least one entry")
        self.capacity = capacity
        slots = []
        slots.reserveCapacity(capacity)
    }

    var count: Int { index.count }

    /// The value of `key` stored less than `ttl` ago, marked as used; nil otherwise.
    mutating func value(_ key: String, now: Int64, ttl: Int64) -> Value? {
        guard let position = index[key], let slot = slots[position] else { return nil }
        guard now - slot.storedAt < ttl else { return nil }
        slots[position]!.referenced = true
        return slot.value
    }

    mutating func insert(_ key: String, _ value: Value, now: Int64) {
        if let position = index[key] {
            slots[position] = Slot(key: key, value: value, storedAt: now, referenced: true)
            return
        }
        let position: Int
        if slots.count < capacity {
            position = slots.count
            slots.append(nil)
        } else {
            position = victim()
            if let old = slots[position] { index[old.key] = nil }
        }
        slots[position] = Slot(key: key, value: value, storedAt: now, referenced: false)
        index[key] = position
    }

    mutating func remove(_ key: String) {
        guard let position = index.removeValue(forKey: key) else { return }
        slots[position] = nil
    }

    /// The slot to reuse: an empty one, or the first unreferenced one after the hand (clearing bits on the way).
    private mutating func victim() -> Int {
        while true {
            let position = hand
            hand = (hand + 1) % capacity
            guard let slot = slots[position] else { return position }
            if !slot.referenced { return position }
            slots[position]!.referenced = false
        }
    }
}
