import DeepLinksJSON
import DeepLinksStorage
import DeepLinksSupport
import DeepLinksTestSupport
@testable import DeepLinksServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import SQLKit
import Testing

/// The click analytics over a live socket on both databases: visitors (a daily salted hash, exact across two
/// servers on one database), classes (people, scanners by agent, address and a blank agent, previews), devices,
/// places from a trusted header, the report API in JSON and CSV, its refusals, and the console's pages.
@Suite struct ClickAnalyticsTests {
    static let forwarded = HTTPField.Name("X-Forwarded-For")!
    static let country = HTTPField.Name("CF-IPCountry")!

    static func configure(_ settings: inout ServerSettings) {
        SmartLinkTests.configure(&settings)
        settings.trustedProxies = try! TrustedProxies(["127.0.0.1", "::1"])
        settings.smartLinks.countryHeader = "CF-IPCountry"
        settings.geoipDatabase = "none"
    }

    static func click(_ api: ResetClient, from address: String, agent: String, extra: HTTPFields = [:]) async throws {
        var headers: HTTPFields = [forwarded: address, .userAgent: agent]
        headers.append(contentsOf: extra)
        let status = try await api.get("/summer", headers: headers).status
        #expect(status == .found || status == .ok, "\(agent) from \(address): \(status)")
    }

    /// The report once `people` clicks by people (and `others`: scanners' and previews') are written (the flush
    /// runs every second, and may write some of the clicks before the others).
    static func report(_ api: ResetClient, _ query: String = "", people: Int, others: Int = 0) async throws
        -> [String: Any]
    {
        var report: [String: Any] = [:]
        for _ in 0..<100 {
            report = try await api.get("/v1/links/summer/analytics\(query)", headers: SmartLinkTests.admin).object
            let totals = report["totals"] as? [String: Any] ?? [:]
            let counted = (totals["scanners"] as? Int ?? 0) + (totals["previews"] as? Int ?? 0)
            if totals["people"] as? Int == people, counted == others { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return report
    }

    static func rows(_ report: [String: Any]) -> [String: [String: Int]] {
        let rows = (report["breakdown"] as? [String: Any])?["rows"] as? [[String: Any]] ?? []
        return Dictionary(
            uniqueKeysWithValues: rows.map { row in
                (
                    row["value"] as? String ?? "",
                    ["people": row["people"] as? Int ?? -1, "scanners": row["scanners"] as? Int ?? -1]
                )
            }
        )
    }

    @Test(arguments: TestDatabase.allCases)
    func visitorsClassesDevicesAndPlacesAreCounted(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve(Self.configure) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                let swiss: HTTPFields = [Self.country: "ch"]
                for _ in 0..<3 {
                    try await Self.click(api, from: "198.51.100.7", agent: SmartLinkTests.iPhone, extra: swiss)
                }
                try await Self.click(
                    api,
                    from: "198.51.100.8",
                    agent: SmartLinkTests.iPhone,
                    extra: [Self.country: "DE"]
                )
                for _ in 0..<2 { try await Self.click(api, from: "2001:db8::1", agent: SmartLinkTests.android) }
                // Scanners: by agent, by Microsoft's published range with a browser's agent, by a blank agent.
                try await Self.click(api, from: "203.0.113.5", agent: "Barracuda Sentinel (EE)")
                try await Self.click(api, from: "104.47.1.254", agent: SmartLinkTests.desktop)
                try await Self.click(api, from: "203.0.113.6", agent: "")
                try await Self.click(
                    api,
                    from: "203.0.113.7",
                    agent: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
                )
                // Global Privacy Control: not counted at all.
                try await Self.click(
                    api,
                    from: "198.51.100.9",
                    agent: SmartLinkTests.iPhone,
                    extra: [.init("Sec-GPC")!: "1"]
                )

                let report = try await Self.report(api, people: 6, others: 4)
                let totals = try #require(report["totals"] as? [String: Any])
                #expect(totals["people"] as? Int == 6, "\(report)")
                #expect(totals["visitors"] as? Int == 3, "two addresses on the iPhone, one on Android: \(totals)")
                #expect(totals["scanners"] as? Int == 3)
                #expect(totals["previews"] as? Int == 1)
                #expect((report["series"] as? [Any])?.count == 30, "the last 30 days by default")
                let stats = try await api.get("/v1/links/summer/stats", headers: SmartLinkTests.admin).object
                #expect(stats["clicks"] as? Int == 6, "scanners are not people in the stats either: \(stats)")

                let countries = Self.rows(try await Self.report(api, "?breakdown=country", people: 6))
                #expect(countries["CH"] == ["people": 3, "scanners": 0], "\(countries)")
                #expect(countries["DE"] == ["people": 1, "scanners": 0])
                #expect(countries["unknown"] == ["people": 2, "scanners": 3])
                let systems = Self.rows(try await Self.report(api, "?breakdown=os", people: 6))
                #expect(systems["iOS 17"]?["people"] == 4, "\(systems)")
                #expect(systems["Android 14"]?["people"] == 2)
                let browsers = Self.rows(try await Self.report(api, "?breakdown=browser", people: 6))
                #expect(browsers["Safari"]?["people"] == 4, "\(browsers)")
                #expect(browsers["Chrome"]?["people"] == 2)
                let classes = Self.rows(try await Self.report(api, "?breakdown=class", people: 6))
                #expect(classes["scanners"]?["scanners"] == 3, "\(classes)")
                let platforms = Self.rows(try await Self.report(api, "?breakdown=platform", people: 6))
                #expect(platforms["iphone"]?["people"] == 4 && platforms["android"]?["people"] == 2, "\(platforms)")

                let hours = try await Self.report(api, "?interval=hour", people: 6)
                let series = try #require(hours["series"] as? [[String: Any]])
                #expect(series.count == 48, "two days by hour by default")
                #expect(series.reduce(0) { $0 + ($1["people"] as? Int ?? 0) } == 6)
                #expect(series.reduce(0) { $0 + ($1["visitors"] as? Int ?? 0) } == 3, "each visitor in its first hour")

                let csv = try await api.get(
                    "/v1/links/summer/analytics?breakdown=country&format=csv",
                    headers: SmartLinkTests.admin
                )
                #expect(csv.status == .ok)
                #expect(csv.headers[.contentType] == "text/csv; charset=utf-8")
                #expect(csv.headers[.contentDisposition]?.contains("analytics-summer-") == true)
                let lines = csv.text.split(separator: "\r\n").map(String.init)
                #expect(lines.first == "country,people,scanners,previews")
                #expect(lines.contains("CH,3,0,0"), "\(lines)")

                let all = try await api.get("/v1/analytics", headers: SmartLinkTests.admin).object
                let top = try #require((all["links"] as? [[String: Any]])?.first)
                #expect(
                    top["code"] as? String == "summer" && top["clicks"] as? Int == 6 && top["visitors"] as? Int == 3
                )

                let metrics = try await api.get("/metrics").text
                #expect(metrics.contains(#"deeplinks_clicks_counted_total{class="scanners"} 3"#), "\(metrics)")
                #expect(metrics.contains(#"deeplinks_clicks_counted_total{class="people"} 6"#))

                // Seven visitors of the day (every class), none of them an address.
                let hashes = try await world.sql("SELECT visitor FROM click_visitors")
                #expect(hashes.count == 7)
            }
        }
    }

    /// `--geoip-database` names an MMDB file (written here by mmdb-writer): clicks without a country header get
    /// their country, region and city from it, and the `countries` rule reads the same; a file that is no MMDB
    /// stops the start with its reason.
    @Test func anMMDBFileGivesPlacesToTheAnalyticsAndTheCountriesRule() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mmdb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let written = try PlacesTests.python(PlacesTests.writer, [folder.path])
        guard written.status == 0 else {
            if ProcessInfo.processInfo.environment["CI"] != nil {
                Issue.record("mmdb-writer missing: \(written.output)")
            }
            print("skipped: pip install mmdb-writer maxminddb")
            return
        }
        let file = folder.appendingPathComponent("db-28-6.mmdb").path
        let swiss = #"""
            {"code":"summer","destinations":{"fallback":"https://links.example.com/"},"rules":[
              {"name":"swiss","when":{"countries":["CH"]},"then":{"url":"https://shop.example.org/ch"}}]}
            """#
        try await ResetWorld.with(.sqlite) { world in
            let settings: (inout ServerSettings) -> Void = {
                Self.configure(&$0)
                $0.smartLinks.countryHeader = nil
                $0.geoipDatabase = file
            }
            try await world.serve(settings) { api in
                #expect(try await api.post("/v1/links", swiss, headers: SmartLinkTests.admin).status == .created)
                let zurich = try await api.get(
                    "/summer",
                    headers: [Self.forwarded: "192.0.2.5", .userAgent: SmartLinkTests.desktop]
                )
                #expect(zurich.headers[.location] == "https://shop.example.org/ch", "the rule reads the MMDB file")
                let berlin = try await api.get(
                    "/summer",
                    headers: [Self.forwarded: "2001:db8:2::1", .userAgent: SmartLinkTests.desktop]
                )
                #expect(berlin.headers[.location] == "https://links.example.com/")
                try await Self.click(api, from: "8.8.8.8", agent: SmartLinkTests.desktop)
                _ = try await Self.report(api, people: 3)
                let countries = Self.rows(try await Self.report(api, "?breakdown=country", people: 3))
                #expect(countries["CH"]?["people"] == 1 && countries["DE"]?["people"] == 1, "\(countries)")
                #expect(countries["unknown"]?["people"] == 1)
                let regions = Self.rows(try await Self.report(api, "?breakdown=region", people: 3))
                #expect(regions["CH-ZH"]?["people"] == 1 && regions["DE-Land Berlin"]?["people"] == 1, "\(regions)")
                let cities = Self.rows(try await Self.report(api, "?breakdown=city", people: 3))
                #expect(cities["CH Zürich"]?["people"] == 1 && cities["DE Berlin"]?["people"] == 1, "\(cities)")
            }
            let junk = folder.appendingPathComponent("junk.mmdb")
            try Data("not a database".utf8).write(to: junk)
            do {
                try await world.serve({
                    Self.configure(&$0); $0.geoipDatabase = junk.path
                }) { _ in }
                Issue.record("a file that is no MMDB was accepted")
            } catch let error as ConfigurationError {
                #expect("\(error)".contains("no MaxMind DB metadata"), "\(error)")
                #expect("\(error)".contains("geoip database"))
            }
        }
    }

    /// A day's visitor hashes and salt are deleted once the day is over (a visitor of yesterday is a new visitor
    /// today), and the pruning keeps hours `--hourly-retention-days` and days `--click-retention-days`.
    @Test(arguments: TestDatabase.allCases)
    func visitorsAreForgottenWhenTheirDayIsOverAndCountsWhenTheirTimeIs(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve(Self.configure) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                let first = ClickCounter.day(world.clock.wallClock.milliseconds())
                try await Self.click(api, from: "198.51.100.7", agent: SmartLinkTests.iPhone)
                _ = try await Self.report(api, people: 1)
                #expect(try await world.sql("SELECT day FROM click_visitors").count == 1)
                world.clock.advance(seconds: 86_400)
                let second = ClickCounter.day(world.clock.wallClock.milliseconds())
                try await Self.click(api, from: "198.51.100.7", agent: SmartLinkTests.iPhone)
                let totals = try await Self.report(api, people: 2)["totals"] as? [String: Any]
                #expect(
                    totals?["visitors"] as? Int == 2,
                    "yesterday's visitor is today's new one: \(String(describing: totals))"
                )
                // The flush fetched tomorrow's salt and forgot yesterday's, and yesterday's visitors.
                var days: [String] = []
                for _ in 0..<100 {
                    days = try await world.sql("SELECT day FROM click_visitors").map {
                        try $0.decode(column: "day", as: String.self)
                    }
                    if days == [second] { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(days == [second])
                let salted = try await world.sql("SELECT day FROM analytics_salts").map {
                    try $0.decode(column: "day", as: String.self)
                }
                #expect(!salted.contains(first) && salted.contains(second) && salted.count == 2, "\(salted)")

                // Two days on: hours and days of the first day are past a two-day retention; the second's are not.
                let pruning = Pruning(
                    database: world.database,
                    clock: world.clock.wallClock,
                    clickRetentionDays: 2,
                    hourlyRetentionDays: 2
                )
                try await pruning.run(now: world.clock.wallClock.milliseconds() + 86_400_000)
                for table in ["link_click_days", "link_click_facets", "link_clicks"] {
                    let kept = try await world.sql("SELECT DISTINCT day FROM \(unsafeRaw: table)").map {
                        try $0.decode(column: "day", as: String.self)
                    }
                    #expect(kept == [second], "\(table): \(kept)")
                }
                let hours = try await world.sql("SELECT hour FROM link_click_hours").map {
                    try $0.decode(column: "hour", as: String.self)
                }
                #expect(hours.count == 1 && hours[0].hasPrefix(second), "\(hours)")
                #expect(try await world.sql("SELECT day FROM click_visitors").isEmpty, "the day after, none is left")
            }
        }
    }

    @Test func badQueriesAreRefusedWithTheirReason() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(Self.configure) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                for (query, parameter) in [
                    ("interval=week", "interval"), ("from=2026-02-30", "from"), ("to=tomorrow", "to"),
                    ("from=2026-03-02&to=2026-03-01", "from"), ("from=2026-01-01&to=2026-03-01&interval=hour", "from"),
                    ("from=2020-01-01&to=2026-03-01", "from"), ("breakdown=colour", "breakdown"),
                    ("format=xml", "format"),
                ] {
                    for path in ["/v1/links/summer/analytics", "/v1/analytics"] {
                        let answer = try await api.get("\(path)?\(query)", headers: SmartLinkTests.admin)
                        #expect(answer.status == .badRequest, "\(path)?\(query)")
                        #expect(answer.object["error"] as? String == "invalid_parameter")
                        #expect(answer.object["parameter"] as? String == parameter, "\(query): \(answer.text)")
                        #expect(answer.object["reason"] is String)
                    }
                }
                #expect(
                    try await api.get("/v1/links/nothing/analytics", headers: SmartLinkTests.admin).status == .notFound
                )
                #expect(try await api.get("/v1/analytics").status == .unauthorized)
            }
        }
    }

    /// Two servers on one database: a visitor who clicks through each is one visitor, because the salt is the
    /// database's and the visitor's row is inserted once.
    @Test(arguments: TestDatabase.allCases)
    func visitorsAreExactAcrossServers(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve(Self.configure) { first in
                #expect(
                    try await first.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                try await world.serve(Self.configure) { second in
                    for round in 0..<4 {
                        for address in ["198.51.100.7", "198.51.100.8", "2001:db8::7"] {
                            try await Self.click(
                                round % 2 == 0 ? first : second,
                                from: address,
                                agent: SmartLinkTests.iPhone
                            )
                        }
                    }
                    let totals = try await Self.report(second, people: 12)["totals"] as? [String: Any]
                    #expect(totals?["people"] as? Int == 12)
                    #expect(totals?["visitors"] as? Int == 3, "\(String(describing: totals))")
                }
            }
            let salts = try await world.sql("SELECT day FROM analytics_salts")
            #expect(salts.count == 2, "today's and tomorrow's, made once")
        }
    }

    @Test func theConsoleShowsTheChartTablesAndExports() async throws {
        try await ResetWorld.with(.sqlite) { world in
            _ = try await Operators(database: world.database, clock: world.clock.wallClock).create(
                email: "viewer@example.com",
                password: ConsoleTests.password,
                role: .viewer,
                hasher: world.settings().passwordReset.hasher
            )
            try await world.serve(Self.configure) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                try await Self.click(
                    api,
                    from: "198.51.100.7",
                    agent: SmartLinkTests.iPhone,
                    extra: [Self.country: "CH"]
                )
                try await Self.click(api, from: "104.47.1.254", agent: SmartLinkTests.desktop)
                _ = try await Self.report(api, people: 1, others: 1)
                let (visit, _) = try await ConsoleTests.signIn(api, "viewer@example.com")
                let session = visit.headers
                let page = try await api.get("/console/links/summer/analytics", headers: session)
                #expect(page.status == .ok)
                for part in [
                    #"<svg role="img" aria-labelledby="series-caption""#, #"id="series-table""#, #"id="by-country""#,
                    "<td>CH</td>", #"id="by-os""#, #"id="by-class""#, #"href="/console/links/summer/analytics.csv?"#,
                    "1 clicks by people from 1 visitors; 1 by mail security scanners",
                ] {
                    #expect(page.text.contains(part), "\(part)")
                }
                let overview = try await api.get("/console/analytics?interval=hour", headers: session)
                #expect(overview.status == .ok)
                #expect(
                    overview.text.contains(#"id="top-links""#)
                        && overview.text.contains("/console/links/summer/analytics?")
                )
                let csv = try await api.get("/console/links/summer/analytics.csv?breakdown=country", headers: session)
                #expect(csv.text.contains("CH,1,0,0"), "\(csv.text)")
                let wrong = try await api.get("/console/analytics?from=2026-13-01", headers: session)
                #expect(wrong.status == .badRequest && wrong.text.contains("The range is wrong: from"))
                let funnel = try await api.get("/console/links/summer/funnel", headers: session)
                #expect(funnel.status == .ok)
                #expect(funnel.text.contains(#"<th scope="row">Clicks by people</th><td class="number">1</td>"#))
                #expect(
                    funnel.text.contains(
                        #"<th scope="row">Clicks by mail security scanners</th><td class="number">1</td>"#
                    )
                )
                #expect(funnel.text.contains(#"id="export-funnel" href="/console/links/summer/funnel.csv?from="#))
                let funnelCSV = try await api.get("/console/funnel.csv", headers: session)
                #expect(funnelCSV.text.hasPrefix("step,count\r\nclicks by people,1\r\n"), "\(funnelCSV.text)")
                #expect(try await api.get("/console/funnel?to=never", headers: session).status == .badRequest)
            }
        }
    }
}

/// Nothing that identifies a visitor is written: ten thousand clicks from known addresses (IPv4 and IPv6) and
/// agents, then the database's every byte (the SQLite file with its journal, a `pg_dump` of the schema) and the logs
/// are searched for each address, as text and as bytes, and for each agent.
@Suite struct AnalyticsPrivacyTests {
    static let clicks = 10_000

    static func address(_ index: Int) -> String {
        index % 2 == 0
            ? "198.18.\(index / 2 / 256).\(index / 2 % 256)" : "2001:db8:cafe::\(String(index / 2, radix: 16)):1"
    }

    static func agent(_ index: Int) -> String {
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1 Marker/qzx\(index % 50)jv"
    }

    /// Whether `needle` occurs in `haystack`.
    static func occurs(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }

    @Test(arguments: TestDatabase.allCases)
    func noAddressOrAgentIsWrittenAnywhere(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve(ClickAnalyticsTests.configure) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for lane in 0..<16 {
                        group.addTask {
                            for index in stride(from: lane, to: Self.clicks, by: 16) {
                                try await ClickAnalyticsTests.click(
                                    api,
                                    from: Self.address(index),
                                    agent: Self.agent(index),
                                    extra: [.referer: "https://news.example.com/story?reader=\(index)"]
                                )
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                let totals = try await ClickAnalyticsTests.report(api, people: Self.clicks)["totals"] as? [String: Any]
                #expect(totals?["people"] as? Int == Self.clicks)
                #expect(totals?["visitors"] as? Int == Self.clicks, "every address is a visitor")
            }
            var stored: [UInt8] = []
            switch kind {
            case .sqlite:
                let row = try #require(try await world.sql("PRAGMA database_list").first)
                let path = try row.decode(column: "file", as: String.self)
                for suffix in ["", "-wal", "-journal"] {
                    if let data = FileManager.default.contents(atPath: path + suffix) { stored += data }
                }
            case .postgresql:
                let schema = try #require(try await world.sql("SELECT current_schema() AS s").first)
                    .decode(column: "s", as: String.self)
                let dump = Process()
                dump.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                let url = try #require(TestDatabase.postgresURL)
                dump.arguments = ["pg_dump", "--schema=\(schema)", url.components(separatedBy: "?")[0]]
                let pipe = Pipe()
                dump.standardOutput = pipe
                try dump.run()
                stored = [UInt8](pipe.fileHandleForReading.readDataToEndOfFile())
                dump.waitUntilExit()
                #expect(dump.terminationStatus == 0)
                #expect(String(decoding: stored, as: UTF8.self).contains("click_visitors"), "the dump holds the tables")
            }
            #expect(stored.count > 100_000, "\(stored.count) bytes read")
            let logs = Array(world.logs.lines.withLock { $0.joined(separator: "\n") }.utf8)
            // As text: every address sent starts 198.18. or 2001:db8:cafe: neither is anywhere.
            for prefix in ["198.18.", "2001:db8:cafe", "2001:0db8:cafe"] {
                #expect(!Self.occurs(Array(prefix.utf8), in: stored), "an address \(prefix)... is stored")
                #expect(!Self.occurs(Array(prefix.utf8), in: logs), "an address \(prefix)... is logged")
            }
            // As bytes: every IPv6 address starts with these six bytes ...
            #expect(
                !Self.occurs([0x20, 0x01, 0x0D, 0xB8, 0xCA, 0xFE], in: stored),
                "an IPv6 address is stored as bytes"
            )
            // ... and one IPv4 address in 25, each 4 bytes long (any 4 bytes turn up by chance in a binary file of
            // megabytes about once per 4,000 addresses; 200 of them keep that below 5 %), all in one pass.
            var sample = Set<UInt32>()
            for index in stride(from: 0, to: Self.clicks, by: 50) {
                sample.insert(IPAddress(Self.address(index))!.bytes.reduce(0) { $0 << 8 | UInt32($1) })
            }
            var window: UInt32 = 0
            var found: [Int] = []
            for (offset, byte) in stored.enumerated() {
                window = window << 8 | UInt32(byte)
                if offset >= 3, sample.contains(window) { found.append(offset) }
            }
            #expect(found.isEmpty, "IPv4 addresses stored as bytes at \(found)")
            for marker in 0..<50 {
                #expect(!Self.occurs(Array("qzx\(marker)jv".utf8), in: stored + logs), "agent \(marker) is kept")
            }
            #expect(!Self.occurs(Array("reader=".utf8), in: stored + logs), "the referrer's page is kept")
            #expect(!Self.occurs(Array("Safari/604.1".utf8), in: stored), "an agent is kept")
        }
    }
}
