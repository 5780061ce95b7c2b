@testable import DeepLinksServer
import DeepLinksStorage
import DeepLinksTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// Universal-link health: every request from iOS on a path a served association file claims is a tap that did not
/// open the app, counted per day, domain and cause; the rest (desktop, Android, unclaimed hosts, opted out) is not.
@Suite struct UniversalLinkHealthTests {
    static let instagram = SmartLinkTests.iPhone + " Instagram 309.0.0.0.0 (iPhone15,2; iOS 17_5; en_US)"
    static let messagesPreview = "facebookexternalhit/1.1 Facebot Twitterbot/1.0"

    static func configure(_ settings: inout ServerSettings) {
        SmartLinkTests.configure(&settings)
        settings.smartLinks.linkDomain = "go.example.com"
        settings.smartLinks.landingDomain = "landing.example.com"
        settings.smartLinks.otherLinkDomains = ["xn--bcher-kva.example"]
    }

    /// A request to `host` (its own connection, so any Host can be named).
    @discardableResult
    static func send(_ port: Int, _ host: String, _ path: String, _ headers: HTTPFields) async throws -> String {
        let client = TestClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(60)))
        client.connect()
        let response = try await client.execute(.init(path, method: .get, authority: host, headers: headers))
        try? await client.shutdown()
        return response.text
    }

    /// The stored counts, `domain cause[ detail]` to requests, once they reach `total` (the job writes every second).
    static func counts(_ world: ResetWorld, total: Int64) async throws -> [String: Int64] {
        var found: [String: Int64] = [:]
        for _ in 0..<150 {
            found = [:]
            for row in try await world.sql("SELECT domain, cause, detail, requests FROM link_health") {
                let detail = try row.decode(column: "detail", as: String.self)
                let key =
                    "\(try row.decode(column: "domain", as: String.self)) \(try row.decode(column: "cause", as: String.self))"
                    + (detail.isEmpty ? "" : " \(detail)")
                found[key, default: 0] += try row.decode(column: "requests", as: Int64.self)
            }
            if found.values.reduce(0, +) >= total { return found }
            try await Task.sleep(for: .milliseconds(100))
        }
        return found
    }

    @Test(arguments: TestDatabase.allCases)
    func eachRequestFromIOSOnAClaimedPathIsCountedOnceUnderItsCause(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind, external: false) { world in
            try await world.serve(Self.configure) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                let port = try #require(api.client.port)
                let iPhone: HTTPFields = [.userAgent: SmartLinkTests.iPhone]
                func with(_ fields: HTTPFields, _ extra: [(HTTPField.Name, String)]) -> HTTPFields {
                    var fields = fields
                    for (name, value) in extra { fields[name] = value }
                    return fields
                }
                // Counted: each under the first cause that explains it.
                for (host, path, headers) in [
                    ("go.example.com", "/summer", iPhone),
                    (
                        "go.example.com", "/summer?utm_source=mail",
                        with(iPhone, [(.referer, "https://go.example.com/")])
                    ),
                    ("go.example.com", "/summer", [.userAgent: Self.instagram]),
                    ("go.example.com", "/summer", [:]),
                    ("go.example.com", "/summer", [.userAgent: Self.messagesPreview]),
                    ("links.example.com", "/post/10", with(iPhone, [(.referer, "https://landing.example.com/")])),
                    ("links.example.com", "/reset-password", iPhone),
                    ("xn--bcher-kva.example", "/summer", iPhone),
                ] as [(String, String, HTTPFields)] {
                    try await Self.send(port, host, path, headers)
                }
                // Not counted: no iOS, a host no served file names, a path the file leaves to the web, opted out.
                for (host, path, headers) in [
                    ("go.example.com", "/summer", [.userAgent: SmartLinkTests.desktop]),
                    ("go.example.com", "/summer", [.userAgent: SmartLinkTests.android]),
                    ("landing.example.com", "/summer", iPhone),
                    ("elsewhere.example.net", "/summer", iPhone),
                    ("go.example.com", "/summer", with(iPhone, [(LinkRedirect.secGPC, "1")])),
                    ("go.example.com", "/summer", with(iPhone, [(LinkRedirect.doNotTrack, "1")])),
                    ("links.example.com", "/no/such/path", iPhone),
                ] as [(String, String, HTTPFields)] {
                    try await Self.send(port, host, path, headers)
                }
                let counts = try await Self.counts(world, total: 8)
                #expect(
                    counts == [
                        "go.example.com unknown": 1, "go.example.com same_domain": 1,
                        "go.example.com in_app_browser instagram": 1, "go.example.com scanner": 1,
                        "go.example.com preview": 1, "links.example.com open_in_app_tapped": 1,
                        "links.example.com unknown": 1, "xn--bcher-kva.example idn": 1,
                    ],
                    "\(counts)"
                )
                // Nothing more arrives late.
                try await Task.sleep(for: .milliseconds(1500))
                #expect(try await Self.counts(world, total: 8).values.reduce(0, +) == 8)

                let metrics = try await api.get("/metrics").text
                #expect(
                    metrics.contains(
                        #"deeplinks_universal_links_fell_through_total{cause="same_domain",domain="go.example.com"} 1"#
                    ),
                    "\(metrics.split(separator: "\n").filter { $0.contains("fell_through") })"
                )
                let report = try await api.get("/v1/universal-links/health", headers: SmartLinkTests.admin)
                #expect(report.status == .ok)
                let rows = try #require(report.object["rows"] as? [[String: Any]])
                #expect(rows.count == 8 && rows.allSatisfy { $0["requests"] as? Int == 1 }, "\(report.text)")
                let csv = try await api.get("/v1/universal-links/health?format=csv", headers: SmartLinkTests.admin)
                #expect(csv.text.contains("go.example.com,in_app_browser,instagram,1\r\n"), "\(csv.text)")
                let refused = try await api.get("/v1/universal-links/health?code=x", headers: SmartLinkTests.admin)
                #expect(refused.status == .badRequest && refused.object["parameter"] as? String == "code")
                #expect(try await api.get("/v1/universal-links/health").status == .unauthorized)
                // `?d=1` names the domain's week.
                let decisions = try await Self.send(port, "go.example.com", "/summer?d=1", [:])
                #expect(
                    decisions.contains("in the last 7 days, 5 request(s) from iOS reached go.example.com"),
                    "\(decisions)"
                )
            }
        }
    }
}

extension UniversalLinkHealthTests {
    /// Two domains: the app's and the link domain.
    static func twoDomains(_ settings: inout ServerSettings) {
        configure(&settings)
        settings.smartLinks.otherLinkDomains = []
    }

    /// A stand-in for Apple's CDN: each domain's copy as the test sets it (404 with Apple's failure header else).
    final class CDNStandIn: Sendable {
        let copies = Mutex<[String: String]>([:])

        func serve<T: Sendable>(_ body: @Sendable (_ url: String) async throws -> T) async throws -> T {
            let router = Router()
            router.get("/a/v1/:domain") { _, context -> Response in
                let domain = try context.parameters.require("domain")
                guard let copy = self.copies.withLock({ $0[domain] }) else {
                    return Response(status: .notFound, headers: [HTTPField.Name("Apple-Failure-Reason")!: "Not found"])
                }
                return Response(
                    status: .ok,
                    headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: copy))
                )
            }
            let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
            return try await app.test(.live) { client in
                try await body("http://127.0.0.1:\(try #require(client.port))/a/v1/")
            }
        }
    }

    /// Apple's CDN holds another copy than the one served: requests its copy does not give the app are counted as
    /// `apple_cdn_differs`, and after ten minutes one webhook says so, once, whichever server checks; the same copy
    /// again ends it.
    @Test(arguments: TestDatabase.allCases)
    func aDifferingCDNCopyIsNamedAndAnnouncedOnce(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind, external: false) { world in
            let cdn = CDNStandIn()
            var served = ServerSettings()
            Self.twoDomains(&served)
            let files = try AssociationFiles(app: served.app, links: served.smartLinks)
            let linkFile = String(decoding: try #require(files.linkDomainAssociation).file.body, as: UTF8.self)
            // The app's domain: the same copy; the link domain: an old copy that claims nothing.
            cdn.copies.withLock {
                $0["links.example.com"] = String(decoding: files.appleAppSiteAssociation.body, as: UTF8.self)
                $0["go.example.com"] = #"{"applinks":{"details":[]}}"#
            }
            _ = try await Operators(database: world.database, clock: world.clock.wallClock).create(
                email: "viewer@example.com",
                password: ConsoleTests.password,
                role: .viewer,
                hasher: world.settings().passwordReset.hasher
            )
            try await cdn.serve { url in
                let configure: (inout ServerSettings) -> Void = { settings in
                    Self.twoDomains(&settings)
                    settings.appleCDNURL = url
                    settings.appleCDNCheckMinutes = 1
                    settings.webhooks = ["http://127.0.0.1:9/hooks"]
                    settings.hookSecrets = WebhookTests.secrets
                }
                @Sendable func state() async throws -> [String: Int64?] {
                    var found: [String: Int64?] = [:]
                    for row in try await world.sql("SELECT domain, differs_since FROM association_cdn_checks") {
                        found[try row.decode(column: "domain", as: String.self)] = try row.decode(
                            column: "differs_since",
                            as: Int64?.self
                        )
                    }
                    return found
                }
                @Sendable func notices() async throws -> Int {
                    try await world.sql(
                        "SELECT COUNT(*) AS n FROM webhook_outbox WHERE event_type = 'association.cdn_differs'"
                    ).first?.decode(column: "n", as: Int.self) ?? -1
                }
                @Sendable func waitFor(_ what: String, _ done: () async throws -> Bool) async throws {
                    for _ in 0..<150 {
                        if try await done() { return }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    Issue.record("never: \(what)")
                }
                try await world.serve(configure) { api in
                    _ = try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin)
                    let port = try #require(api.client.port)
                    try await waitFor("both domains compared") { try await state().count == 2 }
                    let compared = try await state()
                    #expect(compared["links.example.com"] == .some(nil), "the same copy: \(compared)")
                    #expect(compared["go.example.com"] != .some(nil), "another copy: \(compared)")
                    try await Self.send(port, "go.example.com", "/summer", [.userAgent: SmartLinkTests.iPhone])
                    #expect(try await Self.counts(world, total: 1) == ["go.example.com apple_cdn_differs": 1])
                    #expect(try await notices() == 0, "not before ten minutes")
                    world.clock.advance(seconds: 11 * 60)
                    try await waitFor("the notice") { try await notices() == 1 }
                    let (visit, _) = try await ConsoleTests.signIn(api, "viewer@example.com")
                    let page = try await api.get("/console/health", headers: visit.headers)
                    #expect(page.status == .ok)
                    for part in [
                        #"<th scope="row"><code>apple_cdn_differs</code></th><td class="number">1</td>"#,
                        "<tr><th scope=\"row\">go.example.com</th>", "differs since 20",
                        #"id="export-health" href="/console/health.csv?from="#,
                        "<dt><code>open_in_app_tapped</code></dt>",
                    ] {
                        #expect(page.text.contains(part), "\(part)")
                    }
                    let csv = try await api.get("/console/health.csv", headers: visit.headers)
                    #expect(
                        csv.text == "domain,cause,detail,requests\r\ngo.example.com,apple_cdn_differs,,1\r\n",
                        "\(csv.text)"
                    )
                    #expect(
                        try await api.get("/console/health?from=2026-13-01", headers: visit.headers).status
                            == .badRequest
                    )
                }
                // Another server on the database (a replica, a restart): the stretch is the same, no second notice.
                world.clock.advance(seconds: 2 * 60)
                try await world.serve(configure) { api in
                    try await waitFor("compared again") {
                        try await world.sql(
                            "SELECT checked_at FROM association_cdn_checks WHERE domain = 'go.example.com'"
                        ).first?.decode(column: "checked_at", as: Int64.self) == world.clock.wallClock.milliseconds()
                    }
                    #expect(try await notices() == 1)
                    // The CDN follows: the stretch ends, and the requests are no longer the CDN's.
                    cdn.copies.withLock { $0["go.example.com"] = linkFile }
                    world.clock.advance(seconds: 2 * 60)
                    try await waitFor("the same copy") { try await state()["go.example.com"] == .some(nil) }
                    let port = try #require(api.client.port)
                    try await Self.send(port, "go.example.com", "/summer", [.userAgent: SmartLinkTests.iPhone])
                    let counts = try await Self.counts(world, total: 2)
                    #expect(
                        counts == ["go.example.com apple_cdn_differs": 1, "go.example.com unknown": 1],
                        "\(counts)"
                    )
                }
            }
        }
    }
}
