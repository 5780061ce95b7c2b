@testable import DeepLinksServer
@testable import DeepLinksStorage
import DeepLinksTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import SQLKit
import Testing

/// The second audit's findings (#43), each over the live socket: no request stops the server, nothing a request
/// sends reaches arithmetic that traps, and what a public page or an upgrade must not give away it does not.
@Suite struct HostileInputTests {
    static let admin = SmartLinkTests.admin

    /// A split whose weights add up past `Int.max` was a trap in the validator: the process exited. Through the
    /// API, a dry-run import and the console's rule form, it is a 4xx that names the field, and the server lives.
    @Test func weightsThatOverflowAreRefusedEverywhereAndTheServerStaysUp() async throws {
        try await ResetWorld.with(.sqlite) { world in
            _ = try await ConsoleSecurityTests.operators(world, [("ed@example.com", .editor)])
            try await world.serve(LinkRuleTests.configure) { api in
                let huge = "9223372036854774784"
                let split =
                    #"{"split":[{"variant":"a","weight":\#(huge),"url":"https://shop.example.org/a"},{"variant":"b","weight":\#(huge),"url":"https://shop.example.org/b"}]}"#
                let created = try await api.post(
                    "/v1/links",
                    #"{"code":"overflow","route":"/post/1","rules":[{"name":"ab","then":\#(split)}]}"#,
                    headers: Self.admin
                )
                #expect(created.status == .unprocessableContent, "\(created.text)")
                #expect(created.text.contains("rules[0].then.split[0].weight: 1 to 99"), "\(created.text)")
                // Weights below Int.max one by one whose sum is not: the same answer, no trap.
                let half = Int.max / 2 + 1
                let summed = try await api.post(
                    "/v1/links",
                    #"{"code":"overflow2","route":"/post/1","rules":[{"name":"ab","then":{"split":[{"variant":"a","weight":\#(half),"url":"https://shop.example.org/a"},{"variant":"b","weight":\#(half),"url":"https://shop.example.org/b"}]}}]}"#,
                    headers: Self.admin
                )
                #expect(summed.status == .unprocessableContent, "\(summed.text)")

                var csvHeaders = Self.admin
                csvHeaders[.contentType] = "text/csv"
                let rules = "[{\"name\":\"ab\",\"then\":\(split)}]".replacingOccurrences(of: "\"", with: "\"\"")
                let dry = try await api.post(
                    "/v1/links/import?dryRun=true",
                    "code,route,rules\noverflow,/post/1,\"\(rules)\"\n",
                    headers: csvHeaders
                )
                #expect(dry.status == .ok && dry.text.contains("weight: 1 to 99"), "\(dry.text)")

                var (editor, _) = try await ConsoleTests.signIn(api, "ed@example.com")
                editor.read(try await api.get("/console/new", headers: editor.headers))
                let form = try await ConsoleSecurityTests.post(
                    api,
                    editor,
                    "/console/new",
                    [
                        "code": "overflow", "route": "/post/1", "rules": "1", "rule.0.name": "ab",
                        "rule.0.then": "a \(huge) https://shop.example.org/a\nb \(huge) https://shop.example.org/b",
                    ]
                )
                #expect(form.status == .unprocessableContent, "\(form.status) \(form.text.prefix(300))")
                #expect(try await api.get("/healthz").status == .ok, "the server is still there")
            }
        }
    }

    /// A click's query is split once and bounded: past 8 KiB or 256 items the click is refused with a reason (414);
    /// below, a rule on the last item still matches, from the router and the cached path alike.
    @Test func longQueriesAreBoundedAndStillReadWhole() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(LinkRuleTests.configure) { api in
                try await LinkRuleTests.create(
                    api,
                    #"{"code":"spring","route":"/post/1","destinations":{"fallback":"https://shop.example.org/"},"rules":[{"name":"vip","when":{"query":{"name":"invite","equals":"VIP 7"}},"then":{"url":"https://shop.example.org/vip"}}]}"#
                )
                let desktop: HTTPFields = [.userAgent: LinkRuleTests.firefoxDesktop]
                // 100 items and 1.3 KB (event loop), 200 items and 2.7 KB (router): the rule reads the last item.
                for count in [60, 200] {
                    let items = (0..<count).map { "a\($0)=x" }.joined(separator: "&")
                    let location = try await LinkRuleTests.visit(api, "/spring?\(items)&invite=VIP+7", desktop)
                    #expect(location.hasPrefix("https://shop.example.org/vip?a0=x"), "\(count): \(location.prefix(80))")
                }
                let flood = (0..<9000).map { "a\($0)" }.joined(separator: "&")
                let refused = try await api.get("/spring?\(flood)", headers: desktop)
                #expect(refused.status == .uriTooLong && refused.text.contains("longer than 8192 bytes"))
                let many = try await api.get("/spring?" + String(repeating: "a&", count: 300), headers: desktop)
                #expect(many.status == .uriTooLong)
                let resolve = try await api.get("/v1/links/spring/resolve?platform=iphone&\(flood)")
                #expect(resolve.status == .badRequest, "\(resolve.text)")
            }
        }
    }

    /// `?d=1` is public: whether each rule matched and on which kind of condition, never the value it expects nor
    /// when it starts or ends.
    @Test func theDebugPageGivesAwayNoExpectedValueNorSchedule() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(LinkRuleTests.configure) { api in
                let start = Date(
                    timeIntervalSince1970: Double(Int64(Date().timeIntervalSince1970 * 1000) / 1000 + 86_400 * 3)
                )
                .formatted(.iso8601)
                try await LinkRuleTests.create(
                    api,
                    #"""
                    {"code":"sale","route":"/post/1","expiresAt":\#(Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000 * 30),"rules":[
                      {"name":"vip","when":{"query":{"name":"invite","equals":"VIP-7f3a9c"}},"then":{"url":"https://shop.example.org/vip"}},
                      {"name":"later","when":{"from":"\#(start)"},"then":{"url":"https://shop.example.org/later"}},
                      {"name":"new ios","when":{"platforms":["iphone"],"os":{"min":"26.2"}},"then":{"url":"https://shop.example.org/ios"}}]}
                    """#
                )
                let page = try await api.get(
                    "/sale?d=1&invite=guess",
                    headers: [.userAgent: LinkRuleTests.safari18]
                ).text
                #expect(page.contains("<strong>1. vip</strong>: does not match: its query condition is not met"))
                #expect(page.contains("<strong>2. later</strong>: does not match: not in its time window now"))
                #expect(page.contains("OS 18.6 is outside its OS range"), "\(page)")
                for secret in ["VIP-7f3a9c", String(start.prefix(10)), "26.2", "expires at"] {
                    #expect(!page.contains(secret), "?d=1 shows \(secret)")
                }
            }
        }
    }

    /// A destination that is this server's own short link is refused: on a dedicated link domain any code
    /// (itself, another link, one not made yet); on a link domain that is also the app's site, the link's own
    /// code. The app's own paths and the domain's root stay allowed.
    @Test func aLinkMayNotLeadToAShortLinkOfThisServer() async throws {
        @Sendable func refused(_ api: ResetClient, _ field: String, _ json: String) async throws {
            let answer = try await api.post("/v1/links", json, headers: Self.admin)
            #expect(answer.status == .unprocessableContent, "\(field): \(answer.text)")
            #expect(answer.text.contains("\(field): ") && answer.text.contains("is a short link of this server"))
        }
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(LinkRuleTests.configure) { api in
                try await refused(
                    api,
                    "destinations.fallback",
                    #"{"code":"self","destinations":{"fallback":"https://links.example.com/SELF"}}"#
                )
                try await refused(
                    api,
                    "rules[0].then: url",
                    #"{"code":"ruled","route":"/post/1","rules":[{"name":"r","then":{"url":"https://links.example.com/ruled"}}]}"#
                )
                try await LinkRuleTests.create(
                    api,
                    #"{"code":"fine","destinations":{"fallback":"https://links.example.com/","desktop":"https://links.example.com/post/3"}}"#
                )
            }
            try await world.serve({ settings in
                LinkRuleTests.configure(&settings)
                settings.smartLinks.linkDomain = "go.example.com"
            }) { api in
                try await LinkRuleTests.create(
                    api,
                    #"{"code":"other","destinations":{"fallback":"https://shop.example.org/"}}"#
                )
                for (field, json) in [
                    (
                        "destinations.desktop",
                        #"{"code":"hop","route":"/post/1","destinations":{"desktop":"https://GO.example.com/other?x=1"}}"#
                    ),
                    (
                        "expiredURL",
                        #"{"code":"later","route":"/post/1","expiredURL":"https://go.example.com/not-yet-made"}"#
                    ),
                    (
                        "rules[0].then.split[1]: url",
                        #"{"code":"ab","route":"/post/1","rules":[{"name":"r","then":{"split":[{"variant":"a","weight":50,"url":"https://shop.example.org/"},{"variant":"b","weight":50,"url":"https://go.example.com/other"}]}}]}"#
                    ),
                ] {
                    try await refused(api, field, json)
                }
                try await LinkRuleTests.create(
                    api,
                    #"{"code":"fine2","destinations":{"fallback":"https://go.example.com/","desktop":"https://go.example.com/post/3"}}"#
                )
            }
        }
    }

    /// Keys that migration 12 gave no operator: on an upgrade from a database with them, a removed operator's key
    /// is revoked, a key minted through the API is lowered to viewer, a `cli` key keeps its role; each says why.
    @Test(arguments: TestDatabase.allCases)
    func keysWithoutAnOperatorAreRevokedOrLoweredOnUpgrade(_ kind: TestDatabase) async throws {
        guard kind.isAvailable else { return }
        try await kind.with { database in
            let logger = Logger(label: "test")
            try await Migrator(database: database, migrations: Array(Migration.all.prefix(11)), logger: logger)
                .migrate()
            try await database.withConnection { sql in
                try await sql.raw(
                    "INSERT INTO operators (email, password_hash, role, created_at) VALUES ('kept@example.com', 'h', 'admin', 1)"
                ).run()
                for (name, by) in [
                    ("gone", "gone@example.com"), ("minted", "api"), ("owner", "cli"), ("kept", "kept@example.com"),
                ] {
                    try await sql.raw(
                        "INSERT INTO api_keys (name, role, prefix, key_hash, created_at, created_by) VALUES (\(bind: name), 'admin', \(bind: "dlk_" + name), \(bind: name + "-hash"), 1, \(bind: by))"
                    ).run()
                }
            }
            #expect(
                try await Migrator(database: database, logger: logger).migrate() == [12, 13, 14, 15, 16, 17, 18, 19]
            )
            let keys = try await Operators(database: database).keys()
            func key(_ name: String) throws -> Operators.APIKey { try #require(keys.first { $0.name == name }) }
            #expect(try key("gone").revokedAt != nil)
            #expect(try key("gone").note?.contains("gone@example.com was no longer an operator") == true)
            #expect(try key("minted").role == .viewer && key("minted").revokedAt == nil)
            #expect(try key("minted").note?.contains("lowered from admin to viewer") == true)
            #expect(try key("owner").role == .admin && key("owner").revokedAt == nil && key("owner").note == nil)
            #expect(try key("kept").role == .admin && key("kept").revokedAt == nil)
        }
    }

    /// Two admins removing each other at the same moment, over and over, on PostgreSQL (READ COMMITTED): one admin
    /// is always left.
    @Test func twoAdminsRemovingEachOtherAtOnceLeaveOne() async throws {
        guard TestDatabase.postgresql.isAvailable else { return }
        try await ResetWorld.with(.postgresql) { world in
            let operators = try await ConsoleSecurityTests.operators(world, [])
            let hasher = world.settings().passwordReset.hasher
            try await world.serve(SmartLinkTests.configure) { api in
                for round in 0..<6 {
                    let (a, b) = ("a\(round)@example.com", "b\(round)@example.com")
                    for email in [a, b] {
                        _ = try await operators.create(
                            email: email,
                            password: ConsoleTests.password,
                            role: .admin,
                            hasher: hasher
                        )
                    }
                    var (first, _) = try await ConsoleTests.signIn(api, a)
                    var (second, _) = try await ConsoleTests.signIn(api, b)
                    first.read(try await api.get("/console/keys", headers: first.headers))
                    second.read(try await api.get("/console/keys", headers: second.headers))
                    let path = round % 2 == 0 ? "/console/operators/remove" : "/console/operators/role"
                    let (x, y) = (first, second)
                    async let one = ConsoleSecurityTests.post(api, x, path, ["email": b, "role": "viewer"])
                    async let two = ConsoleSecurityTests.post(api, y, path, ["email": a, "role": "viewer"])
                    let statuses = [try await one.status, try await two.status]
                    let admins = try await operators.list().filter { $0.role == .admin }.map(\.email)
                    #expect(admins.count >= 1, "round \(round): \(statuses), admins \(admins)")
                    // Leave the next round its own pair: demote or remove what is left of this one.
                    for email in admins {
                        try? await operators.remove(email: email, by: "cli")
                    }
                    if round % 2 == 1 {
                        for email in [a, b] { try? await operators.remove(email: email, by: "cli") }
                    }
                    _ = try await operators.create(
                        email: "keeper\(round)@example.com",
                        password: ConsoleTests.password,
                        role: .admin,
                        hasher: hasher
                    )
                }
            }
        }
    }

    /// Neighbours on one network (NAT, VPN) emptying its sign-in bucket do not lock an operator out of the browser
    /// they signed in from; `unlock` refuses an address that is no operator's; a 60,000-character "email" is a
    /// wrong password like any other, on SQLite and PostgreSQL, and leaves no 60,000-byte key behind.
    @Test(arguments: TestDatabase.allCases)
    func neighboursCannotLockAnOperatorOutOfTheirBrowser(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            let operators = try await ConsoleSecurityTests.operators(world, [("owner@example.com", .editor)])
            try await world.serve { api in
                let (owner, first) = try await ConsoleTests.signIn(api, "owner@example.com")
                #expect(first.status == .seeOther)
                var statuses: [HTTPResponse.Status] = []
                for attempt in 0..<30 {
                    let guess = attempt == 0 ? String(repeating: "x", count: 60_000) : "n\(attempt)@example.com"
                    statuses.append(try await ConsoleTests.signIn(api, guess, password: "wrong-password-1").1.status)
                }
                #expect(statuses.first == .unauthorized, "a long address is a wrong password, not a 503")
                #expect(statuses.last == .tooManyRequests, "the network's bucket holds strangers: \(statuses)")
                let device = try #require(owner.cookies[ConsoleRoutes.deviceCookie])
                let back = try await ConsoleTests.signIn(api, "owner@example.com", device: device).1
                #expect(back.status == .seeOther, "the owner's browser gets in: \(back.status)")
                let longest = try await world.sql("SELECT MAX(LENGTH(key)) AS n FROM rate_limits").first?.decode(
                    column: "n",
                    as: Int.self
                )
                #expect((longest ?? 0) < 200, "rate limit keys stay short: \(longest ?? 0)")
            }
            await #expect(throws: OperatorError.noSuchOperator) {
                try await operators.unlock(email: "nobody@example.com")
            }
            try await operators.unlock(email: "Owner@Example.com")
        }
    }

    /// An import is UTF-8 or refused (the console already refused it); imports read record by record.
    @Test func anImportThatIsNotUTF8IsRefusedAndChangesNothing() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(SmartLinkTests.configure) { api in
                var headers = Self.admin
                headers[.contentType] = "text/csv"
                var bytes = Array("code,route,title\nlatin,/post/1,Caf".utf8)
                bytes += [0xE9, 0x0A]  // ISO 8859-1's é
                let answer = try await api.client.execute(
                    uri: "/v1/links/import",
                    method: .post,
                    headers: headers,
                    body: ByteBuffer(bytes: bytes)
                ) { $0 }
                #expect(answer.status == .badRequest && answer.text.contains("not UTF-8"), "\(answer.text)")
                #expect(try await api.get("/v1/links/latin", headers: Self.admin).status == .notFound)
            }
        }
    }

    /// The export's spreadsheet guard looks at the first scalar (`=` with a zero-width joiner or a combining mark
    /// after it is still a formula to LibreOffice), and export then import is the identity: spaces kept, a title
    /// that starts with the guard's own `'` kept.
    @Test func theSpreadsheetGuardIsByScalarAndExportThenImportIsTheIdentity() async throws {
        #expect(LinkExport.cell("=\u{200D}1+1").unicodeScalars.starts(with: "'=".unicodeScalars))
        #expect(LinkExport.cell("=\u{0301}SUM(A1)").unicodeScalars.starts(with: "'=".unicodeScalars))
        #expect(LinkExport.cell("\tcmd").hasPrefix("'\t"))
        #expect(LinkExport.cell("plain") == "plain")
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(SmartLinkTests.configure) { api in
                let titles = ["  spaced title  ", "'=not a formula", "=\u{200D}1+1", "''twice", "-5 %", "@home"]
                for (index, title) in titles.enumerated() {
                    let body = try JSONSerialization.data(withJSONObject: [
                        "code": "title\(index)", "route": "/post/\(index)", "preview": ["title": title],
                    ])
                    try await LinkRuleTests.create(api, String(decoding: body, as: UTF8.self))
                }
                let exported = try await api.get("/v1/links/export", headers: Self.admin).text
                for index in titles.indices {
                    #expect(
                        try await api.get("/v1/links/title\(index)", method: .delete, headers: Self.admin).status
                            == .noContent
                    )
                }
                let report = try await api.post("/v1/links/import", exported, headers: LinkImportTests.csv)
                #expect(report.status == .ok, "\(report.text)")
                for (index, title) in titles.enumerated() {
                    let link = try await api.get("/v1/links/title\(index)", headers: Self.admin).object
                    #expect((link["preview"] as? [String: Any])?["title"] as? String == title, "\(title)")
                }
            }
        }
    }

    /// A trusted proxy's `X-Forwarded-For` that holds no hop (`,`, empty) is an unknown client, not the proxy.
    @Test func aForwardedForWithoutAHopIsAnUnknownClient() throws {
        let proxies = try TrustedProxies(["127.0.0.1"])
        let peer = try SocketAddress(ipAddress: "127.0.0.1", port: 4000)
        for header in [",", "", " , ", "203.0.113.7, "] {
            let address = proxies.clientAddress(peer: peer, headers: [TrustedProxies.forwardedFor: header])
            #expect(address == TrustedProxies.unknownClient, "'\(header)': \(address)")
        }
        #expect(
            proxies.clientAddress(peer: peer, headers: [TrustedProxies.forwardedFor: "203.0.113.7"]) == "203.0.113.7"
        )
        #expect(proxies.clientAddress(peer: peer, headers: [:]) == "127.0.0.1", "the proxy's own request")
    }

    /// `localhost.` is a name resolved through DNS, not loopback: plain http to it is refused.
    @Test func plainHTTPGoesToLoopbackOnly() {
        #expect(ExternalAccounts.backendProblem("http://localhost:8080") == nil)
        #expect(ExternalAccounts.backendProblem("http://127.0.0.1:8080/hooks") == nil)
        #expect(ExternalAccounts.backendProblem("http://[::1]:8080") == nil)
        for address in ["http://localhost.:8080", "http://localhost.", "http://LOCALHOST./hooks"] {
            #expect(ExternalAccounts.backendProblem(address)?.contains("plain http") == true, "\(address)")
        }
    }

    /// Without a route manifest a route is still a path a URL holds: no CR, LF, NUL or invalid escape.
    @Test func aRouteWithoutAManifestIsStillAPath() throws {
        var app = AppConfiguration.demo
        app.routes = nil
        let validator = try SmartLinkValidator(apps: [app], allowedHosts: [])
        #expect(validator.routeProblem("/post/10?tag=a", app: nil) == nil)
        for route in ["/post\r\nSet-Cookie: x", "/a\u{0}b", "/a%zz", "//evil.example/x", "/a b"] {
            #expect(validator.routeProblem(route, app: nil) != nil, "\(route.debugDescription)")
        }
    }

    static func withLinkDomains(_ settings: inout ServerSettings) {
        SmartLinkTests.configure(&settings)
        settings.smartLinks.linkDomain = "go.example.com"
        settings.smartLinks.otherLinkDomains = ["old.example.com"]
        settings.smartLinks.landingDomain = "open.example.com"
    }

    /// A TLS proxy's on-demand ask: 200 for a host the configuration names (any case, a trailing dot), 404 for any
    /// other name, 400 without one.
    @Test func theTLSAskEndpointAllowsTheConfigurationsHostsOnly() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(Self.withLinkDomains) { api in
                for name in ["links.example.com", "GO.example.com", "old.example.com.", "open.example.com"] {
                    let status = try await api.get("/tls/ask?domain=\(name)").status
                    #expect(status == .ok, "\(name)")
                }
                for name in ["evil.example.com", "example.com", "links.example.com.evil.example"] {
                    let status = try await api.get("/tls/ask?domain=\(name)").status
                    #expect(status == .notFound, "\(name)")
                }
                #expect(try await api.get("/tls/ask").status == .badRequest)
            }
        }
    }
}
