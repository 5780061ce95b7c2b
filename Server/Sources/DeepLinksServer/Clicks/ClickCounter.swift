import DeepLinksJSON
import DeepLinksStorage
import Foundation
import HTTPTypes
import NIOCore
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

    /// Clicks of a link in an hour (`YYYY-MM-DDTHH`, UTC) by class: `link_click_hours`, and summed per day,
    /// `link_click_days`.
    struct HourKey: Hashable {
        let code: String
        let hour: String
        let visitorClass: VisitorClass
    }

    /// A visitor of a link on a day: `click_visitors`, whose primary key makes each count once across replicas.
    struct VisitorKey: Hashable {
        let code: String
        let day: String
        let visitor: String
    }

    /// Clicks of a link on a day with one value of a facet (country, os...) by class: `link_click_facets`.
    struct FacetKey: Hashable {
        let code: String
        let day: String
        let facet: String
        let value: String
        let visitorClass: VisitorClass
    }

    /// A click as the redirect leaves it when the analytics are on: the request's headers (retained, not
    /// copied) and peer, read by the flush job (``absorb()``), off the request's path, then dropped. Never written.
    struct RawClick: Sendable {
        let code: String
        let platform: ClientPlatform
        let source: ClickSource
        let rule: RuleHit?
        let headers: HTTPFields
        let peer: SocketAddress?
        let milliseconds: Int64
    }

    private struct Pending {
        var raw: [RawClick] = []
        var clicks: [Key: Int64] = [:]
        var referrers: [ReferrerKey: Int64] = [:]
        var rules: [RuleKey: Int64] = [:]
        var hours: [HourKey: Int64] = [:]
        /// Each visitor seen since the last flush, with the hour and class of its first click then.
        var visitors: [VisitorKey: HourKey] = [:]
        var facets: [FacetKey: Int64] = [:]
        /// Clicks by class of a batch ``absorb()`` counted, for the metrics (not stored).
        var classes: [VisitorClass: Int64] = [:]
    }

    private let pending = Mutex(Pending())

    /// The clicks counted and not written yet.
    var unwritten: Int64 { pending.withLock { Int64($0.raw.count) + $0.clicks.values.reduce(0, +) } }
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

    /// The click analytics (``ClickAnalytics``), nil when `--analytics off`: then only the counts above are kept.
    let analytics: ClickAnalytics?

    init(
        database: Database,
        metrics: ServerMetrics? = nil,
        events: WebhookEvents? = nil,
        analytics: ClickAnalytics? = nil,
        maxReferrerPairs: Int = 100_000,
        spacing: Duration = .seconds(5)
    ) {
        self.analytics = analytics
        self.maxReferrerPairs = maxReferrerPairs
        self.spacing = spacing
        self.database = database
        self.metrics = metrics
        self.events = events
    }

    /// A click counted without the analytics (`--analytics off`; with them, ``record(_:)``): a preview fetcher's
    /// click is then the only one not counted as a person's.
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
        let click = keys(
            code: code,
            platform: platform,
            source: source,
            referrer: referrer,
            rule: rule,
            facts: nil,
            at: milliseconds
        )
        pending.withLock { Self.add(click, to: &$0) }
        metrics?.clicksCounted[click.visitorClass]?.increment()
    }

    /// One click's keys in every table it is counted in.
    private struct Keys {
        let key: Key
        let referred: ReferrerKey?
        let ruled: RuleKey?
        let hour: HourKey?
        let visitor: VisitorKey?
        let facets: [FacetKey]
        let visitorClass: VisitorClass
    }

    /// The keys of a click (made outside the lock).
    private func keys(
        code: String,
        platform: ClientPlatform,
        source: ClickSource,
        referrer: String?,
        rule: RuleHit?,
        facts: ClickFacts?,
        at milliseconds: Int64
    ) -> Keys {
        let day = Self.day(milliseconds)
        let visitorClass = facts?.visitorClass ?? (platform == .previewBot ? .previews : .people)
        let person = visitorClass == .people
        let key = Key(code: code, day: day, platform: platform.rawValue, bot: !person, source: source)
        let referred = referrer.flatMap { person ? referrerKey(code: code, day: day, host: $0) : nil }
        let ruled = rule.map { RuleKey(code: code, day: day, rule: $0.rule, variant: $0.variant ?? "") }
        let hour = facts.map { _ in
            HourKey(code: code, hour: Self.hour(milliseconds, day: day), visitorClass: visitorClass)
        }
        return Keys(
            key: key,
            referred: referred,
            ruled: ruled,
            hour: hour,
            visitor: facts?.visitor.map { VisitorKey(code: code, day: day, visitor: $0) },
            facets: facts.map { Self.facets($0, code: code, day: day) } ?? [],
            visitorClass: visitorClass
        )
    }

    /// Adds one click to `counted`.
    private static func add(_ click: Keys, to counted: inout Pending) {
        counted.clicks[click.key, default: 0] += 1
        if let referred = click.referred { counted.referrers[referred, default: 0] += 1 }
        if let ruled = click.ruled { counted.rules[ruled, default: 0] += 1 }
        if let hour = click.hour {
            counted.hours[hour, default: 0] += 1
            if let visitor = click.visitor, counted.visitors[visitor] == nil { counted.visitors[visitor] = hour }
        }
        for facet in click.facets { counted.facets[facet, default: 0] += 1 }
    }

    /// Adds `counted` to the pending counts, under the lock once, and to the metrics.
    private func merge(_ counted: Pending) {
        pending.withLock { pending in
            pending.clicks.merge(counted.clicks, uniquingKeysWith: +)
            pending.referrers.merge(counted.referrers, uniquingKeysWith: +)
            pending.rules.merge(counted.rules, uniquingKeysWith: +)
            pending.hours.merge(counted.hours, uniquingKeysWith: +)
            pending.visitors.merge(counted.visitors) { first, _ in first }
            pending.facets.merge(counted.facets, uniquingKeysWith: +)
        }
        for (visitorClass, clicks) in counted.classes { metrics?.clicksCounted[visitorClass]?.increment(by: clicks) }
    }

    /// A click to count with the analytics (``RawClick``): on the request's path, one append.
    func record(_ click: RawClick) {
        pending.withLock { $0.raw.append(click) }
    }

    /// Counts the raw clicks recorded since the last call: their facts made (``ClickAnalytics/facts(of:cache:)``,
    /// each agent and address read once per batch), then counted in every table a click is. The flush job's work,
    /// every second.
    func absorb() {
        let raws = pending.withLock { pending in
            defer { pending.raw = [] }
            return pending.raw
        }
        guard !raws.isEmpty, let analytics else { return }
        var cache = ClickAnalytics.Cache()
        // Counted here, without the lock the redirects append under, then added to the pending counts at once.
        var counted = Pending()
        for raw in raws {
            let click = keys(
                code: raw.code,
                platform: raw.platform,
                source: raw.source,
                referrer: Self.referrerHost(raw.headers[.referer]),
                rule: raw.rule,
                facts: analytics.facts(of: raw, cache: &cache),
                at: raw.milliseconds
            )
            Self.add(click, to: &counted)
            counted.classes[click.visitorClass, default: 0] += 1
        }
        merge(counted)
    }

    /// The facets a click is counted under: its place (country, and region and city where known), OS, browser
    /// and in-app browser (`none` outside one). None for a preview fetcher: it has no place or device worth a row.
    static func facets(_ facts: ClickFacts, code: String, day: String) -> [FacetKey] {
        guard facts.visitorClass != .previews else { return [] }
        var values = [
            ("os", facts.device.os), ("browser", facts.device.browser),
            ("in_app", facts.device.inAppBrowser?.rawValue ?? "none"), ("country", facts.place?.country ?? "unknown"),
        ]
        if let place = facts.place {
            if let region = place.region { values.append(("region", "\(place.country)-\(region)")) }
            if let city = place.city { values.append(("city", "\(place.country) \(city)")) }
        }
        return values.map {
            FacetKey(
                code: code,
                day: day,
                facet: $0.0,
                value: String($0.1.prefix(100)),
                visitorClass: facts.visitorClass
            )
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
        absorb()
        let few = pending.withLock {
            $0.clicks.count + $0.referrers.count + $0.rules.count + $0.hours.count + $0.facets.count
                < Self.rowsPerStatement
        }
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
        absorb()
        let taken = pending.withLock { pending in
            defer { pending = Pending(raw: pending.raw) }
            return pending
        }
        let (batch, referrers) = (taken.clicks, taken.referrers)
        try await analytics?.refreshSalts()
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
                pending.hours.merge(taken.hours, uniquingKeysWith: +)
                pending.visitors.merge(taken.visitors) { first, _ in first }
                pending.facets.merge(taken.facets, uniquingKeysWith: +)
            }
            throw error
        }
        try await flushAnalytics(hours: taken.hours, visitors: taken.visitors, facets: taken.facets)
    }

    /// Writes the analytics' counts: per chunk (each thousand keys of each table on SQLite, all at once on
    /// PostgreSQL), in one transaction, the chunk's visitors are inserted into `click_visitors` (those already
    /// there, by this server or another, are not), and the hours and days get the chunk's clicks and the visitors
    /// whose insert was new. What is not written when a statement fails is kept for the next flush.
    private func flushAnalytics(
        hours: [HourKey: Int64],
        visitors: [VisitorKey: HourKey],
        facets: [FacetKey: Int64]
    ) async throws {
        typealias Field = ClickCountStore.Field
        let hourRows = hours.sorted { ($0.key.code, $0.key.hour) < ($1.key.code, $1.key.hour) }
        let visitorRows = visitors.sorted { ($0.key.code, $0.key.visitor) < ($1.key.code, $1.key.visitor) }
        let facetRows = facets.sorted {
            ($0.key.code, $0.key.facet, $0.key.day, $0.key.value) < (
                $1.key.code, $1.key.facet, $1.key.day, $1.key.value
            )
        }
        let size =
            database.kind == .postgresql
            ? max(hourRows.count, visitorRows.count, facetRows.count, 1) : Self.rowsPerStatement
        var written = (hours: 0, visitors: 0, facets: 0)
        do {
            while written.hours < hourRows.count || written.visitors < visitorRows.count
                || written.facets < facetRows.count
            {
                let hourSlice = hourRows[written.hours..<min(written.hours + size, hourRows.count)]
                let visitorSlice = visitorRows[written.visitors..<min(written.visitors + size, visitorRows.count)]
                let facetSlice = facetRows[written.facets..<min(written.facets + size, facetRows.count)]
                try await database.transaction { sql in
                    let new = try await AnalyticsStore.addVisitors(
                        visitorSlice.map { ($0.key.code, $0.key.day, $0.key.visitor) },
                        kind: database.kind,
                        on: sql
                    )
                    var perHour: [HourKey: (clicks: Int64, visitors: Int64)] = [:]
                    for (key, clicks) in hourSlice { perHour[key, default: (0, 0)].clicks += clicks }
                    for row in new {
                        let key = VisitorKey(code: row.code, day: row.day, visitor: row.visitor)
                        if let hour = visitors[key] { perHour[hour, default: (0, 0)].visitors += 1 }
                    }
                    var perDay: [HourKey: (clicks: Int64, visitors: Int64)] = [:]
                    for (key, counts) in perHour {
                        let day = HourKey(
                            code: key.code,
                            hour: String(key.hour.prefix(10)),
                            visitorClass: key.visitorClass
                        )
                        perDay[day, default: (0, 0)].clicks += counts.clicks
                        perDay[day, default: (0, 0)].visitors += counts.visitors
                    }
                    for (table, column, counts) in [
                        ("link_click_hours", "hour", perHour), ("link_click_days", "day", perDay),
                    ] {
                        try await AnalyticsStore.add(
                            counts.sorted { ($0.key.code, $0.key.hour) < ($1.key.code, $1.key.hour) }.map {
                                [
                                    .text($0.key.code), .text($0.key.hour), .text($0.key.visitorClass.rawValue),
                                    .number($0.value.clicks), .number($0.value.visitors),
                                ] as [Field]
                            },
                            to: table,
                            keys: ["code", column, "class"],
                            sums: ["clicks", "visitors"],
                            kind: database.kind,
                            on: sql
                        )
                    }
                    try await AnalyticsStore.add(
                        facetSlice.map {
                            [
                                .text($0.key.code), .text($0.key.facet), .text($0.key.day), .text($0.key.value),
                                .text($0.key.visitorClass.rawValue), .number($0.value),
                            ]
                        },
                        to: "link_click_facets",
                        keys: ["code", "facet", "day", "value", "class"],
                        sums: ["clicks"],
                        kind: database.kind,
                        on: sql
                    )
                }
                written = (hourSlice.endIndex, visitorSlice.endIndex, facetSlice.endIndex)
            }
        } catch {
            pending.withLock { pending in
                for (key, clicks) in hourRows[written.hours...] { pending.hours[key, default: 0] += clicks }
                for (key, hour) in visitorRows[written.visitors...] where pending.visitors[key] == nil {
                    pending.visitors[key] = hour
                }
                for (key, clicks) in facetRows[written.facets...] { pending.facets[key, default: 0] += clicks }
            }
            throw error
        }
    }

    /// `YYYY-MM-DDTHH` (UTC) of a time on `day`.
    static func hour(_ milliseconds: Int64, day: String) -> String {
        let hour = (milliseconds % 86_400_000 + 86_400_000) % 86_400_000 / 3_600_000
        return day + (hour < 10 ? "T0" : "T") + String(hour)
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
