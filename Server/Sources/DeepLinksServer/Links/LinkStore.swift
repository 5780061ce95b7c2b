import DeepLinksJSON
import DeepLinksStorage
import Foundation
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
        let documents = LinkDocumentStore(database: database)
        lookup = documents.sqliteLookup()
        batcher = database.kind == .postgresql ? MissBatcher { codes in try await documents.documents(codes) } : nil
    }

    var documents: LinkDocumentStore { LinkDocumentStore(database: database) }

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
            cache.synced(codes: nil, position: try await documents.lastChange(), now: now)
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
            let page = try await documents.changes(
                after: cursor,
                position: position,
                since: since,
                limit: Self.syncBatch
            )
            changes += page
            guard page.count == Self.syncBatch, let last = changes.last else { break }
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
        return try await documents.changed(code, since: clock.milliseconds() - window)
    }

    /// Records that `code` changed, in the edit's transaction: the other servers' caches drop it. Once the edit is
    /// committed, ``LinkCache/appliedHere(_:now:)`` drops it from this server's.
    private func changed(_ code: String, on sql: DatabaseConnection) async throws -> Change {
        (id: try await LinkDocumentStore.recordChange(code, at: clock.milliseconds(), on: sql), code: code)
    }

    func find(_ code: String) async throws -> SmartLink? {
        let document: String?
        if let lookup {
            document = try lookup.text(for: code)
        } else if let batcher {
            document = try await batcher.document(code)
        } else {
            document = try await documents.document(code)
        }
        return try document.map(Self.decode)
    }

    /// Inserts `link`; false when its code is taken.
    func insert(_ link: SmartLink) async throws -> Bool {
        let now = clock.milliseconds()
        let document = try Self.encode(link)
        let changes = try await database.transaction { sql -> [Change] in
            guard try await LinkDocumentStore.insert(link.code, document: document, at: now, on: sql) else { return [] }
            try await events?.enqueue("link.created", try Self.document(link), on: sql)
            return [try await changed(link.code, on: sql)]
        }
        cache.appliedHere(changes, now: clock.milliseconds())
        return !changes.isEmpty
    }

    enum ImportOutcome: String, Sendable {
        case imported, replaced, skipped
    }

    /// Writes `links` in one transaction, all or nothing: each new code inserted; a taken one left (`skip`) or
    /// overwritten (`replace`). Rows go in statements of ``LinkDocumentStore/bulkRows`` (20,000 links take about a
    /// second), each link's change and webhook event with them.
    func importAll(_ links: [SmartLink], replacing: Bool) async throws -> [ImportOutcome] {
        let now = clock.milliseconds()
        let rows = try links.map { (code: $0.code, document: try Self.encode($0)) }
        let (outcomes, changes) = try await database.transaction(limit: Self.importLimit) { sql in
            var outcomes: [ImportOutcome] = []
            var changes: [Change] = []
            for start in stride(from: 0, to: rows.count, by: LinkDocumentStore.bulkRows) {
                let range = start..<min(start + LinkDocumentStore.bulkRows, rows.count)
                let inserted = try await LinkDocumentStore.insertNew(Array(rows[range]), at: now, on: sql)
                var written: [(code: String, type: String, data: JSONValue)] = []
                for index in range {
                    let (link, document) = (links[index], rows[index].document)
                    if inserted.contains(link.code) {
                        outcomes.append(.imported)
                    } else if replacing {
                        _ = try await LinkDocumentStore.update(link.code, document: document, at: now, on: sql)
                        outcomes.append(.replaced)
                    } else {
                        outcomes.append(.skipped)
                        continue
                    }
                    let type = outcomes.last == .imported ? "link.created" : "link.updated"
                    written.append((link.code, type, try Self.document(link)))
                }
                changes += try await LinkDocumentStore.recordChanges(written.map(\.code), at: now, on: sql)
                try await events?.enqueue(written.map { ($0.type, $0.data) }, on: sql)
            }
            return (outcomes, changes)
        }
        cache.appliedHere(changes, now: clock.milliseconds())
        return outcomes
    }

    /// How long an import's transaction may hold its connection on PostgreSQL: the largest file
    /// (``LinkTransfer/maxImportSize``) writes in a few seconds; a database that stops answering still fails it.
    static let importLimit: Duration = .seconds(60)

    /// Which of `codes` are links already.
    func existing(_ codes: [String]) async throws -> Set<String> {
        try await documents.existing(codes)
    }

    /// Replaces the document of an existing code; false when there is none.
    func update(_ link: SmartLink) async throws -> Bool {
        let document = try Self.encode(link)
        let now = clock.milliseconds()
        let changes = try await database.transaction { sql -> [Change] in
            guard try await LinkDocumentStore.update(link.code, document: document, at: now, on: sql) else { return [] }
            try await events?.enqueue("link.updated", try Self.document(link), on: sql)
            return [try await changed(link.code, on: sql)]
        }
        cache.appliedHere(changes, now: clock.milliseconds())
        return !changes.isEmpty
    }

    func delete(_ code: String) async throws -> Bool {
        let changes = try await database.transaction { sql -> [Change] in
            guard try await LinkDocumentStore.delete(code, on: sql) else { return [] }
            try await events?.enqueue("link.deleted", .object(["code": .string(code)]), on: sql)
            return [try await changed(code, on: sql)]
        }
        cache.appliedHere(changes, now: clock.milliseconds())
        return !changes.isEmpty
    }

    /// A page of links in code order, after `cursor`.
    func list(after cursor: String?, limit: Int) async throws -> [SmartLink] {
        try await documents.documents(after: cursor, limit: limit).map(Self.decode)
    }

    /// A page of links in code order after `cursor`, those whose code or document holds `text` (any case), each
    /// with its clicks by people: the console's list.
    func search(_ text: String, after cursor: String?, limit: Int) async throws -> [(link: SmartLink, clicks: Int64)] {
        try await documents.search(text, after: cursor, limit: limit).map { (try Self.decode($0.document), $0.clicks) }
    }

    /// Clicks per day and platform, bots apart.
    typealias ClickRow = (day: String, platform: String, bot: Bool, source: String, clicks: Int64)

    func stats(_ code: String) async throws -> [ClickRow] {
        try await documents.clicks(code).map { ($0.day, $0.platform, $0.bot, $0.source, $0.clicks) }
    }

    /// The sites people came from (hosts of their `Referer`), most clicks first, at most `limit`.
    func referrers(_ code: String, limit: Int = 20) async throws -> [(host: String, clicks: Int64)] {
        try await documents.referrers(code, limit: limit)
    }

    /// Clicks per rule and variant of `link`: every rule and variant it has now (0 when never reached), then
    /// those of rules since renamed or removed.
    func ruleClicks(_ link: SmartLink) async throws -> [(rule: String, variant: String?, clicks: Int64)] {
        var counted: [String: Int64] = [:]
        for row in try await documents.ruleClicks(link.code) { counted[row.rule + "\u{0}" + row.variant] = row.clicks }
        var rows: [(rule: String, variant: String?, clicks: Int64)] = []
        for rule in link.rules ?? [] {
            let variants: [String?] = if case .split(let split) = rule.then { split.map(\.name) } else { [nil] }
            for variant in variants {
                rows.append(
                    (rule.name, variant, counted.removeValue(forKey: rule.name + "\u{0}" + (variant ?? "")) ?? 0)
                )
            }
        }
        for (key, clicks) in counted.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false)
            rows.append((String(parts[0]), parts[1].isEmpty ? nil : String(parts[1]), clicks))
        }
        return rows
    }

    /// A link as an event's data: its stored document.
    private static func document(_ link: SmartLink) throws -> JSONValue {
        try JSONValue.parse(Data(try encode(link).utf8))
    }

    private static func decode(_ document: String) throws -> SmartLink {
        let decoder = JSONDecoder()
        decoder.userInfo[SmartLink.lenient] = true
        return try decoder.decode(SmartLink.self, from: Data(document.utf8))
    }

    private static func encode(_ link: SmartLink) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(link), as: UTF8.self)
    }
}
