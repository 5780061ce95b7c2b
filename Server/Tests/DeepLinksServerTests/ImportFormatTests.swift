import DeepLinksTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import DeepLinksServer

/// Each export format as its service writes it (the headers of Google Takeout, dub's `exportLinksColumns`, Bitly's
/// dashboard and API, Shlink's web client and shlink-importer), imported with the format told from the header, and
/// each imported row then opened as an iPhone, an Android phone, a desktop browser and a link-preview bot would.
/// The configuration: the app on links.example.com (routes /post/:id), shop.example.org allowed, no Android app.
struct ImportFormatTests {
    /// What a row became: a link that opens the app at `route` with `web` as its fallback, a web link to `web`, a
    /// refusal whose reasons include `reason`, or a skipped row.
    enum Outcome {
        /// Android goes to `android` when the row names another page for it (FDL's `link` without `afl`).
        case app(route: String, web: String, android: String? = nil)
        case web(String)
        case refused(String)
        case skipped(String)
    }

    /// A CSV cell as exporters write it: quoted when it holds a comma, a quote or a line break.
    static func cell(_ text: String) -> String {
        text.contains(where: { ",\"\r\n".contains($0) })
            ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    /// Imports `file` (format auto), checks the report says `format`, and each row's outcome, by line; then opens
    /// every imported link on each platform.
    static func importAndOpen(
        _ api: ResetClient,
        _ file: String,
        format: String,
        _ expected: [(line: Int, code: String?, outcome: Outcome)]
    ) async throws {
        let report = try await api.post("/v1/links/import", file, headers: LinkImportTests.csv)
        #expect(report.status == .ok, "\(report.text)")
        #expect(report.object["format"] as? String == format, "\(report.text)")
        let rows = try #require(report.object["rows"] as? [[String: Any]])
        #expect(rows.count == expected.count, "\(report.text)")
        for (row, (line, code, outcome)) in zip(rows, expected) {
            #expect(row["line"] as? Int == line && row["code"] as? String == code, "\(row)")
            let status = row["status"] as? String
            let problems = (row["problems"] as? [String] ?? []).joined(separator: "; ")
            switch outcome {
            case .refused(let reason):
                #expect(status == "refused" && problems.contains(reason), "line \(line): \(row)")
            case .skipped(let reason):
                #expect(status == "skipped" && problems == reason, "line \(line): \(row)")
            case .app(let route, let web, let android):
                #expect(status == "imported", "line \(line): \(row)")
                try await opensTheApp(api, try #require(code), route: route, web: web, android: android ?? web)
            case .web(let url):
                #expect(status == "imported", "line \(line): \(row)")
                try await opensTheWeb(api, try #require(code), url)
            }
        }
        let again = try await api.post("/v1/links/import", file, headers: LinkImportTests.csv)
        #expect((again.object["imported"] as? Int) == 0, "a re-run adds nothing: \(again.text)")
    }

    /// ``importAndOpen(_:_:format:_:)`` on a fresh server (SQLite).
    static func imports(_ file: String, format: String, _ expected: [(line: Int, code: String?, outcome: Outcome)])
        async throws
    {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(SmartLinkTests.configure) { api in
                try await importAndOpen(api, file, format: format, expected)
            }
        }
    }

    static func opensTheApp(_ api: ResetClient, _ code: String, route: String, web: String, android: String)
        async throws
    {
        let stored = try await api.get("/v1/links/\(code)", headers: SmartLinkTests.admin)
        #expect(stored.object["route"] as? String == route, "\(code): \(stored.text)")
        let phone = try await api.get("/\(code)", headers: [.userAgent: SmartLinkTests.iPhone])
        #expect(phone.status == .ok && phone.text.contains("Open in the Demo app"), "\(code) on an iPhone")
        for (agent, location) in [(SmartLinkTests.android, android), (SmartLinkTests.desktop, web)] {
            let answer = try await api.get("/\(code)", headers: [.userAgent: agent])
            #expect(answer.status == .found && answer.headers[.location] == location, "\(code): \(agent)")
        }
        let bot = try await api.get("/\(code)", headers: [.userAgent: SmartLinkTests.iMessage])
        #expect(bot.status == .ok && bot.text.contains(#"<meta property="og:url""#), "\(code) for a preview bot")
    }

    static func opensTheWeb(_ api: ResetClient, _ code: String, _ url: String) async throws {
        let stored = try await api.get("/v1/links/\(code)", headers: SmartLinkTests.admin)
        #expect(stored.object["route"] == nil, "a web link has no route: \(stored.text)")
        for agent in [SmartLinkTests.iPhone, SmartLinkTests.android, SmartLinkTests.desktop] {
            let answer = try await api.get("/\(code)", headers: [.userAgent: agent])
            #expect(answer.status == .found && answer.headers[.location] == url, "\(code): \(agent)")
        }
        let bot = try await api.get("/\(code)", headers: [.userAgent: SmartLinkTests.iMessage])
        #expect(bot.status == .ok && bot.text.contains(#"<meta property="og:url""#), "\(code) for a preview bot")
    }

    /// Google Takeout: one column per long-link parameter, BOM and CRLF, a quoted line break; read exactly as the
    /// same parameters in a long link opened on this server.
    @Test(arguments: TestDatabase.allCases)
    func firebaseTakeout(_ kind: TestDatabase) async throws {
        let header = [
            "short_link", "link", "apn", "afl", "amv", "ibi", "ifl", "ius", "ipfl", "ipbi", "isi", "imv", "efr", "ofl",
            "st", "sd", "si", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "at", "ct", "mt",
            "pt", "archived", "name", "creation_timestamp",
        ]
        func row(_ values: [String: String]) -> String {
            header.map { Self.cell(values[$0] ?? "") }.joined(separator: ",")
        }
        let lines = [
            row([
                "short_link": "https://demo.page.link/summer", "link": "https://links.example.com/post/10",
                "ibi": "com.example.demo", "isi": "1234567890", "ofl": "https://shop.example.org/summer",
                "st": "Summer sale", "sd": "Ten per cent", "archived": "false", "name": "Summer,\r\nall week",
            ]),
            row([
                "short_link": "https://demo.page.link/helpme", "link": "https://shop.example.org/help",
                "archived": "false",
            ]),
            row([
                "short_link": "https://demo.page.link/oldone", "link": "https://links.example.com/post/11",
                "archived": "true",
            ]),
            row(["short_link": "https://demo.page.link/s\u{FC}mmer", "link": "https://links.example.com/post/12"]),
            row(["short_link": "https://demo.page.link/summer", "link": "https://links.example.com/post/13"]),
            row(["short_link": "https://demo.page.link/evil1", "link": "https://evil.example/x"]),
            row(["short_link": "https://demo.page.link/script", "link": "javascript:alert(1)"]),
            row(["short_link": "https://demo.page.link/plain", "link": "http://shop.example.org/x"]),
        ]
        let file = "\u{FEFF}" + ([header.joined(separator: ",")] + lines).joined(separator: "\r\n")
        try await ResetWorld.with(kind) { world in
            try await world.serve(SmartLinkTests.configure) { api in
                try await Self.importAndOpen(
                    api,
                    file,
                    format: "fdl",
                    [
                        (
                            2, "summer",
                            .app(
                                route: "/post/10",
                                web: "https://shop.example.org/summer",
                                android: "https://links.example.com/post/10"
                            )
                        ),
                        (3, "helpme", .web("https://shop.example.org/help")),
                        (4, "oldone", .skipped("archived")),
                        (5, "s\u{FC}mmer", .refused("code: 3 to 64 letters")),
                        (6, "summer", .refused("the code repeats line 2")),
                        (7, "evil1", .refused("evil.example is not on the destination allowlist")),
                        (8, "script", .refused("an https URL")),
                        (9, "plain", .refused("the scheme is http")),
                    ]
                )
                // The same parameters as a long link opened here: the same answers.
                let long =
                    "/?link=https%3A%2F%2Flinks.example.com%2Fpost%2F10&ibi=com.example.demo&isi=1234567890&ofl=https%3A%2F%2Fshop.example.org%2Fsummer&st=Summer%20sale"
                let desktop = try await api.get(long, headers: [.userAgent: SmartLinkTests.desktop])
                #expect(desktop.headers[.location] == "https://shop.example.org/summer")
                let stored = try await api.get("/v1/links/summer", headers: SmartLinkTests.admin)
                let preview = stored.object["preview"] as? [String: Any]
                #expect(
                    preview?["title"] as? String == "Summer sale"
                        && preview?["description"] as? String == "Ten per cent"
                )
            }
        }
    }

    /// The guide's labels as the header ("Short link", "Deep link (link)", ...).
    @Test func firebaseGuideLabels() async throws {
        let file = """
            Short link,Deep link (link),Android package name (apn),iOS bundle ID (ibi),iOS app store ID (isi),Desktop fallback link (ofl),Social title (st),Archived?,Link name,Creation timestamp
            https://demo.page.link/labels,https://links.example.com/post/20,,com.example.demo,1234567890,https://shop.example.org/20,Twenty,false,L,2023-01-01
            https://demo.page.link/weblabel,https://shop.example.org/w,,,,,,false,W,2023-01-01

            """
        try await Self.imports(
            file,
            format: "fdl",
            [
                (
                    2, "labels",
                    .app(
                        route: "/post/20",
                        web: "https://shop.example.org/20",
                        android: "https://links.example.com/post/20"
                    )
                ),
                (3, "weblabel", .web("https://shop.example.org/w")),
            ]
        )
    }

    /// dub: every column ticked; the code is the short link's path; two domains in one file; a formula guard.
    @Test func dubAllColumns() async throws {
        let file = """
            Short link,Destination URL,Clicks,Leads,Conversions,Revenue,Created at,Link ID,Updated at,Tags,Archived
            https://dub.sh/spring,https://links.example.com/post/3,10,0,0,0,2024-03-01T00:00:00.000Z,link_1,2024-03-02T00:00:00.000Z,"'=sale, spring",No
            https://acme.link/shoplink,https://shop.example.org/p?x=1,2,0,0,0,2024-03-01T00:00:00.000Z,link_2,2024-03-01T00:00:00.000Z,,No
            https://dub.sh/a/b,https://shop.example.org/ab,0,0,0,0,2024-03-01T00:00:00.000Z,link_3,2024-03-01T00:00:00.000Z,,No
            https://dub.sh/v1.2,https://shop.example.org/v,0,0,0,0,2024-03-01T00:00:00.000Z,link_4,2024-03-01T00:00:00.000Z,,No
            https://acme.link/spring,https://shop.example.org/other,0,0,0,0,2024-03-01T00:00:00.000Z,link_5,2024-03-01T00:00:00.000Z,,No
            https://dub.sh,https://shop.example.org/root,0,0,0,0,2024-03-01T00:00:00.000Z,link_6,2024-03-01T00:00:00.000Z,,No
            https://dub.sh/archived1,https://shop.example.org/a,0,0,0,0,2024-03-01T00:00:00.000Z,link_7,2024-03-01T00:00:00.000Z,,Yes
            https://dub.sh/script,javascript:alert(1),0,0,0,0,2024-03-01T00:00:00.000Z,link_8,2024-03-01T00:00:00.000Z,,No

            """
        try await Self.imports(
            file,
            format: "dub",
            [
                (2, "spring", .app(route: "/post/3", web: "https://links.example.com/post/3")),
                (3, "shoplink", .web("https://shop.example.org/p?x=1")),
                (4, "a/b", .refused("code: 3 to 64 letters")),
                (5, "v1.2", .refused("code: 3 to 64 letters")),
                (6, "spring", .refused("the code repeats line 2")),
                (7, nil, .refused("no short code")),
                (8, "archived1", .skipped("archived")),
                (9, "script", .refused("an https URL")),
            ]
        )
    }

    /// dub's default four columns, LF, no final newline.
    @Test func dubDefaultFour() async throws {
        let file =
            "Short link,Destination URL,Clicks,Created at\nhttps://dub.sh/four,https://shop.example.org/4,3,2024-03-01T00:00:00.000Z"
        try await Self.imports(
            file,
            format: "dub",
            [(2, "four", .web("https://shop.example.org/4"))]
        )
    }

    /// Bitly's dashboard (a Bitlink without a scheme) and its API's field names.
    @Test func bitlyDashboardAndAPI() async throws {
        let dashboard = """
            Bitlink,Title,Long URL,Tags,Created,Total Clicks
            bit.ly/3xYz,'=Post four,https://links.example.com/post/4?ref=mail,,2024-01-01,5
            bit.ly/shopx,Shop,https://shop.example.org/x,,2024-01-01,1
            bit.ly/evilx,,https://evil.example/,,2024-01-01,0
            bit.ly/plain,,http://shop.example.org/x,,2024-01-01,0

            """
        let api = """
            link,long_url,title,created_at,tags,archived
            https://bit.ly/apione,https://shop.example.org/api,API,2024-01-01T00:00:00+0000,[],false
            https://bit.ly/apitwo,https://shop.example.org/old,Old,2024-01-01T00:00:00+0000,[],true

            """
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(SmartLinkTests.configure) { client in
                try await Self.importAndOpen(
                    client,
                    dashboard,
                    format: "bitly",
                    [
                        (2, "3xYz", .app(route: "/post/4?ref=mail", web: "https://links.example.com/post/4?ref=mail")),
                        (3, "shopx", .web("https://shop.example.org/x")),
                        (4, "evilx", .refused("evil.example is not on the destination allowlist")),
                        (5, "plain", .refused("the scheme is http")),
                    ]
                )
                let stored = try await client.get("/v1/links/3xYz", headers: SmartLinkTests.admin)
                #expect(
                    (stored.object["preview"] as? [String: Any])?["title"] as? String == "=Post four",
                    "guard removed"
                )
                try await Self.importAndOpen(
                    client,
                    api,
                    format: "bitly",
                    [(2, "apione", .web("https://shop.example.org/api")), (3, "apitwo", .skipped("archived"))]
                )
            }
        }
    }

    /// Shlink's web client (every string quoted, numbers bare) and shlink-importer's format.
    @Test func shlinkWebClientAndImporter() async throws {
        let webClient = """
            "createdAt","domain","shortCode","shortUrl","longUrl","title","tags","visits"
            "2024-01-01T00:00:00+00:00","s.example","pf5","https://s.example/pf5","https://links.example.com/post/5","","",3
            "2024-01-01T00:00:00+00:00","s.example","caf%C3%A9","https://s.example/caf%C3%A9","https://shop.example.org/cafe","Caf\u{E9}","food|drink",1
            "2024-01-01T00:00:00+00:00","s.example","a/b","https://s.example/a/b","https://shop.example.org/ab","","",0
            "2024-01-01T00:00:00+00:00","","helpdesk","https://s.example/helpdesk","https://shop.example.org/help","Help","",0

            """
        let importer = """
            Long URL,Short code,Domain,Title,Tags
            https://shop.example.org/imp,imported1,,Imported,a|b

            """
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(SmartLinkTests.configure) { api in
                try await Self.importAndOpen(
                    api,
                    webClient,
                    format: "shlink",
                    [
                        (2, "pf5", .app(route: "/post/5", web: "https://links.example.com/post/5")),
                        (3, "caf%C3%A9", .refused("code: 3 to 64 letters")),
                        (4, "a/b", .refused("code: 3 to 64 letters")),
                        (5, "helpdesk", .web("https://shop.example.org/help")),
                    ]
                )
                try await Self.importAndOpen(
                    api,
                    importer,
                    format: "shlink",
                    [(2, "imported1", .web("https://shop.example.org/imp"))]
                )
            }
        }
    }

    /// This server's own CSV: a row refused for its destination does not block the corrected row further down.
    @Test func aRefusedRowDoesNotBlockALaterRowOfTheSameCode() async throws {
        let file = "code,route,fallback\nfixme,,https://evil.example/\nfixme,,https://shop.example.org/fixed\n"
        try await Self.imports(
            file,
            format: "csv",
            [
                (2, "fixme", .refused("not on the destination allowlist")),
                (3, "fixme", .web("https://shop.example.org/fixed")),
            ]
        )
    }

    /// A web link made through the API behaves as an imported one, on every platform; its own per-platform
    /// destinations win; it is counted, has a QR code and a `?d=1` page, and the app's resolver gets its address.
    @Test(arguments: TestDatabase.allCases)
    func aWebLinkCreatedThroughTheAPI(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve(SmartLinkTests.configure) { api in
                let body = #"""
                    {"code":"shopweb","destinations":{"fallback":"https://shop.example.org/","android":"https://shop.example.org/android"},"preview":{"title":"The shop"}}
                    """#
                let created = try await api.post("/v1/links", body, headers: SmartLinkTests.admin)
                #expect(created.status == .created, "\(created.text)")
                for (agent, location) in [
                    (SmartLinkTests.iPhone, "https://shop.example.org/"),
                    (SmartLinkTests.iPad, "https://shop.example.org/"),
                    (SmartLinkTests.android, "https://shop.example.org/android"),
                    (SmartLinkTests.desktop, "https://shop.example.org/"),
                    (SmartLinkTests.iPhone + " Instagram 300.0", "https://shop.example.org/"),
                ] {
                    let answer = try await api.get("/shopweb?utm_source=mail", headers: [.userAgent: agent])
                    #expect(answer.status == .found, "\(agent)")
                    #expect(answer.headers[.location] == location + "?utm_source=mail", "\(agent)")
                }
                let bot = try await api.get("/shopweb", headers: [.userAgent: SmartLinkTests.iMessage])
                #expect(bot.text.contains(#"<meta property="og:title" content="The shop">"#))
                let decisions = try await api.get("/shopweb?d=1", headers: [.userAgent: SmartLinkTests.desktop])
                #expect(decisions.status == .ok && decisions.text.contains("A web link: it never offers the app"))
                #expect(!decisions.text.contains("landing page:"), "no platform gets the landing page")
                let qr = try await api.get("/v1/links/shopweb/qr", headers: SmartLinkTests.admin)
                #expect(qr.status == .ok && qr.headers[.contentType] == "image/svg+xml")
                let resolved = try await api.get("/v1/links/shopweb/resolve")
                #expect(
                    resolved.object["url"] as? String == "https://shop.example.org/" && resolved.object["route"] == nil
                )
                // A web link still passes the destination checks.
                for (fallback, reason) in [
                    ("http://shop.example.org/", "the scheme is http"),
                    ("https://evil.example/", "not on the destination allowlist"),
                    ("https://user:pw@shop.example.org/", "without credentials"),
                ] {
                    let refused = try await api.post(
                        "/v1/links",
                        #"{"code":"badweb","destinations":{"fallback":"\#(fallback)"}}"#,
                        headers: SmartLinkTests.admin
                    )
                    #expect(refused.status == .unprocessableContent && refused.text.contains(reason), "\(refused.text)")
                }
            }
        }
    }

    /// The export writes every field; importing it into an empty server gives the same links.
    @Test func theExportImportsBackUnchanged() async throws {
        let links = [
            #"{"code":"full1","route":"/post/1","destinations":{"ios":"https://shop.example.org/i","ipad":"https://shop.example.org/p","android":"https://shop.example.org/a","desktop":"https://shop.example.org/d","fallback":"https://shop.example.org/f"},"preview":{"title":"=A, \"quoted\" title","description":"Two, lines","image":"https://shop.example.org/i.png"},"passQuery":false,"expiresAt":4102444800000,"expiredURL":"https://shop.example.org/over"}"#,
            #"{"code":"-dash","destinations":{"fallback":"https://shop.example.org/web"}}"#,
        ]
        var exported = ""
        var documents: [String] = []
        try await ResetWorld.with(.sqlite) { world in
            (exported, documents) = try await world.serveReturning(SmartLinkTests.configure) { api in
                for link in links {
                    let made = try await api.post("/v1/links", link, headers: SmartLinkTests.admin)
                    #expect(made.status == .created, "\(made.text)")
                }
                let answer = try await api.get("/v1/links/export", headers: SmartLinkTests.admin)
                #expect(answer.status == .ok && answer.headers[.contentType] == "text/csv; charset=utf-8")
                var documents: [String] = []
                for code in ["-dash", "full1"] {
                    documents.append(try await api.get("/v1/links/\(code)", headers: SmartLinkTests.admin).text)
                }
                return (answer.text, documents)
            }
        }
        let (file, stored) = (exported, documents)
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(SmartLinkTests.configure) { api in
                let report = try await api.post("/v1/links/import", file, headers: LinkImportTests.csv)
                #expect(
                    report.object["imported"] as? Int == 2 && report.object["format"] as? String == "csv",
                    "\(report.text)"
                )
                for (code, document) in zip(["-dash", "full1"], stored) {
                    #expect(try await api.get("/v1/links/\(code)", headers: SmartLinkTests.admin).text == document)
                }
                #expect(try await api.get("/v1/links/export", headers: SmartLinkTests.admin).text == file)
            }
        }
    }
}
