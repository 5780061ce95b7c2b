import DeepLinksJSON
import DeepLinksStorage
import Foundation
import Prometheus
import Synchronization

/// Counts clicks in memory and writes them in batches (``ClickFlushJob``, every second), so a redirect
/// never waits for the database. Keeps aggregates only: link, day, platform, bot or not, and source; and apart,
/// the referring site of people's clicks (its host only, never the page).
final class ClickCounter: Sendable {
    /// In the order of `link_clicks`' primary key on SQLite (which compares text byte by byte).
    struct Key: Hashable, Comparable {
        let code: String
        let day: String
        let platform: String
        let bot: Bool
        let source: ClickSource

        static func < (a: Key, b: Key) -> Bool {
            ClickCounter.precedes(a.code, b.code) ?? ClickCounter.precedes(a.day, b.day)
                ?? ClickCounter.precedes(a.platform, b.platform) ?? (a.bot == b.bot ? nil : !a.bot)
                ?? ClickCounter.precedes(a.source.rawValue, b.source.rawValue) ?? false
        }
    }

    /// In the order of `link_referrers`' primary key.
    struct ReferrerKey: Hashable, Comparable {
        let code: String
        let day: String
        let host: String

        static func < (a: ReferrerKey, b: ReferrerKey) -> Bool {
            ClickCounter.precedes(a.code, b.code) ?? ClickCounter.precedes(a.day, b.day)
                ?? ClickCounter.precedes(a.host, b.host) ?? false
        }
    }

    /// Whether `a` comes before `b` byte by byte (SQLite's default collation), or nil when they are equal.
    static func precedes(_ a: String, _ b: String) -> Bool? {
        a == b ? nil : a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// In the order of `link_rule_clicks`' primary key: the rule (and variant, "" for none) a click reached.
    struct RuleKey: Hashable, Comparable {
        let code: String
        let day: String
        let rule: String
        let variant: String

        static func < (a: RuleKey, b: RuleKey) -> Bool {
            ClickCounter.precedes(a.code, b.code) ?? ClickCounter.precedes(a.day, b.day)
                ?? ClickCounter.precedes(a.rule, b.rule) ?? ClickCounter.precedes(a.variant, b.variant) ?? false
        }
    }

    private struct Pending {
        var clicks: [Key: Int64] = [:]
        var referrers: [ReferrerKey: Int64] = [:]
        var rules: [RuleKey: Int64] = [:]
    }

    private let pending = Mutex(Pending())

    /// The clicks counted and not written yet.
    var unwritten: Int64 { pending.withLock { $0.clicks.values.reduce(0, +) } }
    /// The (link, referring host) pairs seen today by this server: past ``maxReferrerPairs`` a new pair counts as
    /// `other`, so made-up Referer headers cannot grow the table (or this set) without bound.
    private let referrerPairs = Mutex<(day: String, seen: Set<ReferrerKey>)>(("", []))
    let maxReferrerPairs: Int
    /// How long counts wait between two flushes when there are at least ``rowsPerStatement`` keys to write: a
    /// flush writes each page of the tables it touches once (its rows in key order), so five seconds of clicks
    /// spread over many links cost about the page writes of one (a page of `link_clicks` holds dozens of rows).
    /// Fewer keys are written every second, so stats stay fresh while traffic is light.
    let spacing: Duration
    static let otherReferrer = "other"
    let database: Database
    let metrics: ServerMetrics?
    /// `clicks.counted` for the webhook endpoints: each flush's counts per link, queued with them (on SQLite, each
    /// thousand keys').
    let events: WebhookEvents?

    init(
        database: Database,
        metrics: ServerMetrics? = nil,
        events: WebhookEvents? = nil,
        maxReferrerPairs: Int = 100_000,
        spacing: Duration = .seconds(5)
    ) {
        self.maxReferrerPairs = maxReferrerPairs
        self.spacing = spacing
        self.database = database
        self.metrics = metrics
        self.events = events
    }

    /// - Parameters:
    ///   - referrer: the host of the click's `Referer` (``referrerHost(_:)``), counted for people only.
    ///   - rule: the rule of the link (and its variant) that decided where the click went.
    func count(
        code: String,
        platform: ClientPlatform,
        source: ClickSource = .link,
        referrer: String? = nil,
        rule: RuleHit? = nil,
        at milliseconds: Int64
    ) {
        let day = Self.day(milliseconds)
        let key = Key(code: code, day: day, platform: platform.rawValue, bot: platform == .previewBot, source: source)
        let referred = referrer.flatMap { platform == .previewBot ? nil : referrerKey(code: code, day: day, host: $0) }
        let ruled = rule.map { RuleKey(code: code, day: day, rule: $0.rule, variant: $0.variant ?? "") }
        pending.withLock { pending in
            pending.clicks[key, default: 0] += 1
            if let referred { pending.referrers[referred, default: 0] += 1 }
            if let ruled { pending.rules[ruled, default: 0] += 1 }
        }
    }

    private func referrerKey(code: String, day: String, host: String) -> ReferrerKey {
        let key = ReferrerKey(code: code, day: day, host: host)
        return referrerPairs.withLock { pairs in
            if pairs.day != day { pairs = (day, []) }
            if pairs.seen.contains(key) { return key }
            guard pairs.seen.count < maxReferrerPairs else {
                return ReferrerKey(code: code, day: day, host: Self.otherReferrer)
            }
            pairs.seen.insert(key)
            return key
        }
    }

    /// The host of a `Referer` value (`https://News.Example.com/a?b` gives `news.example.com`), or nil when it
    /// names none: its bytes scanned once, the path and query never kept.
    static func referrerHost(_ value: String?) -> String? {
        guard let value, value.utf8.count <= 4096 else { return nil }
        let bytes = Array(value.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes.count > colon + 2,
            bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        else { return nil }
        let rest = bytes[(colon + 3)...]
        let authority = rest.prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        // Credentials: not a referrer a browser sends.
        guard !authority.contains(UInt8(ascii: "@")) else { return nil }
        var host: [UInt8] = []
        for byte in authority.prefix(while: { $0 != UInt8(ascii: ":") }) {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): host.append(byte + 32)
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"),
                UInt8(ascii: "."):
                host.append(byte)
            default: return nil
            }
        }
        guard (1...253).contains(host.count), host.first != UInt8(ascii: "."), host.last != UInt8(ascii: ".") else {
            return nil
        }
        return String(decoding: host, as: UTF8.self)
    }

    /// Keys per statement, and per transaction, on SQLite (see ``flush()``).
    static let rowsPerStatement = 1_000

    private let lastFlush = Mutex<ContinuousClock.Instant?>(nil)

    /// The background job's flush (every second): ``flush()`` when the counts are few or have waited
    /// ``spacing`` since the last flush.
    func flushIfDue(now: ContinuousClock.Instant = .now) async throws {
        let few = pending.withLock { $0.clicks.count + $0.referrers.count + $0.rules.count < Self.rowsPerStatement }
        let due = lastFlush.withLock { last in
            guard few || last.map({ now - $0 >= spacing }) ?? true else { return false }
            last = now
            return true
        }
        if due { try await flush() }
    }

    /// Adds the pending counts to the tables: on PostgreSQL in one transaction, one upsert over bound arrays per
    /// table; on SQLite one multi-row upsert per thousand keys, each in its own transaction, so the mail and reset
    /// jobs get SQLite's one writer between them instead of waiting for the whole flush (over 10 s into a catalogue
    /// of 10M links). Never one statement per key. Counts for a link that no longer exists are dropped; what is not
    /// written when a statement fails is kept for the next flush.
    func flush() async throws {
        let taken = pending.withLock { pending in
            defer { pending = Pending() }
            return pending
        }
        let (batch, referrers) = (taken.clicks, taken.referrers)
        guard !batch.isEmpty else { return }
        // In key order: each statement's rows fall on neighbouring pages of the table's B-tree, and consecutive
        // statements on consecutive ones, so a page is written about once a flush instead of once per row.
        let rows = batch.sorted { $0.key < $1.key }
        let referred = referrers.sorted { $0.key < $1.key }
        let ruled = taken.rules.sorted { $0.key < $1.key }
        let size =
            database.kind == .postgresql ? max(rows.count, referred.count, ruled.count) : Self.rowsPerStatement
        var written = (clicks: 0, referrers: 0, rules: 0)
        do {
            while written.clicks < rows.count || written.referrers < referred.count || written.rules < ruled.count {
                let clicks = rows[written.clicks..<min(written.clicks + size, rows.count)]
                let referring = referred[written.referrers..<min(written.referrers + size, referred.count)]
                let byRule = ruled[written.rules..<min(written.rules + size, ruled.count)]
                try await database.transaction { sql in
                    let stored = try await ClickCountStore.add(
                        clicks.map {
                            ClickCountStore.Count(
                                code: $0.key.code,
                                day: $0.key.day,
                                platform: $0.key.platform,
                                bot: $0.key.bot,
                                source: $0.key.source.rawValue,
                                clicks: $0.value
                            )
                        },
                        kind: database.kind,
                        returningCodes: events != nil,
                        on: sql
                    )
                    try await ClickCountStore.add(
                        referring.map {
                            ClickCountStore.ReferrerCount(
                                code: $0.key.code,
                                day: $0.key.day,
                                host: $0.key.host,
                                clicks: $0.value
                            )
                        },
                        kind: database.kind,
                        on: sql
                    )
                    try await ClickCountStore.add(
                        byRule.map {
                            ClickCountStore.RuleCount(
                                code: $0.key.code,
                                day: $0.key.day,
                                rule: $0.key.rule,
                                variant: $0.key.variant,
                                clicks: $0.value
                            )
                        },
                        kind: database.kind,
                        on: sql
                    )
                    try await enqueueCounted(clicks, stored: stored, on: sql)
                }
                written = (clicks.endIndex, referring.endIndex, byRule.endIndex)
                metrics?.clicksFlushed.increment(by: clicks.reduce(0) { $0 + $1.value })
            }
        } catch {
            pending.withLock { pending in
                for (key, clicks) in rows[written.clicks...] { pending.clicks[key, default: 0] += clicks }
                for (key, clicks) in referred[written.referrers...] { pending.referrers[key, default: 0] += clicks }
                for (key, clicks) in ruled[written.rules...] { pending.rules[key, default: 0] += clicks }
            }
            throw error
        }
    }

    /// `clicks.counted` with people's clicks per link, for the webhook endpoints: only the links whose counts were
    /// `stored` (a link deleted since its clicks is not named).
    private func enqueueCounted(
        _ clicks: ArraySlice<(key: Key, value: Int64)>,
        stored: Set<String>,
        on sql: DatabaseConnection
    ) async throws {
        guard let events else { return }
        var perLink: [String: Int64] = [:]
        for (key, count) in clicks where !key.bot && stored.contains(key.code) {
            perLink[key.code, default: 0] += count
        }
        guard !perLink.isEmpty else { return }
        let counts = perLink.sorted { $0.key < $1.key }.map { code, clicks in
            JSONValue.object(["code": .string(code), "clicks": .number(Double(clicks))])
        }
        try await events.enqueue("clicks.counted", .object(["links": .array(counts)]), on: sql)
    }

    /// `YYYY-MM-DD` (UTC) of a time, by arithmetic (Howard Hinnant's days-to-civil): no calendar per click.
    static func day(_ milliseconds: Int64) -> String {
        let days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func padded(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }
}
