import DeepLinksJSON
@testable import DeepLinksServer
import DeepLinksTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SQLKit
import Testing

/// Link rules over the live socket, with the headers real browsers send. Each visitor asks twice: the first
/// answer comes from the router (the link is not cached yet), the next from the cached redirect path, and both
/// must agree.
@Suite struct LinkRuleTests {
    static let admin = SmartLinkTests.admin
    /// Safari 26 on iOS 26: the `iPhone OS` token is frozen at 18_6, `Version/26.0` tells the truth.
    static let safari26 =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Mobile/15E148 Safari/604.1"
    static let safari18 =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.6 Mobile/15E148 Safari/604.1"
    /// Chrome's reduced agent on Android: `Android 10; K` whatever the device.
    static let chromeAndroid =
        "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"
    static let firefoxDesktop = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"
    static let swissGerman = "de-CH, de;q=0.9, en;q=0.5"

    static let campaign = #"""
        {"code":"campaign","route":"/post/10","destinations":{"fallback":"https://links.example.com/"},"rules":[
          {"name":"ios 26","when":{"platforms":["iphone","ipad"],"os":{"min":"26"}},"then":{"url":"https://shop.example.org/ios26"}},
          {"name":"android 14","when":{"platforms":["android"],"os":{"min":"14"}},"then":{"url":"https://shop.example.org/android14"}},
          {"name":"german","when":{"languages":["de"]},"then":{"url":"https://shop.example.org/de"}},
          {"name":"spring","when":{"query":{"name":"campaign","equals":"spring"}},"then":{"route":"/post/11"}},
          {"name":"swiss","when":{"countries":["CH"]},"then":{"store":true}},
          {"name":"android test","when":{"platforms":["android"]},"then":{"split":[
            {"variant":"a","weight":50,"url":"https://shop.example.org/a"},
            {"variant":"b","weight":50,"url":"https://shop.example.org/b"}]}}
        ]}
        """#

    static func configure(_ settings: inout ServerSettings) {
        SmartLinkTests.configure(&settings)
        settings.trustedProxies = try! TrustedProxies(["127.0.0.1", "::1"])
        settings.smartLinks.countryHeader = "CF-IPCountry"
    }

    static func withoutTrustedProxies(_ settings: inout ServerSettings) {
        configure(&settings)
        settings.trustedProxies = TrustedProxies()
    }

    /// Where a visitor goes: the `Location` of a 302, else the status and body; asked twice, the same both times.
    static func visit(_ api: ResetClient, _ path: String, _ headers: HTTPFields) async throws -> String {
        var answers: [String] = []
        for _ in 0..<2 {
            let response = try await api.get(path, headers: headers)
            answers.append(
                response.status == .found
                    ? response.headers[.location] ?? "" : "\(response.status.code) \(response.text)"
            )
        }
        #expect(answers[0] == answers[1], "the router and the cached path disagree for \(headers)")
        return answers[0]
    }

    static func create(_ api: ResetClient, _ json: String) async throws {
        let created = try await api.post("/v1/links", json, headers: admin)
        #expect(created.status == .created, "\(created.text)")
    }

    @Test(arguments: TestDatabase.allCases)
    func eachMatcherSendsItsVisitorsWhereItSays(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve(Self.configure) { api in
                try await Self.create(api, Self.campaign)
                // OS version: Safari 26 on iOS 26 matches `min 26` by its Version/ token; Safari 18 does not.
                #expect(
                    try await Self.visit(api, "/campaign", [.userAgent: Self.safari26])
                        == "https://shop.example.org/ios26"
                )
                let safari18 = try await Self.visit(api, "/campaign", [.userAgent: Self.safari18])
                #expect(
                    safari18.hasPrefix("200 ") && safari18.contains("/post/10"),
                    "the landing page of the link's route"
                )
                // Chrome on Android: the client hint gives the version the reduced agent hides.
                #expect(
                    try await Self.visit(
                        api,
                        "/campaign",
                        [.userAgent: Self.chromeAndroid, HTTPField.Name("Sec-CH-UA-Platform-Version")!: "\"14.0.0\""]
                    ) == "https://shop.example.org/android14"
                )
                // Preferred language, with quality values: de-CH first.
                #expect(
                    try await Self.visit(
                        api,
                        "/campaign",
                        [.userAgent: Self.firefoxDesktop, .acceptLanguage: Self.swissGerman]
                    ) == "https://shop.example.org/de"
                )
                // German only second: the link's own desktop destination.
                #expect(
                    try await Self.visit(
                        api,
                        "/campaign",
                        [.userAgent: Self.firefoxDesktop, .acceptLanguage: "en-GB, de;q=0.9"]
                    ) == "https://links.example.com/"
                )
                // A query item: the rule's route, on the landing page (the click's query is passed on).
                let spring = try await Self.visit(api, "/campaign?campaign=spring", [.userAgent: Self.safari18])
                #expect(spring.contains("/post/11") && !spring.contains("/post/10"), "\(spring.prefix(300))")
                #expect(
                    try await Self.visit(api, "/campaign?campaign=summer", [.userAgent: Self.firefoxDesktop])
                        == "https://links.example.com/?campaign=summer"
                )
                // The country a trusted proxy (loopback here) names: the store.
                let swiss: HTTPFields = [
                    .userAgent: Self.firefoxDesktop, HTTPField.Name("CF-IPCountry")!: "CH",
                    HTTPField.Name("X-Forwarded-For")!: "203.0.113.9",
                ]
                #expect(try await Self.visit(api, "/campaign", swiss) == "https://apps.apple.com/app/id1234567890")
            }
            // From a peer that is no trusted proxy, the header is anyone's claim: ignored.
            try await world.serve(Self.withoutTrustedProxies) { api in
                let claimed = try await Self.visit(
                    api,
                    "/campaign",
                    [.userAgent: Self.firefoxDesktop, HTTPField.Name("CF-IPCountry")!: "CH"]
                )
                #expect(claimed == "https://links.example.com/")
            }
        }
    }

    /// The app that a short link opened asks where it leads: the rules decide, for the platform it names and the
    /// query it forwards.
    @Test func theAppOpenedByAShortLinkResolvesItThroughTheRules() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(Self.configure) { api in
                try await Self.create(api, Self.campaign)
                let app = "Demo/1.0 CFNetwork/3826.400.120 Darwin/25.0.0"
                let spring = try await api.get(
                    "/v1/links/campaign/resolve?platform=iphone&campaign=spring",
                    headers: [.userAgent: app]
                )
                #expect(spring.object["route"] as? String == "/post/11", "\(spring.text)")
                let german = try await api.get(
                    "/v1/links/campaign/resolve?platform=iphone",
                    headers: [.userAgent: app, .acceptLanguage: "de-DE"]
                )
                #expect(
                    german.object["url"] as? String == "https://shop.example.org/de" && german.object["route"] == nil
                )
                let plain = try await api.get("/v1/links/campaign/resolve?platform=iphone", headers: [.userAgent: app])
                #expect(plain.object["route"] as? String == "/post/10", "no rule: the link's own route (\(plain.text))")
            }
        }
    }

    /// The console's doctor says that a short link's rules decide first, and where to see which one fires.
    @Test func theDoctorNamesAShortLinksRules() async throws {
        try await ResetWorld.with(.sqlite) { world in
            _ = try await Operators(database: world.database, clock: world.clock.wallClock).create(
                email: "viewer@example.com",
                password: ConsoleTests.password,
                role: .viewer,
                hasher: world.settings().passwordReset.hasher
            )
            try await world.serve({
                Self.configure(&$0)
                $0.smartLinks.otherLinkDomains = ["demo.page.example"]
            }) { api in
                try await Self.create(api, Self.campaign)
                let (visit, _) = try await ConsoleTests.signIn(api, "viewer@example.com")
                let url = ConsolePages.formEncoded("https://demo.page.example/campaign")
                let diagnosis = try await api.get("/console/doctor?url=\(url)", headers: visit.headers).text
                #expect(diagnosis.contains("short link campaign → /post/10"), "\(diagnosis)")
                #expect(diagnosis.contains("6 rule(s) decide first, in order (ios 26, android 14, german"))
            }
        }
    }

    @Test func aSplitKeepsItsProportionsOverManyVisitorsAndEachVisitorItsVariant() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(Self.configure) { api in
                try await Self.create(api, Self.campaign)
                var variants: [String: Int] = [:]
                for visitor in 0..<400 {
                    let headers: HTTPFields = [
                        .userAgent: Self.chromeAndroid,
                        HTTPField.Name("X-Forwarded-For")!: "198.51.\(visitor / 200).\(visitor % 200 + 1)",
                    ]
                    let first = try await api.get("/campaign", headers: headers)
                    let location = try #require(first.headers[.location])
                    variants[location, default: 0] += 1
                    // The same visitor again (now from the cache): the same variant, no cookie involved.
                    let again = try await api.get("/campaign", headers: headers)
                    #expect(again.headers[.location] == location)
                    #expect(first.headers[.setCookie] == nil)
                }
                let a = variants["https://shop.example.org/a"] ?? 0
                let b = variants["https://shop.example.org/b"] ?? 0
                #expect(a + b == 400, "\(variants)")
                // 50/50 over 400 visitors: 200 ± 40 is beyond four standard deviations (10).
                #expect((160...240).contains(a), "a: \(a), b: \(b)")

                // Clicks per rule and variant, in the stats.
                var rules: [[String: Any]] = []
                for _ in 0..<100 {
                    rules =
                        try await api.get("/v1/links/campaign/stats", headers: Self.admin).object["rules"]
                        as? [[String: Any]] ?? []
                    if rules.filter({ $0["rule"] as? String == "android test" }).reduce(
                        0,
                        { $0 + ($1["clicks"] as? Int ?? 0) }
                    )
                        == 800
                    {
                        break
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
                let counted = Dictionary(
                    uniqueKeysWithValues: rules.map {
                        ("\($0["rule"] as? String ?? "")/\($0["variant"] as? String ?? "")", $0["clicks"] as? Int ?? -1)
                    }
                )
                #expect(counted["android test/a"] == 2 * a && counted["android test/b"] == 2 * b, "\(counted)")
                #expect(counted["german/"] == 0 && counted.count == 7, "every rule and variant is listed: \(counted)")
            }
        }
    }

    @Test func aLinkPastItsLastWindowHasEndedAndOneBeforeItsFirstLeadsNowhereYet() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let now = world.clock.wallClock.milliseconds()
            @Sendable func iso(_ offsetSeconds: Int64) -> String {
                Date(timeIntervalSince1970: Double(now / 1000 + offsetSeconds)).formatted(.iso8601)
            }
            try await world.serve(Self.configure) { api in
                try await Self.create(
                    api,
                    """
                    {"code":"advent","rules":[
                      {"name":"december","when":{"from":"\(iso(3600))","until":"\(iso(7200))"},"then":{"url":"https://shop.example.org/advent"}}
                    ]}
                    """
                )
                let early = try await Self.visit(api, "/advent", [.userAgent: Self.firefoxDesktop])
                #expect(early.hasPrefix("404 ") && early.contains("leads nowhere for you right now"), "\(early)")
                world.clock.advance(seconds: 3600)
                #expect(
                    try await Self.visit(api, "/advent", [.userAgent: Self.firefoxDesktop])
                        == "https://shop.example.org/advent"
                )
                world.clock.advance(seconds: 3600)
                let ended = try await Self.visit(api, "/advent", [.userAgent: Self.safari26])
                #expect(ended.hasPrefix("410 ") && ended.contains("This link has ended"), "\(ended)")
                // Preview fetchers still get the Open Graph page.
                #expect(try await api.get("/advent", headers: [.userAgent: SmartLinkTests.iMessage]).status == .ok)
            }
        }
    }

    @Test func theDebugPageSaysWhichRuleFiresForThisVisitorAndWhy() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(Self.configure) { api in
                try await Self.create(api, Self.campaign)
                let page = try await api.get(
                    "/campaign?d=1",
                    headers: [.userAgent: Self.firefoxDesktop, .acceptLanguage: Self.swissGerman]
                ).text
                #expect(page.contains("platform desktop, language de-ch"), "\(page)")
                #expect(page.contains("<strong>1. ios 26</strong>: does not match: platform is desktop"))
                #expect(page.contains("<strong>3. german</strong>: matches: this is where you go"))
                #expect(page.contains("<strong>4. spring</strong>: not tried: an earlier rule matched"))
                // Each platform's row, with this request's language: the german rule for all but iOS 26 and bots.
                #expect(
                    page.contains("rule 3 &#39;german&#39;: 302 to https://shop.example.org/de")
                        || page.contains("rule 3 'german': 302 to https://shop.example.org/de"),
                    "\(page)"
                )
            }
        }
    }

    @Test func aLinkThatReliesOnAParameterLinkTrackingProtectionRemovesIsWarnedAbout() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(Self.configure) { api in
                let created = try await api.post(
                    "/v1/links",
                    #"""
                    {"code":"ads","route":"/post/1","destinations":{"desktop":"https://shop.example.org/?gclid=abc&utm_source=mail"},
                     "rules":[{"name":"from facebook","when":{"query":{"name":"fbclid"}},"then":{"url":"https://shop.example.org/fb"}}]}
                    """#,
                    headers: Self.admin
                )
                #expect(created.status == .created, "\(created.text)")
                let warnings = created.object["warnings"] as? [String] ?? []
                #expect(warnings.count == 2, "\(warnings)")
                #expect(
                    warnings.contains {
                        $0.hasPrefix("rules[0].when.query: matches on 'fbclid'") && $0.contains("docs.mapp.com")
                    }
                )
                #expect(warnings.contains { $0.hasPrefix("destinations.desktop: carries 'gclid'") })
                // utm_* survive: no warning; nor is a warning stored with the link.
                let plain = try await api.post(
                    "/v1/links",
                    #"{"code":"utm","route":"/post/1?utm_source=mail"}"#,
                    headers: Self.admin
                )
                #expect(plain.status == .created && plain.object["warnings"] == nil)
                #expect(try await api.get("/v1/links/ads", headers: Self.admin).object["warnings"] == nil)
            }
        }
    }

    /// This server's CSV carries the rules: exported, imported into an empty server, the same documents.
    @Test func aLinksRulesSurviveTheCSVRoundTrip() async throws {
        let windowed = #"""
            {"code":"advent","rules":[{"name":"december","when":{"platforms":["iphone","android"],"from":"2026-12-01T00:00:00Z","until":"2026-12-25T00:00:00Z","languages":["de","fr-ch"]},"then":{"split":[{"variant":"shop","weight":70,"url":"https://shop.example.org/advent?x=1,2"},{"variant":"app","weight":30,"route":"/post/24"}]}}]}
            """#
        var exported = ""
        var documents: [String] = []
        try await ResetWorld.with(.sqlite) { world in
            (exported, documents) = try await world.serveReturning(Self.configure) { api in
                try await Self.create(api, Self.campaign)
                try await Self.create(api, windowed)
                let file = try await api.get("/v1/links/export", headers: Self.admin).text
                var documents: [String] = []
                for code in ["advent", "campaign"] {
                    documents.append(try await api.get("/v1/links/\(code)", headers: Self.admin).text)
                }
                return (file, documents)
            }
        }
        #expect(exported.hasPrefix(LinkExport.header.joined(separator: ",") + "\n") && exported.contains("rules"))
        let (file, stored) = (exported, documents)
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(Self.configure) { api in
                let report = try await api.post("/v1/links/import", file, headers: LinkImportTests.csv)
                #expect(report.object["imported"] as? Int == 2, "\(report.text)")
                for (code, document) in zip(["advent", "campaign"], stored) {
                    let now = try await api.get("/v1/links/\(code)", headers: Self.admin).text
                    #expect(now == document)
                    #expect(now.contains(#""rules":["#))
                }
                #expect(try await api.get("/v1/links/export", headers: Self.admin).text == file)
                // A cell that is no list of rules is refused with the reason, and nothing is imported.
                let broken =
                    LinkExport.header.joined(separator: ",")
                    + "\nbroken,,/post/1,,,,,,,,,true,,,,\"[{\"\"name\"\":\"\"x\"\",\"\"then\"\":{\"\"store\"\":true},\"\"colour\"\":1}]\"\n"
                let refused = try await api.post("/v1/links/import", broken, headers: LinkImportTests.csv)
                #expect(refused.text.contains("rules: '[0].colour': unknown field"), "\(refused.text)")
                #expect(try await api.get("/v1/links/broken", headers: Self.admin).status == .notFound)
            }
        }
    }

    @Test(
        arguments: [
            ("de-CH, de;q=0.9, en;q=0.5", "de-ch"), ("en;q=0.5, fr", "fr"), ("*", nil), ("de;q=0", nil),
            ("en-US,en;q=0.9", "en-us"), ("da, en-gb;q=0.8, en;q=0.7", "da"), ("fr;q=1.0, de", "fr"),
            ("xx;q=2, pt-BR;q=0.3", "pt-br"), ("  it ;q=0.800 , es;q=0.75", "it"), ("", nil), ("<script>, nl", "nl"),
        ] as [(String, String?)]
    )
    func thePreferredLanguageIsReadAsBrowsersWriteIt(_ header: String, _ expected: String?) {
        #expect(RuleVisitor.preferredLanguage(header) == expected)
    }

    @Test func osVersionsComeFromTheTokenThatTellsTheTruth() {
        func version(_ agent: String, _ platform: ClientPlatform, hint: String? = nil) -> String? {
            var headers: HTTPFields = [:]
            if let hint { headers[HTTPField.Name("Sec-CH-UA-Platform-Version")!] = hint }
            var visitor = RuleVisitor(
                platform: platform,
                agent: AgentText(agent),
                headers: headers,
                query: nil,
                now: 0,
                countryHeader: nil
            ) {
                ""
            } viaTrustedProxy: {
                false
            }
            return visitor.osVersion()?.description
        }
        #expect(version(Self.safari26, .iPhone) == "26")
        #expect(version(Self.safari18, .iPhone) == "18.6")
        // Chrome on iOS sends no Version/: its (frozen) iPhone OS token.
        let chromeIOS =
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1"
        #expect(version(chromeIOS, .iPhone) == "17.4")
        #expect(version(SmartLinkTests.iPad, .iPad) == "17.5")
        #expect(version(Self.chromeAndroid, .android) == nil, "the reduced agent's Android 10 is no version")
        #expect(version(Self.chromeAndroid, .android, hint: "\"14.0.0\"") == "14")
        #expect(version(Self.firefoxDesktop, .desktop) == nil)
    }

    @Test func aPeerIsTrustedByItsSocketAddress() throws {
        let proxies = try TrustedProxies(["127.0.0.1", "10.0.0.0/8"])
        #expect(proxies.trusts(peer: try SocketAddress(ipAddress: "127.0.0.1", port: 1)))
        #expect(proxies.trusts(peer: try SocketAddress(ipAddress: "::ffff:10.1.2.3", port: 1)))
        #expect(!proxies.trusts(peer: try SocketAddress(ipAddress: "192.0.2.1", port: 1)))
        #expect(!proxies.trusts(peer: try SocketAddress(ipAddress: "::1", port: 1)))
        #expect(!TrustedProxies().trusts(peer: try SocketAddress(ipAddress: "127.0.0.1", port: 1)))
    }

    @Test func theAPIRefusesRulesThatCannotWorkWithTheReason() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(Self.configure) { api in
                func refused(_ rules: String) async throws -> String {
                    let response = try await api.post(
                        "/v1/links",
                        #"{"code":"bad","route":"/post/1","rules":"# + rules + "}",
                        headers: Self.admin
                    )
                    #expect(
                        response.status == .badRequest || response.status == .unprocessableContent,
                        "\(response.text)"
                    )
                    return response.text
                }
                let answer1 = try await refused(
                    #"[{"name":"x","when":{"platfroms":["iphone"]},"then":{"url":"https://shop.example.org/"}}]"#
                )
                #expect(answer1.contains("rules[0].when.platfroms': unknown field"), "\(answer1)")
                let answer2 = try await refused(
                    #"[{"name":"all","then":{"url":"https://shop.example.org/"}},{"name":"de","when":{"languages":["de"]},"then":{"store":true}}]"#
                )
                #expect(
                    answer2.contains("rules[1]: never reached: rules[0] ('all') matches every visitor it would"),
                    "\(answer2)"
                )
                let answer3 = try await refused(
                    #"[{"name":"ab","then":{"split":[{"variant":"a","weight":60,"url":"https://shop.example.org/a"},{"variant":"b","weight":30,"url":"https://shop.example.org/b"}]}}]"#
                )
                #expect(answer3.contains("the weights add up to 90, not 100"), "\(answer3)")
                let answer4 = try await refused(#"[{"name":"old","when":{"os":{"max":"16"}},"then":{"store":true}}]"#)
                #expect(answer4.contains("os: needs platforms of one OS"), "\(answer4)")
                let answer5 = try await refused(#"[{"name":"evil","then":{"url":"https://evil.example.net/"}}]"#)
                #expect(answer5.contains("evil.example.net is not on the destination allowlist"), "\(answer5)")
                let answer6 = try await refused(
                    #"[{"name":"both","then":{"url":"https://shop.example.org/","store":true}}]"#
                )
                #expect(answer6.contains("one of url, route and store"), "\(answer6)")
                let answer7 = try await refused(
                    #"[{"name":"w","when":{"from":"2027-01-01T00:00:00Z","until":"2026-01-01T00:00:00Z"},"then":{"store":true}}]"#
                )
                #expect(answer7.contains("from must come before until"), "\(answer7)")
                let answer8 = try await refused(#"[{"name":"r","then":{"route":"/nowhere/at/all"}}]"#)
                #expect(answer8.contains("the app has no route"), "\(answer8)")
                #expect(
                    try await api.get("/v1/links/bad", headers: Self.admin).status == .notFound,
                    "nothing was stored"
                )
            }
        }
    }
}
