import AppSiteAssociation
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
            throw DatabaseError.unreachable(database.url, reason: "the change log's insert returned no id")
        }
        return (id: id, code: code)
    }

    func find(_ code: String) async throws -> SmartLink? {
        let document: String?
        if let lookup {
            do {
                document = try lookup.text(for: code)
            } catch {
                throw DatabaseError.unreachable(database.url, reason: error.description)
            }
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

/// Recently read links, by code, in two bounded CLOCK caches: one for known links and a smaller one for unknown
/// codes, so requests for made-up codes evict each other and never a real link. This server's edits remove an
/// entry at once; other servers' edits when ``LinkStore/syncChanges()`` reports them (about every second).
/// Entries are used only while the last sync is at most ``staleness`` old, so a server that cannot read the
/// change log serves no entry older than that; a late sync reads every change since the last one and applies it,
/// and only one after a gap longer than ``forgetAfter`` (the change log may be pruned past it) starts empty.
///
/// Each cache is bounded by memory: its index is reserved once and counted from the start, and an entry counts
/// the bytes its link and its slot take (``footprint(_:_:)``),
/// so a catalogue of short links holds more entries in the same bound than one with long previews. When a new
/// entry does not fit, the clock hand evicts entries one at a time, each the first whose reference bit is clear,
/// clearing the bits it passes (a second chance for entries read since the last sweep). Nothing is ever emptied
/// at once.
final class LinkCache: Sendable {
    /// How long an entry may be used at most: a last bound on staleness should a change ever be missed (the change
    /// log bounds it otherwise; memory is bounded by size).
    let ttl: Int64
    /// The most another server's edit may stay unseen: entries are not used when the last sync is older.
    let staleness: Int64
    /// A sync after a longer gap empties the cache: changes older than half the change log's retention may be gone.
    let forgetAfter: Int64 = LinkStore.changeLogRetention / 2
    private let known: Mutex<ClockCache<SmartLink>>
    private let unknown: Mutex<ClockCache<Void>>
    /// When the change log was last read (milliseconds); entries are used only while it is recent.
    private let syncedAt: Atomic<Int64>
    private static let never = Int64.min / 2
    /// Moves whenever a sync drops entries: a document read before must not be stored after.
    private let generations = Atomic<Int>(0)
    private let emptiedCount = Atomic<Int>(0)
    /// The last change applied; nil before the first sync.
    private let changePosition = Mutex<Int64?>(nil)
    /// The ids of the changes applied recently, with when: the change log's last window is read each time.
    private let recentChanges = Mutex<[Int64: Int64]>([:])

    /// The default bound of the known links (``ServerSettings/linkCacheBytes``): about 360,000 links of a route and
    /// one destination.
    static let defaultBytes = 128 << 20

    /// - Parameters:
    ///   - bytes: the bound of the known links' entries.
    ///   - unknownBytes: the bound of the unknown codes' entries, beside; by default a tenth of `bytes`.
    init(
        ttl: Int64 = 3_600_000,
        staleness: Int64 = 5_000,
        bytes: Int = LinkCache.defaultBytes,
        unknownBytes: Int? = nil
    ) {
        self.ttl = ttl
        self.staleness = staleness
        syncedAt = Atomic(Self.never)
        known = Mutex(ClockCache(budget: bytes, smallestEntry: Self.footprint("", SmartLink(code: "", route: ""))))
        unknown = Mutex(ClockCache(budget: unknownBytes ?? bytes / 10, smallestEntry: Self.footprint("", nil)))
    }

    /// The bytes an entry takes beside the index: its slot and the heap storage of the link's strings (an estimate:
    /// what Swift allocates for each string longer than its 15 inline bytes, with the allocator's header), 336
    /// bytes for a link of a route and one destination.
    static func footprint(_ code: String, _ link: SmartLink?) -> Int {
        guard let link else { return MemoryLayout<ClockCache<Void>.Slot?>.stride + heapBytes(code) }
        let entry = MemoryLayout<ClockCache<SmartLink>.Slot?>.stride + heapBytes(code)
        let strings: [String?] = [
            link.app, link.route, link.destinations.ios, link.destinations.ipad, link.destinations.android,
            link.destinations.desktop, link.destinations.fallback, link.preview.title, link.preview.description,
            link.preview.image, link.expiredURL,
        ]
        return strings.reduce(entry) { $0 + ($1.map(heapBytes) ?? 0) }
    }

    /// A native string's object (a 32-byte header and the UTF-8 bytes), rounded to 16 bytes, and 16 for malloc.
    private static func heapBytes(_ string: String) -> Int {
        let count = string.utf8.count
        return count <= 15 ? 0 : 16 + (32 + count + 15) & ~15
    }

    var generation: Int { generations.load(ordering: .acquiring) }
    var position: Int64? { changePosition.withLock { $0 } }
    /// When the change log was last read; nil before the first read.
    var lastSync: Int64? {
        let at = syncedAt.load(ordering: .relaxed)
        return at == Self.never ? nil : at
    }

    /// `.some(link)` for a fresh entry (`.some(nil)`: a code known not to exist), nil when the database must say.
    func lookup(_ code: String, now: Int64) -> SmartLink?? {
        guard now - syncedAt.load(ordering: .relaxed) <= staleness else { return nil }
        if let link = known.withLock({ $0.value(code, now: now, ttl: ttl) }) { return .some(link) }
        if unknown.withLock({ $0.value(code, now: now, ttl: ttl) }) != nil { return .some(nil) }
        return nil
    }

    /// Keeps what the database said about `code`, unless a sync dropped entries since `generation` was read
    /// (or none has run yet: the change log's position is not known).
    func store(_ code: String, _ link: SmartLink?, now: Int64, generation: Int) {
        guard syncedAt.load(ordering: .relaxed) != Self.never else { return }
        if let link {
            known.withLock { cache in
                if generations.load(ordering: .acquiring) == generation {
                    cache.insert(code, link, cost: Self.footprint(code, link), now: now)
                }
            }
        } else {
            unknown.withLock { cache in
                if generations.load(ordering: .acquiring) == generation {
                    cache.insert(code, (), cost: Self.footprint(code, nil), now: now)
                }
            }
        }
    }

    private func remove(_ code: String) {
        known.withLock { $0.remove(code) }
        unknown.withLock { $0.remove(code) }
    }

    /// Applies this server's own committed `changes` at once: drops their codes (a read begun before the commit
    /// stores nothing: the generation moves) and remembers their ids, so that the sync does not drop the codes a
    /// second time when it reads the same changes from the log.
    func appliedHere(_ changes: [LinkStore.Change], now: Int64) {
        guard !changes.isEmpty else { return }
        generations.add(1, ordering: .releasing)
        for change in changes { remove(change.code) }
        recentChanges.withLock { recent in
            for change in changes { recent[change.id] = now }
        }
    }

    /// Applies a read of the change log up to `position`: drops `codes`, or everything when `codes` is nil (the
    /// first read: nothing is stored before it) or the last sync is older than ``forgetAfter``.
    func synced(codes: [String]?, position: Int64, now: Int64) {
        // Nothing is stored before the first read (``store(_:_:now:generation:)``): only a gap has entries to drop.
        let gap = codes != nil && now - syncedAt.load(ordering: .relaxed) > forgetAfter
        if codes == nil || gap {
            generations.add(1, ordering: .releasing)
            if gap {
                emptiedCount.add(1, ordering: .relaxed)
                known.withLock { $0 = $0.emptied() }
                unknown.withLock { $0 = $0.emptied() }
            }
        } else if let codes, !codes.isEmpty {
            generations.add(1, ordering: .releasing)
            for code in codes { remove(code) }
        }
        changePosition.withLock { $0 = position }
        syncedAt.store(now, ordering: .relaxed)
    }

    /// The codes of `changes` not applied before, remembering them for `window` milliseconds.
    func unseen(_ changes: [(id: Int64, code: String)], now: Int64, window: Int64) -> [String] {
        recentChanges.withLock { recent in
            recent = recent.filter { now - $0.value <= window }
            return changes.compactMap { change in
                recent.updateValue(now, forKey: change.id) == nil ? change.code : nil
            }
        }
    }

    var counts: (known: Int, unknown: Int) { (known.withLock { $0.count }, unknown.withLock { $0.count }) }
    /// The bytes the known links' cache takes (its index and ``footprint(_:_:)`` of each entry), at most the bound.
    var bytes: Int { known.withLock { $0.cost } }
    /// How often a sync after a gap longer than ``forgetAfter`` emptied the cache.
    var emptied: Int { emptiedCount.load(ordering: .relaxed) }
}

/// Entries up to a budget of cost, in slots with an index by key, a reference bit per slot and a hand (the CLOCK
/// algorithm). A removed or evicted entry's slot is reused by the next insert. The slots and the index are reserved
/// at once and never grow under the lock that every redirect takes (a doubling copies them: measured 1.2 s for an
/// index of 6M keys and 1.6 s for 8.6M slots): the index is the largest power-of-two table that fits in the budget
/// beside as many of the smallest entries as it can index, its bytes counted from the start (its keys are hashed
/// all over it, so all of it is soon touched), and the entries are at most that many. Untouched slots take no
/// memory.
struct ClockCache<Value> {
    struct Slot {
        var key: String
        var value: Value
        var storedAt: Int64
        var cost: Int
        var referenced: Bool
    }

    let budget: Int
    /// The most entries: what the index holds without growing.
    let limit: Int
    /// The bytes taken: the index's, and the entries'.
    private(set) var cost: Int
    private let indexCost: Int
    private var slots: [Slot?] = []
    private var free: [Int] = []
    private var index: [String: Int]
    private var hand = 0
    private let smallestEntry: Int

    init(budget: Int, smallestEntry: Int) {
        precondition(budget > 0 && smallestEntry > 0, "a cache holds at least one entry")
        self.budget = budget
        self.smallestEntry = smallestEntry
        // Sized for no more than the machine's memory, whatever the budget says.
        let room = min(budget, Int(clamping: ProcessInfo.processInfo.physicalMemory))
        var buckets = 2
        while Self.indexBytes(buckets: buckets * 2) + buckets * 2 * 3 / 4 * smallestEntry <= room { buckets *= 2 }
        limit = max(1, buckets * 3 / 4)
        index = Dictionary(minimumCapacity: limit)
        slots.reserveCapacity(limit)
        indexCost = Self.indexBytes(buckets: buckets)
        cost = indexCost
    }

    /// A Swift dictionary's table: a key (16 bytes) and a slot number (8) per bucket, and a bit of its bitmap; it
    /// holds three quarters as many entries as buckets.
    static func indexBytes(buckets: Int) -> Int {
        buckets * (MemoryLayout<String>.stride + MemoryLayout<Int>.stride) + buckets / 8
    }

    /// An empty cache of the same budget.
    func emptied() -> ClockCache { ClockCache(budget: budget, smallestEntry: smallestEntry) }

    var count: Int { index.count }

    /// The value of `key` stored less than `ttl` ago, marked as used; nil otherwise.
    mutating func value(_ key: String, now: Int64, ttl: Int64) -> Value? {
        guard let position = index[key], let slot = slots[position] else { return nil }
        guard now - slot.storedAt < ttl else { return nil }
        slots[position]!.referenced = true
        return slot.value
    }

    /// Stores `value` under `key`, evicting entries until its `cost` fits and the index has room (an entry costing
    /// more than the budget beside the index is not kept).
    mutating func insert(_ key: String, _ value: Value, cost: Int, now: Int64) {
        remove(key)
        guard indexCost + cost <= budget else { return }
        while self.cost + cost > budget || index.count >= limit { evict() }
        let slot = Slot(key: key, value: value, storedAt: now, cost: cost, referenced: false)
        let position: Int
        if let reused = free.popLast() {
            position = reused
            slots[position] = slot
        } else {
            position = slots.count
            slots.append(slot)
        }
        index[key] = position
        self.cost += cost
    }

    mutating func remove(_ key: String) {
        guard let position = index.removeValue(forKey: key) else { return }
        cost -= slots[position]!.cost
        slots[position] = nil
        free.append(position)
    }

    /// Evicts the first unreferenced entry after the hand, clearing the bits it passes (some entry is stored).
    private mutating func evict() {
        while true {
            let position = hand
            hand = (hand + 1) % slots.count
            guard let slot = slots[position] else { continue }
            if slot.referenced {
                slots[position]!.referenced = false
            } else {
                remove(slot.key)
                return
            }
        }
    }
}

/// Reads documents for codes the cache missed, many codes per query: a miss joins the batch being gathered while up
/// to ``maxInFlight`` queries run, so under load one round trip (and one statement parsed) serves dozens of misses
/// instead of one. No timer: an idle server's miss is sent at once.
final class MissBatcher: Sendable {
    typealias Waiter = CheckedContinuation<String?, any Error>
    private struct State {
        var waiting: [String: [Waiter]] = [:]
        var inFlight = 0
    }

    private let state = Mutex(State())
    private let fetch: @Sendable ([String]) async throws -> [String: String]
    /// Queries at once (the pool holds about 8 connections: the rest stay for edits, counts and syncs).
    static let maxInFlight = 4
    /// Codes per query.
    static let maxBatch = 256

    init(fetch: @escaping @Sendable ([String]) async throws -> [String: String]) {
        self.fetch = fetch
    }

    /// The stored document of `code`, or nil when there is none.
    func document(_ code: String) async throws -> String? {
        try await withCheckedThrowingContinuation { (waiter: Waiter) in
            let start = state.withLock { state in
                state.waiting[code, default: []].append(waiter)
                guard state.inFlight < Self.maxInFlight else { return false }
                state.inFlight += 1
                return true
            }
            if start { Task { await self.drain() } }
        }
    }

    /// Sends batches until no code waits.
    private func drain() async {
        while true {
            let batch: [String: [Waiter]] = state.withLock { state in
                guard !state.waiting.isEmpty else {
                    state.inFlight -= 1
                    return [:]
                }
                var taken: [String: [Waiter]] = [:]
                for (code, waiters) in state.waiting {
                    taken[code] = waiters
                    if taken.count == Self.maxBatch { break }
                }
                for code in taken.keys { state.waiting[code] = nil }
                return taken
            }
            if batch.isEmpty { return }
            do {
                let found = try await fetch(Array(batch.keys))
                for (code, waiters) in batch {
                    for waiter in waiters { waiter.resume(returning: found[code]) }
                }
            } catch {
                for waiters in batch.values {
                    for waiter in waiters { waiter.resume(throwing: error) }
                }
            }
        }
    }
}
