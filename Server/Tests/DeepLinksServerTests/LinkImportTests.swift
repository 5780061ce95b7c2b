import DeepLinksTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@testable import DeepLinksServer

/// Imports from Firebase Dynamic Links, dub, Bitly, Shlink and this server's own CSV: codes kept, each row checked
/// like an API create, the report per row, dry runs, re-runs and conflicts, through the API on both databases.
@Suite struct LinkImportTests {
    /// The columns are declared once (`LinkColumn.all`): the export's header is that list, the `csv` import reads
    /// each, and docs/smart-links.md and the DocC article list them as they are.
    @Test func theDocumentedHeaderIsTheColumnList() throws {
        let header = LinkColumn.all.map(\.name).joined(separator: ",")
        #expect(LinkExport.header.joined(separator: ",") == header)
        #expect(LinkExport.csv([]) == header + "\n")
        #expect(Set(LinkImport.fields(.csv).map(\.0)) == Set(LinkColumn.all.map { LinkImport.normalized($0.name) }))
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../..")
        for document in ["docs/smart-links.md", "Server/Sources/DeepLinksServer/Documentation.docc/MigratingLinks.md"] {
            let text = try String(contentsOf: root.appending(path: document), encoding: .utf8)
            // Every list of this server's columns in the document (a backquoted run starting `code,app,`) is whole.
            let lists = text.components(separatedBy: "`code,app,").dropFirst().map {
                "code,app," + ($0.components(separatedBy: "`").first ?? "")
            }
            #expect(!lists.isEmpty && lists.allSatisfy { $0 == header }, "\(document): \(lists)")
        }
    }

    @Test func csvFollowsRFC4180() throws {
        let text = "\u{FEFF}a,b,c\r\n1,\"two, with a comma\",\"say \"\"hi\"\"\"\r\n\"multi\nline\",,x\n"
        #expect(
            try LinkImport.parseCSV(text) == [
                ["a", "b", "c"], ["1", "two, with a comma", "say \"hi\""], ["multi\nline", "", "x"],
            ]
        )
        #expect(throws: LinkImportError.self) { try LinkImport.parseCSV("a,b\n\"open,2\n") }
    }

    /// A crafted file is refused as it is read, with the reason: 8 MiB of commas, a row too many, a huge cell.
    @Test func anImportsRowsColumnsAndCellsAreBounded() throws {
        func reason(_ text: String) -> String {
            do {
                _ = try LinkImport.parseCSV(text)
                return "read"
            } catch {
                return error.description
            }
        }
        #expect(reason(String(repeating: ",", count: 8 << 20)).contains("more than 100 columns"))
        #expect(reason(String(repeating: ",", count: 99) + "\n") == "read")
        #expect(
            reason("code\n" + String(repeating: "x\n", count: LinkImport.maxRows)).contains("more than 100000 rows")
        )
        #expect(reason("code\n" + String(repeating: "x\n", count: LinkImport.maxRows - 1)) == "read")
        #expect(reason("code\n\"" + String(repeating: "a", count: 20_000) + "\"\n").contains("a cell is longer"))
    }

    @Test func aShortLinksCodeIsItsPath() {
        #expect(LinkImport.shortCode("https://demo.page.link/Abc1") == "Abc1")
        #expect(LinkImport.shortCode("bit.ly/3xYz") == "3xYz", "Bitly's dashboard writes no scheme")
        #expect(LinkImport.shortCode("3xYz") == "3xYz")
        #expect(LinkImport.shortCode("https://bit.ly/") == nil, "a domain's root has no code")
        #expect(LinkImport.shortCode("https://dub.sh/a/b") == "a/b", "kept as written, for the validator to refuse")
    }

    static let fdl = """
        Short Dynamic Link,Long Dynamic Link,Created
        https://demo.page.link/summer,"https://demo.page.link/?link=https%3A%2F%2Flinks.example.com%2Fpost%2F10&ibi=com.example.demo&isi=1234567890&ofl=https%3A%2F%2Flinks.example.com%2Fweb%2Fpost%2F10&st=Summer%20sale",2023-05-01
        https://demo.page.link/away,https://demo.page.link/?link=https%3A%2F%2Fevil.example.net%2Fx,2023-05-02
        https://demo.page.link/wrongstore,https://demo.page.link/?link=https%3A%2F%2Flinks.example.com%2Fpost%2F11&ibi=com.example.demo&isi=999,2023-05-03

        """

    @Test(arguments: TestDatabase.allCases)
    func aFirebaseExportKeepsItsCodesAndPlatforms(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve(SmartLinkTests.configure) { api in
                let dry = try await api.post("/v1/links/import?format=fdl&dryRun=true", Self.fdl, headers: Self.csv)
                #expect(dry.status == .ok, "\(dry.text)")
                #expect(dry.object["refused"] as? Int == 2 && dry.object["valid"] as? Int == 1)
                #expect(
                    try await api.get("/v1/links/summer", headers: SmartLinkTests.admin).status == .notFound,
                    "a dry run writes nothing"
                )

                let report = try await api.post("/v1/links/import?format=fdl", Self.fdl, headers: Self.csv)
                #expect(report.status == .ok)
                #expect(
                    report.object["imported"] as? Int == 1 && report.object["refused"] as? Int == 2,
                    "\(report.text)"
                )
                let rows = try #require(report.object["rows"] as? [[String: Any]])
                #expect(rows.map { $0["line"] as? Int } == [2, 3, 4])
                #expect(
                    (rows[1]["problems"] as? [String])?.first?.contains(
                        "evil.example.net is not on the destination allowlist"
                    )
                        == true
                )
                #expect(
                    (rows[2]["problems"] as? [String])?.first == "isi: 999 is not the App Store ID of com.example.demo"
                )

                let desktop = try await api.get("/summer", headers: [.userAgent: SmartLinkTests.desktop])
                #expect(desktop.status == .found)
                #expect(desktop.headers[.location] == "https://links.example.com/web/post/10", "ofl, as Firebase did")
                let phone = try await api.get("/summer", headers: [.userAgent: SmartLinkTests.iPhone])
                #expect(phone.text.contains(#"href="https://links.example.com/post/10">Open in the Demo app"#))
                let preview = try await api.get("/summer", headers: [.userAgent: SmartLinkTests.iMessage])
                #expect(preview.text.contains(#"<meta property="og:title" content="Summer sale">"#))

                // Run again: the code is taken. skip leaves it, fail writes nothing and names it, replace rewrites.
                let again = try await api.post("/v1/links/import?format=fdl", Self.fdl, headers: Self.csv)
                #expect(again.object["skipped"] as? Int == 1 && again.object["imported"] as? Int == 0)
                let failing = try await api.post(
                    "/v1/links/import?format=fdl&onConflict=fail",
                    Self.fdl,
                    headers: Self.csv
                )
                #expect(failing.status == .conflict)
                #expect(failing.object["taken"] as? [String] == ["summer"])
                let replaced = try await api.post(
                    "/v1/links/import?format=fdl&onConflict=replace",
                    Self.fdl,
                    headers: Self.csv
                )
                #expect(replaced.object["replaced"] as? Int == 1)
            }
        }
    }

    /// One row of each shortener's export (format, file, code), every destination a path of the app's.
    static let shortenerExports = [
        ("dub", "id,domain,key,url,clicks\nlink_1,dub.sh,spring,https://links.example.com/post/3,10\n", "spring"),
        (
            "bitly",
            "link,long_url,title,created_at\nhttps://bit.ly/3xYz,https://links.example.com/post/4?ref=mail,Post four,2024-01-01\n",
            "3xYz"
        ),
        (
            "shlink",
            "Long URL,Short URL,Title,Short code,Date created,Visits\nhttps://links.example.com/post/5,https://s.example/pf5,,pf5,2024-01-01,3\n",
            "pf5"
        ),
    ]

    @Test func dubBitlyAndShlinkExportsKeepTheirSlugs() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(SmartLinkTests.configure) { api in
                for (format, export, code) in Self.shortenerExports {
                    let report = try await api.post("/v1/links/import?format=\(format)", export, headers: Self.csv)
                    #expect(report.object["imported"] as? Int == 1, "\(format): \(report.text)")
                    let link = try await api.get("/v1/links/\(code)", headers: SmartLinkTests.admin)
                    #expect(link.status == .ok, "\(format)")
                    let desktop = try await api.get("/\(code)", headers: [.userAgent: SmartLinkTests.desktop])
                    #expect(desktop.status == .found, "\(format)")
                }
                #expect(
                    try await api.get("/v1/links/3xYz", headers: SmartLinkTests.admin).object["route"] as? String
                        == "/post/4?ref=mail"
                )
            }
        }
    }

    /// What Android visitors got at the old service is what they get here. dub, Bitly and Shlink redirected to the
    /// destination, so an Android phone without the app reached that web page: the import keeps it (the intent
    /// falls back to it, never to Google Play). A Firebase row with `apn` and no `afl` sent them to Play, and
    /// still does; one with `afl` goes there.
    @Test func androidVisitorsKeepWhatTheOldServiceGaveThem() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve({
                SmartLinkTests.configure(&$0)
                $0.app.android = .init(
                    packageName: "com.example.demo",
                    sha256CertFingerprints: [SeveralAppsTests.fingerprint]
                )
            }) { api in
                for (format, export, code) in Self.shortenerExports {
                    let report = try await api.post("/v1/links/import?format=\(format)", export, headers: Self.csv)
                    #expect(report.object["imported"] as? Int == 1, "\(format): \(report.text)")
                    let intent =
                        try await api.get("/\(code)", headers: [.userAgent: SmartLinkTests.android])
                        .headers[.location] ?? ""
                    #expect(intent.hasPrefix("intent://links.example.com/post/"), "\(format): \(intent)")
                    #expect(
                        intent.contains("S.browser_fallback_url=https%3A%2F%2Flinks.example.com%2Fpost%2F"),
                        "\(format): the destination's page, as before: \(intent)"
                    )
                    #expect(!intent.contains("play.google.com"), "\(format): \(intent)")
                }
                let firebase = """
                    Short Dynamic Link,Long Dynamic Link,Created
                    https://demo.page.link/toplay,"https://demo.page.link/?link=https%3A%2F%2Flinks.example.com%2Fpost%2F6&apn=com.example.demo",2023-05-01
                    https://demo.page.link/toweb,"https://demo.page.link/?link=https%3A%2F%2Flinks.example.com%2Fpost%2F7&apn=com.example.demo&afl=https%3A%2F%2Fshop.example.org%2F7",2023-05-01

                    """
                let report = try await api.post("/v1/links/import?format=fdl", firebase, headers: Self.csv)
                #expect(report.object["imported"] as? Int == 2, "\(report.text)")
                let play = try await api.get("/toplay", headers: [.userAgent: SmartLinkTests.android]).headers[
                    .location
                ]
                #expect(
                    play?.contains(
                        "S.browser_fallback_url=https%3A%2F%2Fplay.google.com%2Fstore%2Fapps%2Fdetails%3Fid%3Dcom.example.demo;end"
                    ) == true,
                    "apn without afl: Google Play, as Firebase did: \(play ?? "")"
                )
                let web = try await api.get("/toweb", headers: [.userAgent: SmartLinkTests.android]).headers[.location]
                #expect(
                    web?.contains("S.browser_fallback_url=https%3A%2F%2Fshop.example.org%2F7;end") == true,
                    "\(web ?? "")"
                )
            }
        }
    }

    @Test func ownCSVWithColumnsRenamedRepeatsAndBadInputs() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(SmartLinkTests.configure) { api in
                let own = "slug,route,desktop\none,/post/1,https://shop.example.org/1\none,/post/2,\ntwo,/nowhere,\n"
                let report = try await api.post("/v1/links/import?column.code=slug", own, headers: Self.csv)
                #expect(
                    report.object["imported"] as? Int == 1 && report.object["refused"] as? Int == 2,
                    "\(report.text)"
                )
                let rows = try #require(report.object["rows"] as? [[String: Any]])
                #expect(rows[1]["problems"] as? [String] == ["the code repeats line 2"])
                #expect((rows[2]["problems"] as? [String])?.isEmpty == false, "a route the manifest lacks")

                for (query, body, parameter) in [
                    ("format=gif", "code,route\n", "format"), ("onConflict=merge", "code,route\n", "onConflict"),
                ] {
                    let refused = try await api.post("/v1/links/import?\(query)", body, headers: Self.csv)
                    #expect(refused.status == .badRequest && refused.object["parameter"] as? String == parameter)
                }
                // A column override naming no field of the format, or no column of the file: refused, nothing written.
                for (query, reason) in [
                    ("column.cod=slug", "the csv format has no field 'cod'"),
                    ("column.title=Headline", "no column 'Headline' in the header row (named for 'title')"),
                ] {
                    let refused = try await api.post(
                        "/v1/links/import?column.code=slug&\(query)",
                        own,
                        headers: Self.csv
                    )
                    #expect(refused.status == .badRequest)
                    #expect((refused.object["reason"] as? String)?.contains(reason) == true, "\(refused.text)")
                }
                let unclosed = try await api.post("/v1/links/import", "code,route\n\"x,/post/1\n", headers: Self.csv)
                #expect(unclosed.status == .badRequest)
                #expect((unclosed.object["reason"] as? String)?.contains("a quoted field is not closed") == true)
                let noColumn = try await api.post("/v1/links/import?format=dub", "name,url\na,b\n", headers: Self.csv)
                #expect(
                    (noColumn.object["reason"] as? String)?.contains("no column for 'code'") == true,
                    "\(noColumn.text)"
                )
                #expect(
                    try await api.post("/v1/links/import", own, headers: [.contentType: "text/csv"]).status
                        == .unauthorized
                )
                let huge = String(repeating: "x", count: LinkTransfer.maxImportSize + 1)
                #expect(try await api.post("/v1/links/import", huge, headers: Self.csv).status == .contentTooLarge)
            }
        }
    }

    /// An import is all or nothing: a storage failure on row 7,500 of 20,000 (a full disk, PostgreSQL gone; here a
    /// trigger that raises as the database would) writes no link, no change and no webhook, and the documented retry
    /// with `onConflict=fail` then ends with exactly the file's links, each announced once.
    @Test(arguments: TestDatabase.allCases)
    func anImportThatFailsMidwayWritesNothingAndItsRetryWritesEveryRowOnce(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind, external: false) { world in
            let hooks: (inout ServerSettings) -> Void = { settings in
                SmartLinkTests.configure(&settings)
                // Never answered: the events stay in the outbox, where they are counted.
                settings.webhooks = ["http://127.0.0.1:9/hooks"]
                settings.hookSecrets = WebhookTests.secrets
            }
            try await world.serve(hooks) { api in
                let file = "code,route\n" + (0..<20_000).map { "lnk\($0),/post/\($0)\n" }.joined()
                if kind == .sqlite {
                    _ = try await world.sql(
                        "CREATE TRIGGER fail_midway BEFORE INSERT ON links WHEN NEW.code = 'lnk7500' BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"
                    )
                } else {
                    _ = try await world.sql(
                        "CREATE FUNCTION fail_midway() RETURNS trigger AS $$ BEGIN IF NEW.code = 'lnk7500' THEN RAISE EXCEPTION 'could not extend file'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql"
                    )
                    _ = try await world.sql(
                        "CREATE TRIGGER fail_midway BEFORE INSERT ON links FOR EACH ROW EXECUTE FUNCTION fail_midway()"
                    )
                }
                func count(_ table: String) async throws -> Int {
                    try await world.sql("SELECT COUNT(*) AS n FROM \(unsafeRaw: table)").first?.decode(
                        column: "n",
                        as: Int.self
                    ) ?? -1
                }
                // HummingbirdTesting's live client gives up after 20 s without a byte, which 20,000 rows on two cores
                // busy with the parallel suite can exceed, and its one connection is closed by the server's idle
                // timeout (15 s) while the imports run: each request here gets its own connection and waits three
                // minutes (the 503 closes its connection too).
                func send(_ path: String, headers: HTTPFields, body: String? = nil) async throws -> TestClient.Response
                {
                    let client = TestClient(
                        host: "localhost",
                        port: try #require(api.client.port),
                        configuration: .init(timeout: .seconds(180))
                    )
                    client.connect()
                    let request = TestClient.Request(
                        path,
                        method: body == nil ? .get : .post,
                        authority: "localhost",
                        headers: headers,
                        body: body.map { ByteBuffer(string: $0) }
                    )
                    do {
                        let response = try await client.execute(request)
                        try await client.shutdown()
                        return response
                    } catch {
                        try? await client.shutdown()
                        throw error
                    }
                }
                let failed = try await send("/v1/links/import", headers: Self.csv, body: file)
                #expect(failed.status == .serviceUnavailable, "\(failed.text.prefix(300))")
                #expect(failed.headers[.retryAfter] != nil)
                #expect(!failed.text.contains("lnk7500"), "the database's own message stays in the log")
                for table in ["links", "link_changes", "webhook_outbox"] {
                    #expect(try await count(table) == 0, "\(table): nothing of a failed import is kept")
                }

                _ = try await world.sql("DROP TRIGGER fail_midway\(unsafeRaw: kind == .sqlite ? "" : " ON links")")
                let retried = try await send("/v1/links/import?onConflict=fail", headers: Self.csv, body: file)
                #expect(retried.status == .ok, "\(retried.text.prefix(300))")
                #expect(retried.object["imported"] as? Int == 20_000)
                #expect(try await count("links") == 20_000)
                #expect(try await count("webhook_outbox") == 20_000, "one link.created per link")
                let desktop = try await send("/lnk19999", headers: [.userAgent: SmartLinkTests.desktop])
                #expect(desktop.status == .ok, "a link of the import's last part is served at once")
            }
        }
    }

    static var csv: HTTPFields {
        var fields = SmartLinkTests.admin
        fields[.contentType] = "text/csv"
        return fields
    }
}
