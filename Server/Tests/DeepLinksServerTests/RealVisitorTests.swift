@testable import DeepLinksServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// What #40 found, with the agents and headers real browsers send, over the live socket: Android visitors without
/// the app never end on Apple's store alone, every redirect a visitor gets is counted once, and a link document is
/// read strictly (a misspelt field, a fraction, a rule that can never do what it says is refused with its path).
@Suite struct RealVisitorTests {
    static let admin = SmartLinkTests.admin
    /// Chrome on Android since 110 and Samsung Internet since 24 send the reduced agent: `Android 10; K` whatever
    /// the device (developer.samsung.com "User-Agent String Format"; Chromium's UA reduction).
    static let chromeAndroid = LinkRuleTests.chromeAndroid
    static let samsungInternet =
        "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36"
    /// Firefox for Android keeps the real version and sends no client hints.
    static let firefoxAndroid = "Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0"
    static let macSafari =
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Safari/605.1.15"
    static let macFirefox = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:133.0) Gecko/20100101 Firefox/133.0"

    static func withAndroidApp(_ settings: inout ServerSettings) {
        LinkRuleTests.configure(&settings)
        settings.app.android = .init(
            packageName: "com.example.demo",
            sha256CertFingerprints: [SeveralAppsTests.fingerprint]
        )
    }

    /// A Firebase row with `apn` and no `afl`: Chrome's intent falls back to the Play listing, not to the deep link
    /// (the app's own path); that path, opened by an Android browser, offers Google Play, never the App Store.
    @Test func androidWithoutTheAppGetsPlayNeverApplesStoreAlone() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(Self.withAndroidApp) { api in
                let takeout = """
                    Short link,Deep link (link),Android package name (apn),iOS bundle ID (ibi),iOS app store ID (isi)
                    https://demo.page.link/comments,https://links.example.com/post/42,com.example.demo,com.example.demo,1234567890

                    """
                let report = try await api.post("/v1/links/import", takeout, headers: LinkImportTests.csv)
                #expect(report.status == .ok, "\(report.text)")
                for agent in [Self.chromeAndroid, Self.samsungInternet] {
                    let intent = try #require(
                        try await api.get("/comments", headers: [.userAgent: agent]).headers[.location]
                    )
                    #expect(
                        intent.contains(
                            "S.browser_fallback_url=https%3A%2F%2Fplay.google.com%2Fstore%2Fapps%2Fdetails%3Fid%3Dcom.example.demo;"
                        ),
                        "\(intent)"
                    )
                }
                for agent in [Self.chromeAndroid, Self.firefoxAndroid, Self.samsungInternet] {
                    let page = try await api.get("/post/42", headers: [.userAgent: agent]).text
                    #expect(page.contains("Get Demo on Google Play") && !page.contains("apps.apple.com"), "\(agent)")
                }
                let iPhone = try await api.get("/post/42", headers: [.userAgent: LinkRuleTests.safari26]).text
                #expect(iPhone.contains("apps.apple.com"))
            }
            // Without an Android version the app path says so, and offers no store it cannot use.
            try await world.serve(LinkRuleTests.configure) { api in
                let page = try await api.get("/post/42", headers: [.userAgent: Self.chromeAndroid]).text
                #expect(!page.contains("apps.apple.com") && page.contains("not available for Android"))
            }
        }
    }

    /// A rule's `store` for an app with no Android version sends Android to the link's web destination, and its
    /// creation is warned about.
    @Test func aStoreRuleSendsAndroidToTheWebWhenTheAppHasNoAndroidVersion() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(LinkRuleTests.configure) { api in
                let created = try await api.post(
                    "/v1/links",
                    #"{"code":"get","route":"/post/1","destinations":{"fallback":"https://shop.example.org/get"},"rules":[{"name":"store","then":{"store":true}}]}"#,
                    headers: Self.admin
                )
                #expect(created.status == .created, "\(created.text)")
                let warnings = created.object["warnings"] as? [String] ?? []
                #expect(warnings.contains { $0.contains("rules[0].then: store: the app has no Android version") })
                for agent in [Self.chromeAndroid, Self.samsungInternet, Self.firefoxAndroid] {
                    #expect(
                        try await LinkRuleTests.visit(api, "/get", [.userAgent: agent])
                            == "https://shop.example.org/get"
                    )
                }
                #expect(
                    try await LinkRuleTests.visit(api, "/get", [.userAgent: LinkRuleTests.safari26])
                        == "https://apps.apple.com/app/id1234567890"
                )
            }
        }
    }

    /// An Android OS-version rule works for Chrome: the reduced agent's `Android 10` is no version; the redirect
    /// asks for the hint (`Accept-CH`, `Critical-CH`), and the retry that carries it gets the rule.
    @Test func androidVersionRulesAskChromeForTheVersion() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(LinkRuleTests.configure) { api in
                try await LinkRuleTests.create(
                    api,
                    #"{"code":"new-android","route":"/post/1","destinations":{"fallback":"https://shop.example.org/"},"rules":[{"name":"android 14","when":{"platforms":["android"],"os":{"min":"14"}},"then":{"url":"https://shop.example.org/android14"}}]}"#
                )
                let hint = HTTPField.Name("Sec-CH-UA-Platform-Version")!
                for _ in 0..<2 {  // the router, then the cached path
                    let first = try await api.get("/new-android", headers: [.userAgent: Self.chromeAndroid])
                    #expect(first.headers[HTTPField.Name("Accept-CH")!] == "Sec-CH-UA-Platform-Version")
                    #expect(first.headers[HTTPField.Name("Critical-CH")!] == "Sec-CH-UA-Platform-Version")
                    #expect(first.headers[values: .vary].contains("Sec-CH-UA-Platform-Version"))
                    #expect(first.headers[.location] == "https://shop.example.org/", "Android 10; K is no version")
                    let retry = try await api.get(
                        "/new-android",
                        headers: [.userAgent: Self.chromeAndroid, hint: "\"14.0.0\""]
                    )
                    #expect(retry.headers[.location] == "https://shop.example.org/android14")
                    #expect(retry.headers[HTTPField.Name("Critical-CH")!] == nil)
                    let samsung = try await api.get(
                        "/new-android",
                        headers: [.userAgent: Self.samsungInternet, hint: "\"13.0.0\""]
                    )
                    #expect(samsung.headers[.location] == "https://shop.example.org/")
                }
                #expect(
                    try await LinkRuleTests.visit(api, "/new-android", [.userAgent: Self.firefoxAndroid])
                        == "https://shop.example.org/android14",
                    "Firefox's agent keeps the real version"
                )
                // A link that reads no Android version asks for nothing.
                let plain = try await api.get("/new-android", headers: [.userAgent: LinkRuleTests.safari26])
                #expect(plain.headers[HTTPField.Name("Accept-CH")!] == nil)
            }
        }
    }

    /// Mac Safari, Mac Firefox and iPadOS Safari in desktop mode (a Mac agent) that get a 302 at once are counted:
    /// the link's clicks and the rule's.
    @Test func aMacAgentsDirectRedirectIsCounted() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(LinkRuleTests.configure) { api in
                try await LinkRuleTests.create(
                    api,
                    #"{"code":"web-one","destinations":{"fallback":"https://shop.example.org/sale"}}"#
                )
                try await LinkRuleTests.create(
                    api,
                    #"{"code":"ab-all","destinations":{"fallback":"https://shop.example.org/"},"rules":[{"name":"ab","then":{"split":[{"variant":"a","weight":50,"url":"https://shop.example.org/a"},{"variant":"b","weight":50,"url":"https://shop.example.org/b"}]}}]}"#
                )
                for agent in [Self.macSafari, Self.macFirefox] {
                    for code in ["web-one", "ab-all"] {
                        for _ in 0..<2 {  // router, then the event loop
                            #expect(try await api.get("/\(code)", headers: [.userAgent: agent]).status == .found)
                        }
                    }
                }
                var clicks: [String: Int] = [:]
                var ruled = 0
                for _ in 0..<100 {
                    for code in ["web-one", "ab-all"] {
                        clicks[code] =
                            try await api.get("/v1/links/\(code)/stats", headers: Self.admin).object["clicks"] as? Int
                    }
                    let rules =
                        try await api.get("/v1/links/ab-all/stats", headers: Self.admin).object["rules"]
                        as? [[String: Any]] ?? []
                    ruled = rules.reduce(0) { $0 + ($1["clicks"] as? Int ?? 0) }
                    if clicks["web-one"] == 4, clicks["ab-all"] == 4, ruled == 4 { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(clicks == ["web-one": 4, "ab-all": 4] && ruled == 4, "\(clicks), rules \(ruled)")
            }
        }
    }

    /// A link document is read strictly: unknown fields (top level, `destinations`, `preview`) refused with their
    /// path; a fraction where a whole number belongs names the field; rules that can never do what they say are
    /// refused with the reason.
    @Test func aLinkDocumentIsReadStrictly() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(LinkRuleTests.configure) { api in
                func refused(_ json: String, _ reason: String) async throws {
                    let answer = try await api.post("/v1/links", json, headers: Self.admin)
                    #expect(answer.status.code / 100 == 4 && answer.text.contains(reason), "\(reason): \(answer.text)")
                }
                let rule = #"{"name":"r","then":{"url":"https://shop.example.org/"}}"#
                try await refused(#"{"code":"typo","route":"/post/1","rule":[\#(rule)]}"#, "'rule': unknown field")
                try await refused(
                    #"{"code":"typo","route":"/post/1","destinations":{"iphone":"https://shop.example.org/"}}"#,
                    "'destinations.iphone': unknown field"
                )
                try await refused(
                    #"{"code":"typo","route":"/post/1","preview":{"titel":"x"}}"#,
                    "'preview.titel': unknown field"
                )
                try await refused(
                    #"{"code":"frac","route":"/post/1","expiresAt":1900000000000.5}"#,
                    "'expiresAt': a whole number of milliseconds since 1970"
                )
                try await refused(
                    #"{"code":"frac","route":"/post/1","rules":[{"name":"ab","then":{"split":[{"variant":"a","weight":50.5,"url":"https://shop.example.org/a"},{"variant":"b","weight":49.5,"url":"https://shop.example.org/b"}]}}]}"#,
                    "'rules[0].then.split[0].weight': a whole number from 1 to 99"
                )
                try await refused(
                    #"{"code":"os2","route":"/post/1","rules":[{"name":"r","when":{"platforms":["iphone","android"],"os":{"min":"14"}},"then":{"url":"https://shop.example.org/"}}]}"#,
                    "rules[0].when.os: needs platforms of one OS"
                )
                try await refused(
                    #"{"code":"bots","route":"/post/1","rules":[{"name":"r","when":{"platforms":["bot"]},"then":{"url":"https://shop.example.org/"}}]}"#,
                    "rules[0].when.platforms: bot never reaches a rule"
                )
                try await refused(
                    #"{"code":"qr","route":"/post/1","rules":[{"name":"r","when":{"query":{"name":"qr","equals":"1"}},"then":{"url":"https://shop.example.org/"}}]}"#,
                    "rules[0].when.query: qr is this server's own"
                )
                // A link read back (with the `url` the API writes beside it) can be sent again unchanged.
                try await LinkRuleTests.create(api, #"{"code":"round","route":"/post/1"}"#)
                let read = try await api.get("/v1/links/round", headers: Self.admin)
                let sent = try await api.client.execute(
                    uri: "/v1/links/round",
                    method: .put,
                    headers: Self.admin,
                    body: ByteBuffer(string: read.text)
                ) { $0 }
                #expect(sent.status == .ok, "\(sent.text)")
                // An iPad and iPhone OS rule stays allowed: one OS.
                try await LinkRuleTests.create(
                    api,
                    #"{"code":"ios-only","route":"/post/1","rules":[{"name":"r","when":{"platforms":["iphone","ipad"],"os":{"min":"17"}},"then":{"url":"https://shop.example.org/"}}]}"#
                )
            }
        }
    }

    /// The fields a browser would post back for the first form of `html` that has a CSRF field: inputs (checkboxes
    /// only when checked), textareas, and each select's selected option.
    static func formFields(_ html: String) -> [String: String] {
        func unescaped(_ text: Substring) -> String {
            text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
        func attribute(_ name: String, _ tag: Substring) -> String? {
            guard let range = tag.range(of: " \(name)=\"") else { return nil }
            return unescaped(tag[range.upperBound...].prefix { $0 != "\"" })
        }
        var fields: [String: String] = [:]
        var rest = html[...]
        while let open = rest.range(of: "<input ") ?? nil, let close = rest[open.upperBound...].firstIndex(of: ">") {
            let tag = rest[open.lowerBound..<close]
            if let name = attribute("name", tag), attribute("type", tag) != "checkbox" || tag.contains(" checked") {
                fields[name] = attribute("value", tag) ?? ""
            }
            rest = rest[close...]
        }
        rest = html[...]
        while let open = rest.range(of: "<textarea "), let end = rest[open.upperBound...].range(of: "</textarea>") {
            let tag = rest[open.lowerBound..<end.lowerBound]
            if let name = attribute("name", tag), let body = tag.firstIndex(of: ">") {
                fields[name] = unescaped(tag[tag.index(after: body)...])
            }
            rest = rest[end.upperBound...]
        }
        rest = html[...]
        while let open = rest.range(of: "<select "), let end = rest[open.upperBound...].range(of: "</select>") {
            let tag = rest[open.lowerBound..<end.lowerBound]
            if let name = attribute("name", tag), let selected = tag.range(of: " selected>") {
                let option = tag[..<selected.lowerBound]
                if let value = option.range(of: "value=\"", options: .backwards) {
                    fields[name] = unescaped(option[value.upperBound...].prefix { $0 != "\"" })
                }
            }
            rest = rest[end.upperBound...]
        }
        return fields
    }

    /// Saving a link in the console without changing anything keeps it as it was: seconds and milliseconds of a
    /// rule's window and of the expiry, a query value's trailing space.
    @Test func savingALinkUnchangedInTheConsoleIsTheIdentity() async throws {
        try await ResetWorld.with(.sqlite) { world in
            _ = try await ConsoleSecurityTests.operators(world, [("ed@example.com", .editor)])
            try await world.serve(LinkRuleTests.configure) { api in
                let document = #"""
                    {"code":"exact","route":"/post/1","expiresAt":1900000045123,"destinations":{"fallback":"https://shop.example.org/"},"rules":[
                      {"name":"vip","when":{"query":{"name":"invite","equals":"VIP "},"from":"2026-12-01T10:00:45Z","until":"2027-01-01T00:00:00.250Z"},"then":{"url":"https://shop.example.org/vip"}},
                      {"name":"ios","when":{"platforms":["iphone","ipad"],"os":{"min":"17.4"}},"then":{"split":[{"variant":"a","weight":50,"url":"https://shop.example.org/a"},{"variant":"b","weight":50,"store":true}]}}]}
                    """#
                try await LinkRuleTests.create(api, document)
                let before = try await api.get("/v1/links/exact", headers: Self.admin).text
                var (editor, _) = try await ConsoleTests.signIn(api, "ed@example.com")
                let form = try await api.get("/console/links/exact/edit", headers: editor.headers)
                editor.read(form)
                var fields = Self.formFields(form.text)
                #expect(fields["expiresAt"] == "2030-03-17T17:47:25.123", "\(fields["expiresAt"] ?? "")")
                #expect(fields["rule.0.from"] == "2026-12-01T10:00:45")
                #expect(fields["rule.0.query"] == "invite=VIP ")
                fields["csrf"] = nil
                let saved = try await ConsoleSecurityTests.post(api, editor, "/console/links/exact/edit", fields)
                #expect(saved.status == .seeOther, "\(saved.status) \(saved.text.prefix(2000))")
                let after = try await api.get("/v1/links/exact", headers: Self.admin).text
                #expect(after == before)
            }
        }
    }

    /// A short code that is a path of the app's routes, and a web link to a path of the app's domain that no route
    /// takes (a Firebase row whose deep link is `/promo/summer` or `/post/abc`), are refused with the reason: on the
    /// API and on import, where the report says why instead of "imported".
    @Test func deadEndsAndCodesThatAreRoutesAreRefused() async throws {
        try await ResetWorld.with(.sqlite) { world in
            // A server that does not run the reset journey itself: /reset-password is only the app's route.
            try await world.serve({ settings in
                Self.withAndroidApp(&settings)
                settings.app.passwordReset = nil
            }) { api in
                let route = try await api.post(
                    "/v1/links",
                    #"{"code":"reset-password","route":"/post/1"}"#,
                    headers: Self.admin
                )
                #expect(
                    route.text.contains("code: /reset-password is a path of com.example.demo's routes"),
                    "\(route.text)"
                )
            }
            try await world.serve(Self.withAndroidApp) { api in
                let takeout = """
                    Short link,Deep link (link),Android package name (apn),iOS bundle ID (ibi)
                    https://demo.page.link/promo,https://links.example.com/promo/summer,com.example.demo,com.example.demo
                    https://demo.page.link/badpost,https://links.example.com/post/abc,com.example.demo,com.example.demo
                    https://demo.page.link/home,https://links.example.com/,com.example.demo,com.example.demo

                    """
                let report = try await api.post("/v1/links/import", takeout, headers: LinkImportTests.csv)
                let rows = report.object["rows"] as? [[String: Any]] ?? []
                let statuses = rows.map { "\($0["code"] ?? "") \($0["status"] ?? "")" }
                #expect(statuses == ["promo refused", "badpost refused", "home imported"], "\(report.text)")
                #expect(report.text.contains("no route of the app takes it"), "\(report.text)")
                let web = try await api.post(
                    "/v1/links",
                    #"{"code":"dead","destinations":{"fallback":"https://links.example.com/promo/summer"}}"#,
                    headers: Self.admin
                )
                #expect(web.status == .unprocessableContent && web.text.contains("answers it with 404"))
            }
        }
    }

    /// The console's "where each platform goes" for a rule on OS versions: what each range of versions gets, not
    /// "no rule" for a sample visitor without an agent.
    @Test func whereEachPlatformGoesShowsTheOSVersionRanges() async throws {
        try await ResetWorld.with(.sqlite) { world in
            _ = try await ConsoleSecurityTests.operators(world, [("ed@example.com", .editor)])
            try await world.serve(LinkRuleTests.configure) { api in
                try await LinkRuleTests.create(
                    api,
                    #"{"code":"versions","route":"/post/1","destinations":{"fallback":"https://shop.example.org/"},"rules":[{"name":"recent","when":{"platforms":["iphone","ipad"],"os":{"min":"17.4","max":"26"}},"then":{"url":"https://shop.example.org/recent"}}]}"#
                )
                var (editor, _) = try await ConsoleTests.signIn(api, "ed@example.com")
                let page = try await api.get("/console/links/versions", headers: editor.headers)
                editor.read(page)
                let row = try #require(
                    page.text.components(separatedBy: "<th scope=\"row\">iphone</th>").dropFirst().first?
                        .components(separatedBy: "</tr>").first
                )
                #expect(row.contains("it depends on the OS version"), "\(row)")
                #expect(
                    row.contains("17.4 to below 26.1: rule 1 &#39;recent&#39;: 302 to https://shop.example.org/recent")
                        || row.contains("17.4 to below 26.1: rule 1 'recent': 302 to https://shop.example.org/recent"),
                    "\(row)"
                )
                #expect(
                    row.contains("below 17.4: ") && row.contains("26.1 and above: ")
                        && row.contains("version unknown: "),
                    "\(row)"
                )
                #expect(!row.contains("below 17.4: rule"), "\(row)")
            }
        }
    }

    /// A link clicked on one day only has a chart of two weeks ending that day, not one bar the width of the chart.
    @Test func oneDayOfClicksIsDrawnAsADay() {
        let buckets = SmartLinkPages.chartBuckets(["2026-12-01": 5])
        #expect(buckets.count == 14)
        #expect(buckets.first?.day == "2026-11-18" && buckets.last?.day == "2026-12-01")
        #expect(buckets.map(\.people) == Array(repeating: 0, count: 13) + [5])
        #expect(SmartLinkPages.chartBuckets([:]).isEmpty)
    }
}
