@testable import DeepLinksServer
import DeepLinksTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SQLKit
import Synchronization
import Testing

/// The link cache: single evictions with a second chance, unknown codes apart, staleness bounded by the
/// change log.
@Suite struct LinkCacheTests {
    static func link(_ code: String) -> SmartLink { SmartLink(code: code, route: "/post/1") }

    /// A cache that has read the change log at `now`, with room for `capacity` links like ``link(_:)`` and
    /// `unknownCapacity` made-up codes like `made-up-999` (exactly, for 1 and three quarters of a power of two:
    /// the index's largest table that fits with as many entries).
    static func synced(ttl: Int64 = 60_000, capacity: Int, unknownCapacity: Int, now: Int64 = 0) -> LinkCache {
        func bytes(_ entries: Int, each: Int) -> Int {
            var buckets = 2
            while buckets * 3 / 4 < entries { buckets *= 2 }
            return ClockCache<Void>.indexBytes(buckets: buckets) + entries * each
        }
        let cache = LinkCache(
            ttl: ttl,
            bytes: bytes(capacity, each: LinkCache.footprint("a", link("a"))),
            unknownBytes: bytes(unknownCapacity, each: LinkCache.footprint("made-up-999", nil))
        )
        cache.synced(codes: nil, position: 0, now: now)
        return cache
    }

    /// The bound is in bytes: long links take more of it than short ones, and one larger than the bound is not kept.
    @Test func theBoundIsMemoryNotACount() {
        let short = Self.link("a")
        var long = Self.link("b")
        long.preview.description = String(repeating: "x", count: 4_000)
        long.destinations.fallback = "https://example.com/" + String(repeating: "y", count: 500)
        let shortCost = LinkCache.footprint("a", short)
        let longCost = LinkCache.footprint("b", long)
        #expect(longCost > shortCost + 4_500, "\(longCost) against \(shortCost)")
        let small = LinkCache(bytes: longCost - 1)
        small.synced(codes: nil, position: 0, now: 0)
        small.store("s", short, now: 0, generation: small.generation)
        small.store("big", long, now: 1, generation: small.generation)
        #expect(small.lookup("big", now: 1) == nil, "larger than the bound: not kept")
        #expect(small.lookup("s", now: 1) != nil, "and nothing evicted for it")

        let cache = LinkCache(bytes: longCost + 3 * shortCost)
        cache.synced(codes: nil, position: 0, now: 0)
        for index in 0..<12 { cache.store("s\(index)", short, now: 0, generation: cache.generation) }
        #expect(cache.counts.known >= 12 && cache.bytes <= longCost + 3 * shortCost, "short links: many fit")
        cache.store("big", long, now: 1, generation: cache.generation)
        #expect(cache.lookup("big", now: 1) != nil, "a long link evicts as many short ones as it needs")
        #expect(cache.counts.known <= 4 && cache.bytes <= longCost + 3 * shortCost)
        cache.store("s99", short, now: 2, generation: cache.generation)
        #expect(cache.bytes <= longCost + 3 * shortCost && cache.lookup("s99", now: 2) != nil)
    }

    /// A link's rules take their share of the bound: twenty rules of a split each weigh kilobytes.
    @Test func rulesCountInALinksFootprint() throws {
        let plain = Self.link("r")
        var ruled = plain
        let rule = try JSONDecoder().decode(
            LinkRule.self,
            from: Data(
                #"""
                {"name":"a rule with a long name","when":{"platforms":["iphone","ipad"],"languages":["de-ch","fr-ch","it-ch"],"countries":["CH","LI"],"query":{"name":"campaign","equals":"winter-sale-2026"}},
                 "then":{"split":[{"variant":"control group","weight":50,"url":"https://shop.example.org/a/very/long/path/one"},{"variant":"treatment group","weight":50,"route":"/post/10?from=the-winter-campaign"}]}}
                """#.utf8
            )
        )
        ruled.rules = Array(repeating: rule, count: 20)
        let difference = LinkCache.footprint("r", ruled) - LinkCache.footprint("r", plain)
        // Per rule, at least its strings: the name, five tags, the query, two variants' names and destinations.
        #expect(difference > 20 * 500, "\(difference)")
    }

    @Test func aFullCacheEvictsOneEntryAndSparesTheOnesReadSinceTheLastSweep() {
        let cache = Self.synced(capacity: 3, unknownCapacity: 3)
        for code in ["a", "b", "c"] { cache.store(code, Self.link(code), now: 0, generation: cache.generation) }
        _ = cache.lookup("a", now: 1)
        _ = cache.lookup("c", now: 1)
        cache.store("d", Self.link("d"), now: 2, generation: cache.generation)
        #expect(cache.counts.known == 3, "one entry went, not all")
        #expect(cache.lookup("b", now: 3) == nil, "the first entry not read since it was stored goes")
        for code in ["a", "c", "d"] { #expect(cache.lookup(code, now: 3)??.code == code, "\(code) stays") }
    }

    @Test func unknownCodesNeverEvictKnownLinks() {
        let cache = Self.synced(capacity: 3, unknownCapacity: 3)
        for code in ["a", "b", "c"] { cache.store(code, Self.link(code), now: 0, generation: cache.generation) }
        for index in 0..<1_000 { cache.store("made-up-\(index)", nil, now: 1, generation: cache.generation) }
        #expect(cache.counts == (known: 3, unknown: 3))
        for code in ["a", "b", "c"] { #expect(cache.lookup(code, now: 2)??.code == code) }
        let miss = cache.lookup("made-up-999", now: 2)
        #expect(miss != nil && miss! == nil, "a recent unknown code is answered from memory as unknown")
        #expect(cache.lookup("made-up-0", now: 2) == nil, "an older one was evicted among the unknown")
    }

    @Test func changesDropEntriesAndStalenessIsBoundedWithoutSyncs() {
        let cache = Self.synced(capacity: 8, unknownCapacity: 8)
        #expect(LinkCache(bytes: 1_000).lookup("a", now: 0) == nil, "nothing before a first sync")
        cache.store("a", Self.link("a"), now: 0, generation: cache.generation)
        cache.store("b", Self.link("b"), now: 0, generation: cache.generation)
        cache.store("gone", nil, now: 0, generation: cache.generation)
        cache.synced(codes: ["a", "gone"], position: 7, now: 1_000)
        #expect(cache.position == 7)
        #expect(cache.lookup("a", now: 1_000) == nil && cache.lookup("gone", now: 1_000) == nil, "changed elsewhere")
        #expect(cache.lookup("b", now: 1_000) != nil, "unchanged links stay, past the old 5 s lifetime too")
        #expect(cache.lookup("b", now: 6_000) != nil, "5 s after the last sync: still used")
        #expect(cache.lookup("b", now: 6_001) == nil, "later without a sync: not used")
        cache.synced(codes: ["x"], position: 7, now: 20_000)
        #expect(cache.lookup("b", now: 20_000) != nil, "a late sync applies what changed meanwhile and keeps the rest")
        #expect(cache.emptied == 0)
        let gap = 20_000 + cache.forgetAfter + 1
        cache.synced(codes: [], position: 7, now: gap)
        #expect(cache.counts == (known: 0, unknown: 0), "a sync after a gap the change log may not cover starts empty")
        #expect(cache.emptied == 1, "and says so (deeplinks_link_cache_emptied)")

        // A document read before a sync that dropped entries is not kept: it may be the old one.
        cache.store("c", Self.link("c"), now: gap, generation: cache.generation)
        let before = cache.generation
        cache.synced(codes: ["d"], position: 8, now: gap + 500)
        cache.store("d", Self.link("d"), now: gap + 500, generation: before)
        #expect(cache.lookup("d", now: gap + 500) == nil && cache.lookup("c", now: gap + 500) != nil)
        cache.synced(codes: [], position: 8, now: gap + 1_000)
        cache.store("e", Self.link("e"), now: gap + 1_000, generation: cache.generation)
        #expect(cache.lookup("e", now: gap + 1_000) != nil, "a sync that drops nothing keeps the generation")

        let short = Self.synced(ttl: 5_000, capacity: 2, unknownCapacity: 2)
        short.store("a", Self.link("a"), now: 0, generation: short.generation)
        short.synced(codes: [], position: 0, now: 4_000)
        short.synced(codes: [], position: 0, now: 8_000)
        #expect(short.lookup("a", now: 8_000) == nil, "an entry older than its lifetime is not used")

        // This server's own edit: dropped at once, a document read before it not kept, and the sync that reads the
        // same change from the log does not drop the code a second time.
        let beforeEdit = cache.generation
        cache.appliedHere([(id: 9, code: "c")], now: gap + 1_000)
        #expect(cache.lookup("c", now: gap + 1_000) == nil, "this server's edits at once")
        cache.store("c", Self.link("c"), now: gap + 1_000, generation: beforeEdit)
        #expect(cache.lookup("c", now: gap + 1_000) == nil, "a document read before the edit is not kept")
        cache.store("c", Self.link("c"), now: gap + 1_000, generation: cache.generation)
        let read = cache.unseen([(id: 9, code: "c"), (id: 10, code: "e")], now: gap + 1_500, window: 30_000)
        #expect(read == ["e"], "another server's change is still applied")
        cache.synced(codes: read, position: 10, now: gap + 1_500)
        #expect(cache.lookup("c", now: gap + 1_500) != nil, "the sync knows the change was applied here")
        #expect(cache.lookup("e", now: gap + 1_500) == nil)
    }

    /// PostgreSQL may commit change 5 after change 6 was read: the window read again brings it, once.
    @Test func aChangeCommittedLateIsAppliedOnce() {
        let cache = Self.synced(capacity: 4, unknownCapacity: 2)
        #expect(cache.unseen([(6, "b")], now: 1_000, window: 30_000) == ["b"])
        #expect(cache.unseen([(5, "a"), (6, "b")], now: 2_000, window: 30_000) == ["a"], "the late one, not 6 again")
        #expect(cache.unseen([(5, "a"), (6, "b")], now: 3_000, window: 30_000).isEmpty)
        #expect(cache.unseen([(7, "c")], now: 40_000, window: 30_000) == ["c"], "older ids are forgotten")
    }

    /// An import writes a change per link: a burst larger than one page of the change log, all within the window
    /// read again each time, is read to its end (it used to read the same page again forever).
    @Test(arguments: TestDatabase.allCases)
    func aBurstOfChangesLargerThanAPageIsReadToItsEnd(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind, external: false) { world in
            let store = LinkStore(database: world.database, clock: world.clock.wallClock, cacheBytes: 1 << 20)
            try await store.syncChanges()
            let now = world.clock.wallClock.milliseconds()
            for code in ["kept", "last"] {
                store.cache.store(code, Self.link(code), now: now, generation: store.cache.generation)
            }
            let count = LinkStore.syncBatch * 2 + 500
            for start in stride(from: 0, to: count, by: 500) {
                let values = (start..<min(start + 500, count)).map {
                    SQLQueryString("(\(bind: $0 == count - 1 ? "last" : "import-\($0)"), \(bind: now))")
                }
                try await world.database.withConnection { sql in
                    try await sql.raw("INSERT INTO link_changes (code, at) VALUES \(values.joined(separator: ", "))")
                        .run()
                }
            }
            let done = Atomic(false)
            let sync = Task {
                try await store.syncChanges()
                done.store(true, ordering: .releasing)
            }
            let started = ContinuousClock.now
            while !done.load(ordering: .acquiring), ContinuousClock.now - started < .seconds(60) {
                try await Task.sleep(for: .milliseconds(20))
            }
            sync.cancel()
            let ended = done.load(ordering: .acquiring)
            #expect(ended, "the sync ends")
            #expect(store.cache.lookup("last", now: now) == nil, "the burst's last change is applied")
            #expect(store.cache.lookup("kept", now: now) != nil, "the links it did not name stay")
            let last = try await world.sql("SELECT MAX(id) AS id FROM link_changes").first
            #expect(store.cache.position == (try last?.decode(column: "id", as: Int64.self)))
            #expect(store.cache.emptied == 0)
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func anotherServersEditAndDeletionAreSeen(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind, external: false) { world in
            try await world.serve(SmartLinkTests.configure) { first in
                try await world.serve(SmartLinkTests.configure) { second in
                    let body = #"{"code":"moving","route":"/post/1"}"#
                    #expect(try await first.post("/v1/links", body, headers: SmartLinkTests.admin).status == .created)
                    let iPhone: HTTPFields = [.userAgent: SmartLinkTests.iPhone]
                    func target(_ api: ResetClient) async throws -> String {
                        let answer = try await api.get("/moving?d=1", headers: iPhone)
                        return answer.text.contains("/post/2")
                            ? "/post/2" : answer.text.contains("/post/1") ? "/post/1" : "?"
                    }
                    #expect(try await target(second) == "/post/1", "read by the second server (now cached)")
                    let edit = #"{"code":"moving","route":"/post/2"}"#
                    #expect(
                        try await first.client.execute(
                            uri: "/v1/links/moving",
                            method: .put,
                            headers: SmartLinkTests.admin,
                            body: ByteBuffer(string: edit)
                        ) { $0.status } == .ok
                    )
                    // The change log is read about once a second; the bound is generous because the whole suite runs
                    // in parallel on two cores (a wall-clock figure belongs to a benchmark, not to a test).
                    let edited = ContinuousClock.now
                    while try await target(second) != "/post/2", ContinuousClock.now - edited < .seconds(15) {
                        try await Task.sleep(for: .milliseconds(50))
                    }
                    #expect(try await target(second) == "/post/2", "the second server sees the edit")
                    #expect(
                        try await first.client.execute(
                            uri: "/v1/links/moving",
                            method: .delete,
                            headers: SmartLinkTests.admin
                        ) { $0.status } == .noContent
                    )
                    let deleted = ContinuousClock.now
                    while try await second.get("/moving", headers: iPhone).status != .notFound,
                        ContinuousClock.now - deleted < .seconds(15)
                    {
                        try await Task.sleep(for: .milliseconds(50))
                    }
                    #expect(try await second.get("/moving", headers: iPhone).status == .notFound, "and the deletion")
                }
            }
        }
    }
}

/// The click counter's flush: one multi-row statement per thousand keys, links that exist only.
@Suite struct ClickFlushTests {
    /// Links `c0` to `c(count - 1)`.
    static func addLinks(_ count: Int, to world: ResetWorld) async throws {
        try await addLinks((0..<count).map { "c\($0)" }, to: world)
    }

    /// Links of these codes (an empty document each: the flush reads only their codes).
    static func addLinks(_ codes: [String], to world: ResetWorld) async throws {
        let values = codes.map { SQLQueryString("(\(bind: $0), '{}', 0, 0)") }
        try await world.database.withConnection { sql in
            try await sql.raw(
                "INSERT INTO links (code, document, created_at, updated_at) VALUES \(values.joined(separator: ", "))"
            ).run()
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func keysBeyondOneStatementAreAllStoredAndDeletedLinksDropped(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            let now = world.clock.wallClock.milliseconds()
            try await Self.addLinks(500, to: world)
            let clicks = ClickCounter(database: world.database)
            // 500 links × 5 platforms = 2,500 keys; and clicks for 100 codes that are not links.
            for round in 0..<2 {
                for index in 0..<500 {
                    for platform in [ClientPlatform.iPhone, .iPad, .android, .desktop, .previewBot] {
                        clicks.count(code: "c\(index)", platform: platform, at: now)
                    }
                }
                for index in 0..<100 { clicks.count(code: "deleted\(index)", platform: .iPhone, at: now) }
                try await clicks.flush()
                let rows = try await world.sql(
                    "SELECT COUNT(*) AS n, CAST(SUM(clicks) AS BIGINT) AS total FROM link_clicks"
                ).first
                #expect(try rows?.decode(column: "n", as: Int.self) == 2_500)
                #expect(
                    try rows?.decode(column: "total", as: Int.self) == 2_500 * (round + 1),
                    "round \(round + 1) adds to the same rows"
                )
            }
        }
    }
}

extension ClickFlushTests {
    /// `clicks.counted` names the links whose counts were stored: a link deleted between its clicks and the flush
    /// loses its counts, and the event does not name it.
    @Test(arguments: TestDatabase.allCases)
    func clicksOfALinkDeletedBeforeTheFlushAreNotAnnounced(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            let now = world.clock.wallClock.milliseconds()
            try await Self.addLinks(["kept"], to: world)
            let events = WebhookEvents(endpoints: ["https://hooks.example.com/in"], clock: world.clock.wallClock)
            let clicks = ClickCounter(database: world.database, events: events)
            clicks.count(code: "kept", platform: .iPhone, at: now)
            clicks.count(code: "kept", platform: .android, at: now)
            clicks.count(code: "deleted", platform: .iPhone, at: now)
            try await clicks.flush()
            let rows = try await world.sql("SELECT body FROM webhook_outbox WHERE event_type = 'clicks.counted'")
            #expect(rows.count == 1)
            let body = try #require(rows.first).decode(column: "body", as: String.self)
            let event = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            let links = (event?["data"] as? [String: Any])?["links"] as? [[String: Any]]
            #expect(links?.map { "\($0["code"] ?? "")=\($0["clicks"] ?? "")" } == ["kept=2"], "\(body)")
        }
    }

    /// The background job writes a few keys at once, and many (a thousand or more) once they have waited the
    /// counter's spacing: fewer, larger flushes under load.
    @Test func manyKeysWaitTheSpacingAndAFewAreWrittenAtOnce() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let now = world.clock.wallClock.milliseconds()
            try await Self.addLinks(1_001, to: world)
            let clicks = ClickCounter(database: world.database, spacing: .seconds(5))
            func stored() async throws -> Int {
                try await world.sql("SELECT COUNT(*) AS n FROM link_clicks").first?.decode(column: "n", as: Int.self)
                    ?? -1
            }
            let start = ContinuousClock.now
            clicks.count(code: "c1000", platform: .iPhone, at: now)
            try await clicks.flushIfDue(now: start)
            #expect(try await stored() == 1, "one key: written at once")
            for index in 0..<1_000 { clicks.count(code: "c\(index)", platform: .iPhone, at: now) }
            try await clicks.flushIfDue(now: start + .seconds(1))
            try await clicks.flushIfDue(now: start + .seconds(4.9))
            #expect(try await stored() == 1, "a thousand keys within 5 s of the last flush: they wait")
            try await clicks.flushIfDue(now: start + .seconds(5))
            #expect(try await stored() == 1_001, "written once the spacing has passed")
        }
    }

    /// A flush writes its rows in the order of the tables' keys (so each page is written once): the counter's
    /// order is SQLite's, byte by byte, whatever the case, digits and signs of the codes.
    @Test func keysAreOrderedAsTheTableOrdersThem() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let codes = ["bbb", "Bbb", "aaa", "aa1", "A_a", "a-a", "zzz", "Z9z", "_ab", "-ab", "9ab"]
            try await Self.addLinks(codes, to: world)
            let clicks = ClickCounter(database: world.database)
            var keys: [ClickCounter.Key] = []
            for (index, code) in codes.enumerated() {
                for day in [index, 0] {
                    let at = Int64(day) * 86_400_000
                    for platform in [ClientPlatform.iPhone, .android, .previewBot] {
                        for source in [ClickSource.qr, .link] {
                            clicks.count(code: code, platform: platform, source: source, at: at)
                            keys.append(
                                ClickCounter.Key(
                                    code: code,
                                    day: ClickCounter.day(at),
                                    platform: platform.rawValue,
                                    bot: platform == .previewBot,
                                    source: source
                                )
                            )
                        }
                    }
                }
            }
            try await clicks.flush()
            let rows = try await world.sql(
                "SELECT code, day, platform, bot, source FROM link_clicks ORDER BY code, day, platform, bot, source"
            )
            let stored = try rows.map {
                ClickCounter.Key(
                    code: try $0.decode(column: "code", as: String.self),
                    day: try $0.decode(column: "day", as: String.self),
                    platform: try $0.decode(column: "platform", as: String.self),
                    bot: try $0.decode(column: "bot", as: Bool.self),
                    source: ClickSource(rawValue: try $0.decode(column: "source", as: String.self)) ?? .link
                )
            }
            let line = { (key: ClickCounter.Key) in "\(key.code) \(key.day) \(key.platform) \(key.source)" }
            #expect(stored.count == Set(keys).count)
            #expect(stored.map(line) == Set(keys).sorted().map(line))
        }
    }

    /// On SQLite a flush's rows are one JSON value (`json_each`): text that needs escaping reaches the table as it
    /// was counted (codes and referrer hosts are checked before, so this is a guard, not a path a request takes).
    @Test func textThatNeedsEscapingIsStoredAsCounted() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let code = "a\"b\\c\n\u{1}é"
            try await Self.addLinks([code], to: world)
            let clicks = ClickCounter(database: world.database)
            clicks.count(code: code, platform: .iPhone, referrer: "x\"y", at: 0)
            clicks.count(code: code, platform: .iPhone, at: 0)
            try await clicks.flush()
            let row = try await world.sql("SELECT code, clicks FROM link_clicks").first
            #expect(try row?.decode(column: "code", as: String.self) == code)
            #expect(try row?.decode(column: "clicks", as: Int.self) == 2)
            let referrer = try await world.sql("SELECT referrer FROM link_referrers").first
            #expect(try referrer?.decode(column: "referrer", as: String.self) == "x\"y")
        }
    }

    /// On SQLite each thousand keys commit on their own (other writers get the writer between them): a statement
    /// that fails keeps what was not written for the next flush, and nothing is counted twice.
    @Test func aFlushThatFailsPartWayKeepsWhatWasNotWritten() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let now = world.clock.wallClock.milliseconds()
            try await Self.addLinks(2_500, to: world)
            try await world.database.withConnection { sql in
                // The 1,501st row inserted fails: in the second batch.
                try await sql.raw("CREATE TABLE inserted (n INTEGER NOT NULL)").run()
                try await sql.raw("INSERT INTO inserted VALUES (0)").run()
                try await sql.raw(
                    """
                    CREATE TRIGGER refuse BEFORE INSERT ON link_clicks BEGIN
                    UPDATE inserted SET n = n + 1;
                    SELECT RAISE(ABORT, 'refused for the test') WHERE (SELECT n FROM inserted) > 1500;
                    END
                    """
                ).run()
            }
            let clicks = ClickCounter(database: world.database)
            for index in 0..<2_500 { clicks.count(code: "c\(index)", platform: .iPhone, at: now) }
            await #expect(throws: (any Error).self) { try await clicks.flush() }
            let partial = try await world.sql("SELECT COUNT(*) AS n FROM link_clicks").first
            let written = try partial?.decode(column: "n", as: Int.self) ?? -1
            #expect(written == ClickCounter.rowsPerStatement, "the first batch is written, the second rolled back")
            try await world.database.withConnection { sql in try await sql.raw("DROP TRIGGER refuse").run() }
            try await clicks.flush()
            let rows = try await world.sql(
                "SELECT COUNT(*) AS n, CAST(SUM(clicks) AS BIGINT) AS total FROM link_clicks"
            ).first
            #expect(try rows?.decode(column: "n", as: Int.self) == 2_500)
            #expect(try rows?.decode(column: "total", as: Int.self) == 2_500, "each click once")
        }
    }
}

/// Misses read together on PostgreSQL: every caller gets its own code's document, in far fewer queries.
@Suite struct MissBatcherTests {
    final class Queries: Sendable {
        let sizes = Mutex<[Int]>([])
    }

    @Test func concurrentMissesShareQueriesAndEachGetsItsOwnAnswer() async throws {
        let queries = Queries()
        let batcher = MissBatcher { codes in
            queries.sizes.withLock { $0.append(codes.count) }
            try await Task.sleep(for: .milliseconds(20))
            return Dictionary(uniqueKeysWithValues: codes.filter { $0.hasPrefix("known") }.map { ($0, "doc of \($0)") })
        }
        let codes = (0..<400).map { $0 % 3 == 0 ? "unknown\($0 % 50)" : "known\($0 % 150)" }
        let answers = try await withThrowingTaskGroup(of: (String, String?).self) { group in
            for code in codes { group.addTask { (code, try await batcher.document(code)) } }
            return try await group.reduce(into: [(String, String?)]()) { $0.append($1) }
        }
        #expect(answers.count == 400)
        for (code, document) in answers {
            #expect(document == (code.hasPrefix("known") ? "doc of \(code)" : nil), "\(code)")
        }
        let sizes = queries.sizes.withLock { $0 }
        #expect(sizes.allSatisfy { $0 <= MissBatcher.maxBatch })
        #expect(sizes.count < 100, "400 misses in \(sizes.count) queries")
    }

    @Test func aFailedQueryFailsEveryMissItServed() async throws {
        struct Down: Error {}
        let down = Mutex(true)
        let batcher = MissBatcher { codes in
            try await Task.sleep(for: .milliseconds(5))
            if down.withLock({ $0 }) { throw Down() }
            return Dictionary(uniqueKeysWithValues: codes.map { ($0, $0) })
        }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<20 {
                group.addTask {
                    do {
                        _ = try await batcher.document("code\(index)")
                        return false
                    } catch is Down {
                        return true
                    }
                }
            }
            let allFailed = try await group.reduce(true) { $0 && $1 }
            #expect(allFailed)
        }
        // And it serves again once the database is back.
        down.withLock { $0 = false }
        #expect(try await batcher.document("x") == "x")
    }
}
