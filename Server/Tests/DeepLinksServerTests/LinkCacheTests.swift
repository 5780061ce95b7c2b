@testable import DeepLinksServer
import Testing

/// The link cache: single evictions with a second chance, unknown codes apart, staleness bounded.
@Suite struct LinkCacheTests {
    static func link(_ code: String) -> SmartLink { SmartLink(code: code, route: "/post/1") }

    @Test func aFullCacheEvictsOneEntryAndSparesTheOnesReadSinceTheLastSweep() {
        let cache = LinkCache(ttl: 60_000, capacity: 4, unknownCapacity: 2)
        for code in ["a", "b", "c", "d"] { cache.store(code, Self.link(code), now: 0) }
        _ = cache.lookup("a", now: 1)
        _ = cache.lookup("c", now: 1)
        cache.store("e", Self.link("e"), now: 2)
        #expect(cache.counts.known == 4, "one entry went, not all")
        #expect(cache.lookup("b", now: 3) == nil, "the first entry not read since it was stored goes")
        for code in ["a", "c", "d", "e"] { #expect(cache.lookup(code, now: 3)??.code == code, "\(code) stays") }
    }

    @Test func unknownCodesNeverEvictKnownLinks() {
        let cache = LinkCache(ttl: 60_000, capacity: 3, unknownCapacity: 2)
        for code in ["a", "b", "c"] { cache.store(code, Self.link(code), now: 0) }
        for index in 0..<1_000 { cache.store("made-up-\(index)", nil, now: 1) }
        #expect(cache.counts == (known: 3, unknown: 2))
        for code in ["a", "b", "c"] { #expect(cache.lookup(code, now: 2)??.code == code) }
        let miss = cache.lookup("made-up-999", now: 2)
        #expect(miss != nil && miss! == nil, "a recent unknown code is answered from memory as unknown")
        #expect(cache.lookup("made-up-0", now: 2) == nil, "an older one was evicted among the unknown")
    }

    @Test func entriesExpireAndEditsRemoveThem() {
        let cache = LinkCache(ttl: 5_000, capacity: 8, unknownCapacity: 8)
        cache.store("a", Self.link("a"), now: 0)
        cache.store("gone", nil, now: 0)
        #expect(cache.lookup("a", now: 4_999) != nil)
        #expect(cache.lookup("a", now: 5_000) == nil, "another server's edit is seen within the time to live")
        cache.store("a", Self.link("a"), now: 6_000)
        cache.remove("a")
        cache.remove("gone")
        #expect(
            cache.lookup("a", now: 6_001) == nil && cache.lookup("gone", now: 1) == nil,
            "this server's edits at once"
        )
        cache.store("a", Self.link("a"), now: 7_000)
        #expect(cache.counts.known == 1, "a removed entry is not counted")
    }
}

/// The click counter's flush: one multi-row statement per thousand keys, links that exist only.
@Suite struct ClickFlushTests {
    @Test(arguments: TestDatabase.allCases)
    func keysBeyondOneStatementAreAllStoredAndDeletedLinksDropped(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            let now = world.clock.wallClock.milliseconds()
            try await world.database.withConnection { sql in
                for index in 0..<500 {
                    try await sql.raw(
                        "INSERT INTO links (code, document, created_at, updated_at) VALUES (\(bind: "c\(index)"), '{}', 0, 0)"
                    ).run()
                }
            }
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
