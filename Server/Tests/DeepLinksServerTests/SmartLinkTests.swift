import DeepLinksJSON
@testable import DeepLinksSupport
@testable import DeepLinksServer
import AppSiteAssociation
import DeepLinks
import DeepLinksTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import SQLKit
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct SmartLinkTests {
    static let adminKey = "a-long-admin-key-for-the-tests-0123456789"
    static let admin: HTTPFields = [.contentType: "application/json", .authorization: "Bearer \(adminKey)"]
    static let iPhone =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
    static let iPad =
        "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
    static let android =
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36"
    static let desktop =
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"
    static let iMessage =
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0"

    static let summer = #"""
        {"code":"summer","route":"/post/10","destinations":{"desktop":"https://links.example.com/web/post/10","android":"https://links.example.com/android","fallback":"https://links.example.com/"},"preview":{"title":"Summer <sale>","description":"Ten per cent off"}}
        """#

    static func configure(_ settings: inout ServerSettings) {
        try! settings.smartLinks.setAdminKey(adminKey)
        settings.smartLinks.allowedHosts = ["shop.example.org"]
    }

    @Test(arguments: TestDatabase.allCases)
    func theLinksAPICreatesReadsUpdatesListsAndDeletes(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve(Self.configure) { api in
                let created = try await api.post("/v1/links", Self.summer, headers: Self.admin)
                #expect(created.status == .created, "\(created.text)")
                #expect(created.object["url"] as? String == "https://links.example.com/summer")
                #expect(try await api.post("/v1/links", Self.summer, headers: Self.admin).status == .conflict)
                let generated = try await api.post("/v1/links", #"{"route":"/search?q=shoes"}"#, headers: Self.admin)
                #expect(generated.status == .created)
                let code = try #require(generated.object["code"] as? String)
                #expect(code.count == 8)
                #expect(
                    try await api.get("/v1/links/summer", headers: Self.admin).object["route"] as? String == "/post/10"
                )
                let updated = try await api.client.execute(
                    uri: "/v1/links/summer",
                    method: .put,
                    headers: Self.admin,
                    body: .init(string: #"{"route":"/post/11","passQuery":false}"#)
                ) { $0 }
                #expect(updated.status == .ok)
                #expect(
                    try await api.get("/v1/links/summer", headers: Self.admin).object["route"] as? String == "/post/11"
                )
                let page = try await api.get("/v1/links?limit=1", headers: Self.admin)
                #expect((page.object["links"] as? [Any])?.count == 1)
                let next = try #require(page.object["next"] as? String)
                let rest = try await api.get("/v1/links?limit=10&after=\(next)", headers: Self.admin)
                #expect((rest.object["links"] as? [Any])?.count == 1)
                let deleted = try await api.client.execute(
                    uri: "/v1/links/summer",
                    method: .delete,
                    headers: Self.admin
                ) { $0 }
                #expect(deleted.status == .noContent)
                #expect(try await api.get("/v1/links/summer", headers: Self.admin).status == .notFound)
            }
        }
    }

    @Test func theAPINeedsTheAdminKeyAndIsOffWithoutOne() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(Self.configure) { api in
                let anonymous = try await api.post("/v1/links", Self.summer)
                #expect(anonymous.status == .unauthorized)
                let wrong: HTTPFields = [
                    .contentType: "application/json", .authorization: "Bearer not-the-key-but-long-enough-000",
                ]
                #expect(try await api.post("/v1/links", Self.summer, headers: wrong).status == .unauthorized)
                #expect(try await api.get("/v1/links").status == .unauthorized)
            }
            try await world.serve { api in
                let off = try await api.post("/v1/links", Self.summer, headers: Self.admin)
                #expect(off.status == .serviceUnavailable)
                #expect(off.object["error"] as? String == "links_api_disabled")
            }
        }
        var settings = SmartLinkSettings()
        #expect(throws: ConfigurationError.self) { try settings.setAdminKey("short") }
    }

    @Test func badLinksAreRefusedWithEveryReasonAndChangeNothing() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(Self.configure) { api in
                let bodies: [(String, String)] = [
                    (#"{"code":"healthz","route":"/post/1"}"#, "code"),
                    (#"{"code":"a b","route":"/post/1"}"#, "code"),
                    (#"{"code":"x1y2z3","route":"/no/such/screen"}"#, "route"),
                    (#"{"code":"x1y2z3","route":"post/1"}"#, "route"),
                    (
                        #"{"code":"x1y2z3","route":"/post/1","destinations":{"desktop":"https://evil.example/"}}"#,
                        "allowlist"
                    ),
                    (#"{"code":"x1y2z3","route":"/post/1","destinations":{"desktop":"javascript:alert(1)"}}"#, "https"),
                    (
                        #"{"code":"x1y2z3","route":"/post/1","destinations":{"desktop":"https://user:pw@links.example.com/"}}"#,
                        "https"
                    ),
                    (
                        #"{"code":"x1y2z3","route":"/post/1","destinations":{"fallback":"http://links.example.com/"}}"#,
                        "https"
                    ),
                ]
                for (body, reason) in bodies {
                    let response = try await api.post("/v1/links", body, headers: Self.admin)
                    #expect(response.status == .unprocessableContent, "\(body)")
                    #expect(
                        (response.object["problems"] as? [String])?.joined().contains(reason) == true,
                        "\(body): \(response.text)"
                    )
                }
                // No route and no web address: neither an app link nor a web link.
                let neither = try await api.post("/v1/links", #"{"code":"x1y2z3"}"#, headers: Self.admin)
                #expect(neither.status == .unprocessableContent)
                #expect(neither.text.contains("or no route and a destinations.fallback (a web link)"))
                for malformed in [
                    #"{"code":5,"route":"/post/1"}"#, #"{"route":"/post/1","route":"/post/2"}"#, "[]",
                ] {
                    #expect(
                        try await api.post("/v1/links", malformed, headers: Self.admin).status == .badRequest,
                        "\(malformed)"
                    )
                }
                let allowed = try await api.post(
                    "/v1/links",
                    #"{"code":"shop","route":"/post/1","destinations":{"desktop":"https://shop.example.org/a"}}"#,
                    headers: Self.admin
                )
                #expect(allowed.status == .created, "a host on the configured allowlist")
                let count = try await world.sql("SELECT COUNT(*) AS n FROM links").first?.decode(
                    column: "n",
                    as: Int.self
                )
                #expect(count == 1)
            }
        }
    }

    /// Made-up codes cannot keep the database busy: past its share, a client network gets 429 for codes the cache
    /// does not know; a link it opened before, and other clients, are served.
    @Test func aClientFloodingMadeUpCodesIsSlowedDown() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve({
                Self.configure(&$0)
                $0.smartLinks.unknownCodeBurst = 3
                $0.smartLinks.unknownCodesPerMinute = 1
                $0.trustedProxies = try! TrustedProxies(["127.0.0.1", "::1"])
            }) { api in
                #expect(try await api.post("/v1/links", Self.summer, headers: Self.admin).status == .created)
                // The change log's next read (within a second) drops the new code from the cache once more.
                try await Task.sleep(for: .seconds(1.5))
                let flooder: HTTPFields = [.init("X-Forwarded-For")!: "198.51.100.7", .userAgent: Self.desktop]
                #expect(try await api.get("/summer", headers: flooder).status == .found)
                for code in ["nope1", "nope2", "nope3"] {
                    #expect(try await api.get("/\(code)", headers: flooder).status == .notFound)
                }
                let asked = ContinuousClock.now
                let refused = try await api.get("/nope4", headers: flooder)
                #expect(refused.status == .tooManyRequests)
                #expect(ContinuousClock.now - asked >= LinkRedirect.refusalDelay, "the refusal is held back")
                #expect(Int(refused.headers[.retryAfter] ?? "") ?? 0 > 0)
                #expect(
                    try await api.get("/summer", headers: flooder).status == .found,
                    "a link in the cache still opens"
                )
                let other: HTTPFields = [.init("X-Forwarded-For")!: "203.0.113.9", .userAgent: Self.desktop]
                #expect(
                    try await api.get("/nope4", headers: other).status == .notFound,
                    "another client is not slowed down"
                )
                // The app's resolve endpoint is as public: the same bucket, the same refusal, the same cache.
                let refusedResolve = try await api.get("/v1/links/nope5/resolve", headers: flooder)
                #expect(refusedResolve.status == .tooManyRequests && refusedResolve.headers[.retryAfter] != nil)
                #expect(refusedResolve.object["error"] as? String == "too_many_requests")
                #expect(try await api.get("/v1/links/summer/resolve", headers: flooder).status == .ok, "cached")
                let third: HTTPFields = [.init("X-Forwarded-For")!: "192.0.2.44"]
                var statuses: [HTTPResponse.Status] = []
                for code in ["nope6", "nope7", "nope8", "nope9"] {
                    statuses.append(try await api.get("/v1/links/\(code)/resolve", headers: third).status)
                }
                #expect(statuses == [.notFound, .notFound, .notFound, .tooManyRequests], "\(statuses)")
            }
        }
    }

    /// Android without an Android destination: the link's web page before the Play listing; an in-app browser
    /// (which hands no intent:// URL to an app) gets the landing page, with Google Play.
    @Test func androidGetsTheWebFallbackAndInAppBrowsersTheLandingPage() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let fingerprint = [String](repeating: "AB", count: 32).joined(separator: ":")
            try await world.serve({
                Self.configure(&$0)
                $0.app.android = .init(packageName: "com.example.demo", sha256CertFingerprints: [fingerprint])
            }) { api in
                let link =
                    #"{"code":"winter","route":"/post/11","destinations":{"fallback":"https://links.example.com/web/post/11"}}"#
                #expect(try await api.post("/v1/links", link, headers: Self.admin).status == .created)
                let chrome = try await api.get("/winter", headers: [.userAgent: Self.android])
                let intent = try #require(chrome.headers[.location])
                #expect(
                    intent.contains("S.browser_fallback_url=https%3A%2F%2Flinks.example.com%2Fweb%2Fpost%2F11;end"),
                    "\(intent)"
                )
                let facebook = try await api.get(
                    "/winter",
                    headers: [.userAgent: Self.android + " [FB_IAB/FB4A;FBAV/450.0.0.1;]"]
                )
                #expect(facebook.status == .ok)
                #expect(facebook.text.contains("https://play.google.com/store/apps/details?id=com.example.demo"))
                #expect(facebook.text.contains("Get Demo on Google Play"))
                #expect(!facebook.text.contains("apps.apple.com"))
                #expect(facebook.text.contains(#"href="https://links.example.com/web/post/11""#))
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func eachPlatformGetsItsDestinationBotsGetOpenGraphAndOnlyPeopleCount(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            let fingerprint = [String](repeating: "AB", count: 32).joined(separator: ":")
            try await world.serve({
                Self.configure(&$0)
                $0.app.android = .init(packageName: "com.example.demo", sha256CertFingerprints: [fingerprint])
            }) { api in
                #expect(try await api.post("/v1/links", Self.summer, headers: Self.admin).status == .created)

                let desktop = try await api.get(
                    "/summer?utm_source=news&utm_campaign=june",
                    headers: [.userAgent: Self.desktop]
                )
                #expect(desktop.status == .found)
                #expect(
                    desktop.headers[.location]
                        == "https://links.example.com/web/post/10?utm_source=news&utm_campaign=june"
                )
                #expect(desktop.headers[.cacheControl] == "no-store")

                let android = try await api.get("/summer", headers: [.userAgent: Self.android])
                #expect(android.status == .found)
                let intent = try #require(android.headers[.location])
                #expect(
                    intent.hasPrefix("intent://links.example.com/post/10#Intent;scheme=https;package=com.example.demo;")
                )
                #expect(intent.contains("S.browser_fallback_url=https%3A%2F%2Flinks.example.com%2Fandroid;end"))

                for agent in [Self.iPhone, Self.iPad] {
                    let page = try await api.get("/summer", headers: [.userAgent: agent])
                    #expect(page.status == .ok)
                    #expect(
                        page.text.contains(
                            #"<meta name="apple-itunes-app" content="app-id=1234567890, app-argument=https://links.example.com/summer">"#
                        )
                    )
                    #expect(page.text.contains(#"href="https://links.example.com/post/10">Open in the Demo app"#))
                    #expect(page.text.contains("https://apps.apple.com/app/id1234567890"))
                    #expect(!page.text.contains("demoapp://"), "no custom-scheme dead end")
                    #expect(page.text.contains("Summer &lt;sale&gt;"))
                }

                // Instagram's and Facebook's browsers keep universal links: the page says how to reach Safari.
                let instagram =
                    Self.iPhone
                    + " Instagram 340.0.0.22.109 (iPhone15,2; iOS 17_5; en_US; en; scale=3.00; 1179x2556; 617441221)"
                let facebook =
                    Self.iPhone
                    + " [FBAN/FBIOS;FBAV/470.0.0.38.107;FBBV/612334012;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.5]"
                for (agent, name) in [(instagram, "Instagram"), (facebook, "Facebook")] {
                    let page = try await api.get("/summer", headers: [.userAgent: agent])
                    #expect(
                        page.text.contains(
                            #"<p class="notice">\#(name) opens links in its own browser, which cannot open the Demo app."#
                        ),
                        "\(name)"
                    )
                    #expect(page.text.contains("Open in the Demo app"))
                }
                #expect(!(try await api.get("/summer", headers: [.userAgent: Self.iPhone]).text.contains("notice")))
                #expect(try await api.get("/summer?d=1").text.contains("in-app browser (Facebook, Instagram"))

                let preview = try await api.get("/summer", headers: [.userAgent: Self.iMessage])
                #expect(preview.status == .ok)
                #expect(preview.text.contains(#"<meta property="og:title" content="Summer &lt;sale&gt;">"#))
                #expect(preview.text.contains(#"<meta property="og:description" content="Ten per cent off">"#))
                for bot in [
                    "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", "WhatsApp/2.23.20.0",
                    "Discordbot/2.0", "TelegramBot (like TwitterBot)", "LinkedInBot/1.0",
                ] {
                    #expect(
                        try await api.get("/summer", headers: [.userAgent: bot]).text.contains("og:title"),
                        "\(bot)"
                    )
                }
                #expect(
                    try await api.get("/summer", method: .head, headers: [.userAgent: Self.desktop]).status == .found
                )

                // Counts are written in batches, by the background job.
                var stats: [String: Any] = [:]
                for _ in 0..<100 {
                    stats = try await api.get("/v1/links/summer/stats", headers: Self.admin).object
                    if stats["botFetches"] as? Int == 6, stats["clicks"] as? Int == 7 { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(
                    stats["clicks"] as? Int == 7,
                    "desktop, android, iPhone, iPad, Instagram, Facebook, iPhone again; HEAD is not a click: \(stats)"
                )
                #expect(stats["botFetches"] as? Int == 6)
                let platforms = Set((stats["days"] as? [[String: Any]] ?? []).compactMap { $0["platform"] as? String })
                #expect(platforms == ["desktop", "android", "iphone", "ipad", "bot"])
                let columns = try await world.sql("SELECT * FROM link_clicks").first.map { $0.allColumns.sorted() }
                #expect(
                    columns == ["bot", "clicks", "code", "day", "platform", "source"],
                    "aggregates only: no IP, no user agent"
                )
            }
        }
    }

    @Test func expiredLinksUnknownCodesTheLandingDomainAndTheDecisionPage() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve({
                Self.configure(&$0); $0.smartLinks.landingDomain = "go.example.com"
            }) { api in
                let expiry = world.clock.wallClock.milliseconds() + 60_000
                let body =
                    #"{"code":"flash","route":"/post/3","expiresAt":\#(expiry),"expiredURL":"https://links.example.com/over","destinations":{"desktop":"https://links.example.com/flash-sale"}}"#
                #expect(try await api.post("/v1/links", body, headers: Self.admin).status == .created)
                #expect(
                    try await api.get("/flash", headers: [.userAgent: Self.desktop]).headers[.location]
                        == "https://links.example.com/flash-sale"
                )
                // iOS goes to the landing domain first, query kept; there, the page.
                let hop = try await api.get("/flash?ref=mail", headers: [.userAgent: Self.iPhone])
                #expect(hop.headers[.location] == "https://go.example.com/flash?ref=mail")
                // A real client names the host (the test client sets its own, so ask with URLSession).
                var request = URLRequest(url: URL(string: "http://127.0.0.1:\(try #require(api.client.port))/flash")!)
                request.setValue("go.example.com", forHTTPHeaderField: "Host")
                request.setValue(Self.iPhone, forHTTPHeaderField: "User-Agent")
                let (page, response) = try await URLSession.shared.data(for: request)
                #expect((response as? HTTPURLResponse)?.statusCode == 200)
                #expect(String(decoding: page, as: UTF8.self).contains("Open in the Demo app"))
                #expect(
                    try await api.get("/v1/links/flash/resolve").object["url"] as? String
                        == "https://links.example.com/post/3"
                )

                let decisions = try await api.get("/flash?d=1").text
                #expect(decisions.contains("<th>desktop</th><td>302 to https://links.example.com/flash-sale</td>"))
                #expect(decisions.contains("<code>https://links.example.com/post/3</code>: iOS opens the app"))
                #expect(!decisions.contains("the landing page is on the link domain"))

                world.clock.advance(seconds: 61)
                #expect(
                    try await api.get("/flash", headers: [.userAgent: Self.desktop]).headers[.location]
                        == "https://links.example.com/over"
                )
                #expect(try await api.get("/v1/links/flash/resolve").status == .gone)
                let unknown = try await api.get("/nothing-here", headers: [.userAgent: Self.desktop])
                #expect(unknown.status == .notFound)
                #expect(unknown.text.contains("This link does not exist"))
                #expect(try await api.get("/healthz").status == .ok, "the server's own paths win over codes")
                let robots = try await api.get("/robots.txt")
                #expect(
                    robots.text.contains("Disallow: /v1/") && !robots.text.contains("Disallow: /\n"),
                    "links stay readable by preview fetchers"
                )
                #expect(try await api.get("/favicon.ico").status == .noContent)
            }
        }
    }

    @Test func theClicksQueryJoinsTheDestinationsOwnAndTheProbesAnswerIsDropped() {
        #expect(
            LinkRedirect.appending("utm_source=mail", to: "https://Shop.example.org/a%2Fb?id=1#top")
                == "https://shop.example.org/a%2Fb?id=1&utm_source=mail#top"
        )
        #expect(LinkRedirect.appending("a=1", to: "https://shop.example.org") == "https://shop.example.org?a=1")
        let intent = "intent://post/1#Intent;scheme=demoapp;package=com.example.demo;end"
        #expect(LinkRedirect.appending("a=1", to: intent) == intent, "an intent URL is no destination")
        #expect(LinkRedirect.appending(nil, to: "https://shop.example.org/") == "https://shop.example.org/")
        #expect(ClickQuery("a=1&_platform=ipad&&b")?.forwarded == "a=1&b")
        #expect(ClickQuery("_platform=desktop")?.forwarded == nil)
        #expect(ClickQuery("my_platform=x")?.forwarded == "my_platform=x")
        #expect(ClickQuery("qr=1")?.forwarded == nil)
        #expect(ClickQuery("qr=1&utm_source=poster")?.forwarded == "utm_source=poster")
        #expect(ClickQuery("qr=2&myqr=1")?.forwarded == "qr=2&myqr=1", "only the tag the server prints")
    }

    @Test func userAgentsAreClassifiedAsPeopleSeeThemOrAsPreviewFetchers() {
        #expect(
            ClientPlatform(userAgent: Self.iMessage) == .previewBot,
            "iMessage's spoofed agent is a preview, not a Mac"
        )
        #expect(ClientPlatform(userAgent: nil) == .previewBot)
        #expect(ClientPlatform(userAgent: Self.iPhone) == .iPhone)
        #expect(ClientPlatform(userAgent: Self.iPad) == .iPad)
        #expect(
            ClientPlatform(
                userAgent:
                    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 Version/17.5 Safari/605.1.15",
                platformHint: "\"iPadOS\""
            ) == .iPad
        )
        #expect(ClientPlatform(userAgent: Self.mac) == .macOrIPad, "Safari on a Mac and on an iPad send the same agent")
        #expect(ClientPlatform(userAgent: Self.mac, platformHint: "\"macOS\"") == .desktop)
        #expect(ClientPlatform(userAgent: Self.android) == .android)
        #expect(ClientPlatform(userAgent: Self.desktop) == .desktop)
    }

    /// Each in-app browser by its token, in any case, anywhere in the agent; none in Safari, nor for a token that is
    /// only a prefix of the agent's text (`line/` needs its leading space: `Pipeline/2` is not LINE).
    @Test(arguments: [
        ("\(SmartLinkTests.iPhone) [FBAN/FBIOS;FBAV/450.0.0.38.108;]", InAppBrowser.facebook),
        ("\(SmartLinkTests.iPhone) Instagram 330.0.3.12.235 (iPhone14,2; iOS 17_5)", .instagram),
        ("\(SmartLinkTests.iPhone) LinkedInApp/9.29.8812", .linkedIn),
        ("\(SmartLinkTests.iPhone) musical_ly_35.1.0 JsSdk/2.0", .tikTok),
        ("\(SmartLinkTests.iPhone) MicroMessenger/8.0.49(0x18003137)", .weChat),
        ("\(SmartLinkTests.iPhone) Safari Line/14.8.0", .line),
    ])
    func inAppBrowsersAreFoundByTheirToken(_ agent: String, _ expected: InAppBrowser) {
        #expect(InAppBrowser(userAgent: agent) == expected)
        #expect(InAppBrowser(userAgent: agent.uppercased()) == expected)
    }

    @Test func browsersThatAreNotInAppAreNotTaken() {
        #expect(InAppBrowser(userAgent: Self.iPhone) == nil)
        #expect(InAppBrowser(userAgent: nil) == nil)
        #expect(InAppBrowser(userAgent: "") == nil)
        #expect(InAppBrowser(userAgent: "Pipeline/2.0 (Linux)") == nil)
        #expect(InAppBrowser(userAgent: String(repeating: "x", count: 1_100) + " line/1") == nil, "past 1,024 bytes")
    }

    static let mac =
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15"

    @Test func aMacAgentIsAskedForTouchSupportAndAnIPadGetsItsLandingPage() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(Self.configure) { api in
                #expect(try await api.post("/v1/links", Self.summer, headers: Self.admin).status == .created)
                let probe = try await api.get("/summer?utm_source=news", headers: [.userAgent: Self.mac])
                #expect(probe.status == .ok)
                #expect(probe.text.contains(#"<script src="/assets/platform.js" defer></script>"#))
                #expect(
                    probe.text.contains(
                        #"<meta http-equiv="refresh" content="0;url=/summer?utm_source=news&amp;_platform=mac">"#
                    ),
                    "without script: a Mac"
                )
                #expect(try await api.get("/assets/platform.js").text.contains("navigator.maxTouchPoints > 1"))

                let iPad = try await api.get("/summer?utm_source=news&_platform=ipad", headers: [.userAgent: Self.mac])
                #expect(
                    iPad.status == .ok && iPad.text.contains(#"<meta name="apple-itunes-app""#),
                    "an iPad: the landing page"
                )
                let mac = try await api.get("/summer?utm_source=news&_platform=mac", headers: [.userAgent: Self.mac])
                #expect(mac.status == .found)
                #expect(
                    mac.headers[.location] == "https://links.example.com/web/post/10?utm_source=news",
                    "the answer is not passed on"
                )
                #expect(
                    try await api.get("/summer?_platform=ipad", headers: [.userAgent: Self.desktop]).status == .found,
                    "only a Mac agent asks"
                )
                // Global Privacy Control and Do Not Track: the same redirect, no count.
                for header in [
                    HTTPField(name: .init("Sec-GPC")!, value: "1"), HTTPField(name: .init("DNT")!, value: "1"),
                ] {
                    let optedOut = try await api.get(
                        "/summer",
                        headers: [.userAgent: Self.desktop, header.name: header.value]
                    )
                    #expect(
                        optedOut.status == .found
                            && optedOut.headers[.location] == "https://links.example.com/web/post/10"
                    )
                }

                var stats: [String: Any] = [:]
                for _ in 0..<100 {
                    stats = try await api.get("/v1/links/summer/stats", headers: Self.admin).object
                    if stats["clicks"] as? Int == 3 { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                let platforms = (stats["days"] as? [[String: Any]] ?? []).reduce(into: [String: Int]()) {
                    $0[$1["platform"] as? String ?? "", default: 0] += $1["clicks"] as? Int ?? 0
                }
                #expect(
                    platforms == ["ipad": 1, "desktop": 2],
                    "counted once the platform is known, never as the probe: \(stats)"
                )
            }
        }
    }
}

@Suite struct FirebaseLongLinkTests {
    @Test func firebaseLongLinksKeepWorking() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(SmartLinkTests.configure) { api in
                let link = "https%3A%2F%2Flinks.example.com%2Fpost%2F42%3Fref%3Dfdl"
                let fallback = "https%3A%2F%2Fshop.example.org%2Fpost%2F42"
                let base = "/?link=\(link)&ibi=com.example.demo&isi=1234567890&ofl=\(fallback)&st=Post%2042&sd=A+post"
                let desktop = try await api.get(base, headers: [.userAgent: SmartLinkTests.desktop])
                #expect(desktop.status == .found)
                #expect(desktop.headers[.location] == "https://shop.example.org/post/42")
                let iPhone = try await api.get(base, headers: [.userAgent: SmartLinkTests.iPhone])
                #expect(iPhone.status == .ok)
                #expect(iPhone.text.contains(#"href="https://links.example.com/post/42?ref=fdl">Open in the Demo app"#))
                #expect(iPhone.text.contains("app-argument=https://links.example.com/post/42?ref=fdl"))
                let bot = try await api.get(base, headers: [.userAgent: "Slackbot-LinkExpanding 1.0"])
                #expect(bot.text.contains(#"<meta property="og:title" content="Post 42">"#))
                #expect(bot.text.contains(#"<meta property="og:description" content="A+post">"#), "+ stays +")

                let otherApp = try await api.get(
                    "/?link=\(link)&ibi=com.other.app",
                    headers: [.userAgent: SmartLinkTests.desktop]
                )
                #expect(otherApp.status == .badRequest)
                let openRedirect = try await api.get(
                    "/?link=\(link)&ofl=https%3A%2F%2Fevil.example%2F",
                    headers: [.userAgent: SmartLinkTests.desktop]
                )
                #expect(openRedirect.status == .badRequest)
                #expect(openRedirect.headers[.location] == nil)
                // A deep link off the app's domains is a web link: on a host not allowed, refused with the reason.
                let foreign = try await api.get(
                    "/?link=https%3A%2F%2Fevil.example%2Fpost%2F1",
                    headers: [.userAgent: SmartLinkTests.desktop]
                )
                #expect(foreign.status == .badRequest && foreign.headers[.location] == nil)
                #expect(foreign.text.contains("evil.example is not on the destination allowlist"))
            }
        }
    }
}

/// Deferred deep links: a one-time token from the landing page, redeemed once by the app after the install.
@Suite struct DeferredLinkTests {
    @Test(arguments: TestDatabase.allCases)
    func aTokenOpensTheLinksRouteOnceWithinTheHour(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve({
                SmartLinkTests.configure(&$0); $0.smartLinks.linkDomain = "go.example.com"
            }) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                let page = try await api.get("/summer", headers: [.userAgent: SmartLinkTests.iPhone]).text
                #expect(
                    page.contains(
                        #"id="get-app" data-deferred="/v1/links/summer/deferred" href="https://apps.apple.com/app/id1234567890""#
                    )
                )
                #expect(page.contains(#"<script src="/assets/deferred.js" defer></script>"#))
                let script = try await api.get("/assets/deferred.js")
                #expect(script.status == .ok && script.headers[.contentType] == "text/javascript; charset=utf-8")

                let issued = try await api.post("/v1/links/summer/deferred", "")
                #expect(issued.status == .created)
                let pasteboard = try #require(issued.object["pasteboard"] as? String)
                let token = try #require(DeferredLink(pasteboard: pasteboard, linkDomains: ["go.example.com"])?.token)
                #expect(issued.headers[.cacheControl] == "no-store")
                let stored = try await world.sql("SELECT token_hash, code FROM deferred_links")
                #expect(stored.count == 1)
                #expect(
                    try !(stored[0].decode(column: "token_hash", as: String.self)).contains(token),
                    "a keyed hash only"
                )

                let redeemed = try await api.post("/v1/deferred/redeem", #"{"token":"\#(token)"}"#)
                #expect(redeemed.status == .ok)
                #expect(redeemed.object["route"] as? String == "/post/10")
                #expect(redeemed.object["url"] as? String == "https://links.example.com/post/10")
                let again = try await api.post("/v1/deferred/redeem", #"{"token":"\#(token)"}"#)
                #expect(again.status == .gone && again.object["error"] as? String == "deferred_link_gone", "single use")

                let late = try #require(
                    try await api.post("/v1/links/summer/deferred", "").object["pasteboard"] as? String
                )
                world.clock.advance(seconds: 3601)
                let lateToken = try #require(DeferredLink(pasteboard: late, linkDomains: ["go.example.com"])?.token)
                #expect(
                    try await api.post("/v1/deferred/redeem", #"{"token":"\#(lateToken)"}"#).status == .gone,
                    "an hour at most"
                )
                #expect(
                    try await world.sql("SELECT code FROM deferred_links").isEmpty,
                    "an expired token is gone once tried"
                )
                // The server's own hourly pruning is due once the clock moves an hour: wait until it has run (a
                // stale rate-limit bucket is its sentinel), so that it cannot take the expired token below.
                world.clock.advance(seconds: 3601)
                _ = try await world.sql(
                    "INSERT INTO rate_limits (key, tokens, updated_at) VALUES ('sentinel', 1, 0)"
                )
                for _ in 0..<100
                where try await !world.sql("SELECT key FROM rate_limits WHERE key = 'sentinel'").isEmpty {
                    try await Task.sleep(for: .milliseconds(100))
                }
                let expired = world.clock.wallClock.milliseconds() - 1
                _ = try await world.sql(
                    "INSERT INTO deferred_links (token_hash, code, expires_at) VALUES ('expired', 'summer', \(bind: expired))"
                )
                _ = try await api.post("/v1/links/summer/deferred", "")
                #expect(
                    try await world.sql("SELECT code FROM deferred_links").count == 2,
                    "an issue no longer sweeps (it cost a scan per request)"
                )
                try await Pruning(database: world.database, clock: world.clock.wallClock).run(
                    now: world.clock.wallClock.milliseconds()
                )
                #expect(
                    try await world.sql("SELECT code FROM deferred_links").count == 1,
                    "the hourly pruning deletes expired tokens"
                )

                #expect(try await api.post("/v1/links/nope/deferred", "").status == .notFound)
                for body in [
                    #"{"token":"short"}"#, #"{"token":5}"#, "{", #"{"token":"AbCdEfGhIjKlMnOpQr-_12","token":"x"}"#,
                ] {
                    #expect(try await api.post("/v1/deferred/redeem", body).status == .badRequest, "\(body)")
                }
                #expect(
                    try await api.post("/v1/deferred/redeem", #"{"token":"AbCdEfGhIjKlMnOpQr-_12"}"#).status == .gone
                )
                let logged = world.logs.lines.withLock { $0.joined(separator: "\n") }
                #expect(!logged.contains(token) && !logged.contains(lateToken), "no token in a log line")
            }
        }
    }

    @Test func theDeferredCallsAreRateLimitedPerClient() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(SmartLinkTests.configure) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                var statuses: [HTTPResponse.Status] = []
                for _ in 0..<25 { statuses.append(try await api.post("/v1/links/summer/deferred", "").status) }
                #expect(statuses.prefix(20).allSatisfy { $0 == .created })
                let limited = try await api.post("/v1/deferred/redeem", #"{"token":"AbCdEfGhIjKlMnOpQr-_12"}"#)
                #expect(limited.status == .tooManyRequests && limited.headers[.retryAfter] != nil)
            }
        }
    }
}

/// A second app on its own domain, with an Android app whose store is not Google Play.
@Suite struct SeveralAppsTests {
    static let fingerprint = [String](repeating: "AB", count: 32).joined(separator: ":")

    static var lite: AppConfiguration {
        var lite = AppConfiguration(
            teamID: "FGHIJ67890",
            bundleID: "com.example.lite",
            customScheme: "demolite",
            domains: ["lite.example.com"],
            appStoreID: "987654321",
            displayName: "Demo Lite"
        )
        lite.routes = AppConfiguration.demo.routes
        lite.android = .init(
            packageName: "com.example.lite",
            sha256CertFingerprints: [fingerprint],
            playStoreURL: "https://store.example.org/lite"
        )
        return lite
    }

    static func configure(_ settings: inout ServerSettings) {
        SmartLinkTests.configure(&settings)
        settings.app.android = .init(packageName: "com.example.demo", sha256CertFingerprints: [fingerprint])
        settings.app.additionalApps = [lite]
    }

    @Test func eachAppHasItsAssociationEntryAndStatement() throws {
        var app = AppConfiguration.demo
        app.android = .init(packageName: "com.example.demo", sha256CertFingerprints: [Self.fingerprint])
        app.additionalApps = [Self.lite]
        let files = try AssociationFiles(app: app)
        let matcher = AASAMatcher(document: try JSONValue.parse(files.appleAppSiteAssociation.body))
        for appID in ["ABCDE12345.com.example.demo", "FGHIJ67890.com.example.lite"] {
            #expect(
                matcher.decide(appID: appID, url: "https://links.example.com/post/10").verdict == .match,
                "\(appID)"
            )
            #expect(
                matcher.decide(appID: appID, url: "https://links.example.com/account/x").verdict != .match,
                "\(appID)"
            )
        }
        let statements = try JSONValue.parse(try #require(files.assetLinks).body)
        guard case .array(let list) = statements else { Issue.record("not an array"); return }
        #expect(list.count == 2)
        #expect(String(decoding: files.assetLinks!.body, as: UTF8.self).contains("com.example.lite"))
    }

    @Test func aLinkOpensTheAppItNamesOnEveryPlatform() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(Self.configure) { api in
                let link =
                    #"{"code":"lite-post","app":"com.example.lite","route":"/post/10","destinations":{"fallback":"https://lite.example.com/"}}"#
                #expect(try await api.post("/v1/links", link, headers: SmartLinkTests.admin).status == .created)

                let iPhone = try await api.get("/lite-post", headers: [.userAgent: SmartLinkTests.iPhone])
                #expect(
                    iPhone.text.contains(
                        #"content="app-id=987654321, app-argument=https://links.example.com/lite-post""#
                    )
                )
                #expect(iPhone.text.contains(#"href="https://lite.example.com/post/10">Open in the Demo Lite app"#))
                #expect(!iPhone.text.contains("1234567890"), "not the primary app's listing")

                let android = try #require(
                    try await api.get("/lite-post", headers: [.userAgent: SmartLinkTests.android]).headers[.location]
                )
                #expect(
                    android.hasPrefix("intent://lite.example.com/post/10#Intent;scheme=https;package=com.example.lite;")
                )
                #expect(
                    android.contains("S.browser_fallback_url=https%3A%2F%2Flite.example.com%2F;end"),
                    "the link's own web page first"
                )
                // Without a web page of its own, the app's own store.
                let bare = #"{"code":"lite-bare","app":"com.example.lite","route":"/post/10"}"#
                #expect(try await api.post("/v1/links", bare, headers: SmartLinkTests.admin).status == .created)
                let store = try #require(
                    try await api.get("/lite-bare", headers: [.userAgent: SmartLinkTests.android]).headers[.location]
                )
                #expect(store.contains("S.browser_fallback_url=https%3A%2F%2Fstore.example.org%2Flite;end"), "\(store)")

                #expect(try await api.get("/lite-post?d=1").text.contains("Demo Lite (<code>com.example.lite</code>)"))
                #expect(
                    try await api.get("/v1/links/lite-post/resolve").object["url"] as? String
                        == "https://lite.example.com/post/10"
                )

                let unknown = try await api.post(
                    "/v1/links",
                    #"{"code":"nope","app":"com.example.gone","route":"/post/1"}"#,
                    headers: SmartLinkTests.admin
                )
                #expect(unknown.status == .unprocessableContent)
                #expect(
                    unknown.text.contains(
                        "app: 'com.example.gone' is not the bundle ID of a configured app (com.example.demo, com.example.lite)"
                    )
                )
                #expect(
                    try await api.get("/nope", headers: [.userAgent: SmartLinkTests.desktop]).status == .notFound,
                    "nothing stored"
                )

                // A Firebase long link picks its app by ibi, and must use that app's domain.
                let fdl = "/?link=https%3A%2F%2Flite.example.com%2Fpost%2F42&ibi=com.example.lite&isi=987654321"
                let page = try await api.get(fdl, headers: [.userAgent: SmartLinkTests.iPhone])
                #expect(page.status == .ok)
                #expect(page.text.contains(#"href="https://lite.example.com/post/42">Open in the Demo Lite app"#))
                let mismatch = try await api.get(
                    "/?link=https%3A%2F%2Flinks.example.com%2Fpost%2F42&ibi=com.example.lite",
                    headers: [.userAgent: SmartLinkTests.iPhone]
                )
                #expect(mismatch.status == .badRequest)
                #expect(mismatch.text.contains("links.example.com is not a domain of com.example.lite"))
            }
        }
    }

    /// Each app's own paths (`https://lite.example.com/post/10` opened without the app) offer that app's stores:
    /// its configured Play address, referrer and all, on Android; its App Store listing on an iPhone.
    @Test func anAppsOwnPathsOfferThatAppsConfiguredStores() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let store = "https://play.google.com/store/apps/details?id=com.example.lite&referrer=utm_source%3Ddeeplinks"
            try await world.serve({
                Self.configure(&$0)
                $0.app.additionalApps[0].android?.playStoreURL = store
            }) { api in
                let port = try #require(api.client.port)
                func page(_ host: String, _ path: String, agent: String) async throws -> (Int?, String) {
                    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
                    request.setValue(host, forHTTPHeaderField: "Host")
                    request.setValue(agent, forHTTPHeaderField: "User-Agent")
                    let (data, response) = try await URLSession.shared.data(for: request)
                    return ((response as? HTTPURLResponse)?.statusCode, String(decoding: data, as: UTF8.self))
                }
                let (status, android) = try await page("lite.example.com", "/post/10", agent: SmartLinkTests.android)
                #expect(status == 200)
                #expect(
                    android.contains(#"href="\#(store.replacingOccurrences(of: "&", with: "&amp;"))""#),
                    "\(android)"
                )
                #expect(android.contains("Get Demo Lite on Google Play"))
                let (_, iPhone) = try await page("lite.example.com", "/post/10", agent: SmartLinkTests.iPhone)
                #expect(iPhone.contains("https://apps.apple.com/app/id987654321") && !iPhone.contains("1234567890"))
                let (_, primary) = try await page("links.example.com", "/post/10", agent: SmartLinkTests.android)
                #expect(primary.contains("https://play.google.com/store/apps/details?id=com.example.demo"))
                #expect(!primary.contains("com.example.lite"))
            }
        }
    }

    @Test func theCheckNamesTheAppOfEachProblem() throws {
        var settings = ServerSettings()
        settings.smartLinks.landingDomain = "go.example.com"
        var bare = Self.lite
        bare.routes = nil
        settings.app.additionalApps = [bare]
        var link = SmartLink(code: "lite", route: "/post/1")
        link.app = "com.example.lite"
        let problems = try DeploymentCheck.problems(settings: settings, links: [link])
        #expect(
            problems == [
                "com.example.lite: the configuration names no route manifest: the association file claims every path, and links cannot be checked against the app's screens"
            ]
        )
    }
}

@Suite struct DeploymentCheckTests {
    @Test func storedLinksMustRouteOpenTheAppAndStayOnTheAllowlist() throws {
        var settings = ServerSettings()
        settings.smartLinks.landingDomain = "go.example.com"
        var good = SmartLink(code: "good", route: "/post/1")
        good.destinations.fallback = "https://links.example.com/"
        var bad = SmartLink(code: "bad", route: "/account/settings")
        bad.destinations.desktop = "https://evil.example/"
        let problems = try DeploymentCheck.problems(settings: settings, links: [good, bad])
        #expect(problems.allSatisfy { $0.hasPrefix("link 'bad'") }, "\(problems)")
        #expect(problems.contains { $0.contains("the app has no route for /account/settings") })
        #expect(problems.contains { $0.contains("evil.example is not on the destination allowlist") })
        #expect(
            problems.contains {
                $0 == "link 'bad': iOS would not open the app for https://links.example.com/account/settings"
            }
        )
    }
}

@Suite struct ClickDayTests {
    @Test(arguments: [Int64(0), 951_782_400_000, 1_795_384_712_104, 4_102_444_800_000, 1_709_164_800_000, -86_400_000])
    func theDayOfAClickIsTheUTCCalendarDay(_ milliseconds: Int64) {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        #expect(
            ClickCounter.day(milliseconds)
                == formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        )
    }
}

@Suite struct LinkDomainAssociationTests {
    /// The new link domain and an earlier one (a Firebase `page.link`-style custom domain moved here) each serve
    /// the file claiming short codes; short links print on the new one, and both resolve them.
    @Test func aSeparateLinkDomainHasItsOwnFileClaimingShortCodes() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve({
                SmartLinkTests.configure(&$0)
                $0.smartLinks.linkDomain = "go.example.com"
                $0.smartLinks.otherLinkDomains = ["demo.page.example"]
            }) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                let port = try #require(api.client.port)
                func file(host: String) async throws -> AASAMatcher {
                    var request = URLRequest(
                        url: URL(string: "http://127.0.0.1:\(port)/.well-known/apple-app-site-association")!
                    )
                    request.setValue(host, forHTTPHeaderField: "Host")
                    let (data, response) = try await URLSession.shared.data(for: request)
                    #expect(
                        (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "application/json"
                    )
                    return AASAMatcher(document: try JSONValue.parse(data))
                }
                let appID = "ABCDE12345.com.example.demo"
                let links = try await file(host: "go.example.com")
                #expect(links.decide(appID: appID, url: "https://go.example.com/summer").verdict == .match)
                for own in ["/v1/links/summer/resolve", "/healthz", "/reset-password", "/assets/site.css", "/a/b"] {
                    #expect(links.decide(appID: appID, url: "https://go.example.com\(own)").verdict != .match, "\(own)")
                }
                let earlier = try await file(host: "demo.page.example")
                #expect(earlier.decide(appID: appID, url: "https://demo.page.example/summer").verdict == .match)
                #expect(earlier.decide(appID: appID, url: "https://demo.page.example/healthz").verdict != .match)
                var old = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/summer")!)
                old.setValue("demo.page.example", forHTTPHeaderField: "Host")
                old.setValue(SmartLinkTests.desktop, forHTTPHeaderField: "User-Agent")
                let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
                let (_, answer) = try await session.data(for: old)
                #expect((answer as? HTTPURLResponse)?.statusCode == 302, "the earlier domain's short link resolves")
                let created = try await api.get("/v1/links/summer", headers: SmartLinkTests.admin)
                #expect(
                    created.object["url"] as? String == "https://go.example.com/summer",
                    "new links print on the new one"
                )
                let app = try await file(host: "links.example.com")
                #expect(app.decide(appID: appID, url: "https://links.example.com/summer").verdict != .match)
                #expect(app.decide(appID: appID, url: "https://links.example.com/post/10").verdict == .match)
                #expect(
                    try await api.get("/summer?d=1").text.contains(
                        "<code>https://go.example.com/summer</code>: iOS opens the app"
                    )
                )
            }
        }
    }
}

extension LinkDomainAssociationTests {
    /// The console's "why didn't it open?" on an earlier short-link domain: judged for the first app, and the code
    /// looked up (the link's route, or no such link) instead of the app's route manifest.
    @Test func theConsolesDoctorLooksUpAShortLinksCode() async throws {
        try await ResetWorld.with(.sqlite) { world in
            _ = try await Operators(database: world.database, clock: world.clock.wallClock).create(
                email: "viewer@example.com",
                password: ConsoleTests.password,
                role: .viewer,
                hasher: world.settings().passwordReset.hasher
            )
            try await world.serve({
                SmartLinkTests.configure(&$0)
                $0.smartLinks.otherLinkDomains = ["demo.page.example"]
            }) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                let (visit, _) = try await ConsoleTests.signIn(api, "viewer@example.com")
                func diagnosis(_ url: String) async throws -> String {
                    try await api.get("/console/doctor?url=\(ConsolePages.formEncoded(url))", headers: visit.headers)
                        .text
                }
                let known = try await diagnosis("https://demo.page.example/summer")
                #expect(known.contains("demo.page.example is a short-link domain"), "\(known)")
                #expect(known.contains("short link summer → /post/"), "the link's route")
                #expect(!known.contains("NO_ROUTE") && !known.contains("DOMAIN_NOT_CONFIGURED"))
                let unknown = try await diagnosis("https://demo.page.example/winter")
                #expect(unknown.contains("NO_SUCH_LINK"), "\(unknown)")
            }
        }
    }
}

/// Lets a test read a redirect instead of following it.
final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) { completionHandler(nil) }
}

/// The sites people came from: the host of each click's Referer, never its path or query; bounded.
@Suite struct ReferrerTests {
    @Test func aReferrerIsItsHostOnly() {
        let cases: [(String?, String?)] = [
            ("https://News.Example.com/article?token=secret#x", "news.example.com"),
            ("android-app://com.google.android.gm/", "com.google.android.gm"),
            ("https://example.com:8443/a", "example.com"), ("https://example.com", "example.com"),
            ("https://user:pw@example.com/", nil), ("example.com/a", nil), ("https://", nil), (nil, nil),
            ("https://exa mple.com/", nil), ("https://.example.com/", nil), ("https://bücher.example/", nil),
            ("https://" + String(repeating: "a", count: 254) + "/", nil),
        ]
        for (header, host) in cases {
            #expect(ClickCounter.referrerHost(header) == host, "\(header ?? "nil")")
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func peoplesReferrersAreCountedPerLink(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve(SmartLinkTests.configure) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                for (agent, referer) in [
                    (SmartLinkTests.desktop, "https://news.example.com/a?token=secret"),
                    (SmartLinkTests.desktop, "https://NEWS.example.com/b"),
                    (SmartLinkTests.android, "android-app://com.google.android.gm/"),
                    (SmartLinkTests.desktop, "https://user:pw@evil.example/"), (SmartLinkTests.desktop, ""),
                    (SmartLinkTests.iMessage, "https://preview.example.com/"),
                ] {
                    var headers: HTTPFields = [.userAgent: agent]
                    if !referer.isEmpty { headers[.referer] = referer }
                    _ = try await api.get("/summer", headers: headers)
                }
                var referrers: [[String: Any]] = []
                for _ in 0..<100 {
                    let stats = try await api.get("/v1/links/summer/stats", headers: SmartLinkTests.admin).object
                    referrers = stats["referrers"] as? [[String: Any]] ?? []
                    if stats["clicks"] as? Int == 5 { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(referrers.map { $0["host"] as? String } == ["news.example.com", "com.google.android.gm"])
                #expect(referrers.map { $0["clicks"] as? Int } == [2, 1])
                let stored = try await world.sql("SELECT referrer FROM link_referrers")
                #expect(
                    try stored.allSatisfy { try !$0.decode(column: "referrer", as: String.self).contains("secret") },
                    "no path or query is stored"
                )
                // Past the bound of pairs, a new site counts as "other".
                let counter = ClickCounter(database: world.database, maxReferrerPairs: 2)
                let now = world.clock.wallClock.milliseconds()
                for host in ["a.example", "b.example", "c.example", "d.example", "a.example"] {
                    counter.count(code: "summer", platform: .desktop, referrer: host, at: now)
                }
                try await counter.flush()
                let hosts = try await world.sql(
                    "SELECT referrer, clicks FROM link_referrers WHERE referrer NOT LIKE '%google%' AND referrer NOT LIKE 'news%'"
                )
                .map {
                    "\(try $0.decode(column: "referrer", as: String.self))=\(try $0.decode(column: "clicks", as: Int64.self))"
                }
                #expect(Set(hosts) == ["a.example=2", "b.example=1", "other=2"])

                #expect(
                    try await api.get("/v1/links/summer", method: .delete, headers: SmartLinkTests.admin).status
                        == .noContent
                )
                #expect(try await world.sql("SELECT referrer FROM link_referrers").isEmpty, "deleted with the link")
            }
        }
    }
}
