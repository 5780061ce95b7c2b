import AppSiteAssociation
import DeepLinks
import DeepLinksJSON
@testable import DeepLinksServer
import DeepLinksTestSupport
import Foundation
import Testing

/// A configuration that is not the demo app's (`Server/Tests/Support/other-app`: scheme `acme`, two domains, the
/// reset route `/account/reset` with `code` and `mail`): every link the server prints comes from its manifest.
@Suite struct OtherAppTests {
    static let folder = AppConfiguration.examples.deletingLastPathComponent().appendingPathComponent(
        "Tests/Support/other-app"
    )
    static let address = "ada+shop@example.com"
    static let password = ResetTokenTests.password

    static func load() throws -> AppConfiguration {
        try AppConfiguration.load(path: folder.appendingPathComponent("app.json").path)
    }

    @Test(arguments: TestDatabase.allCases)
    func theWholeJourneyRunsOnTheConfiguredRoute(_ kind: TestDatabase) async throws {
        let app = try Self.load()
        // The app's own parser: a table built from the manifest matches exactly as the app's route table.
        let appRoutes = try RouteTable<ManifestDestination>(manifest: try #require(app.routes))
        try await ResetWorld.with(kind) { world in
            try await world.serve({ $0.app = app }) { api in
                try await api.signUp(Self.address, Self.password)
                #expect(try await api.requestReset(Self.address).status == .accepted)
                let message = try #require(try await world.mail.waitFor(1).first)
                #expect(message.subject == "Reset your Acme Shop password")
                let link = try #require(
                    message.text.split(separator: "\n").first { $0.hasPrefix("https://") }.map(String.init)
                )
                #expect(link.hasPrefix("https://shop.acme-corp.com/account/reset#code="), "\(link)")
                for demo in ["reset-password", "token=", "acme:", "demoapp", "links.example.com"] {
                    #expect(!message.text.contains(demo) && !message.html.contains(demo), "the mail holds '\(demo)'")
                }

                // Mail to screen: the app routes the link to its reset screen, every parameter intact.
                let match = try appRoutes.match(link).get()
                #expect(match.destination.route == "account-reset")
                #expect(match.destination.parameters["mail"] == [Self.address])
                let code = try #require(match.destination.parameters["code"]?.first)

                // The association file the server serves opens the app for the printed link, on every domain.
                let served = try await api.get("/.well-known/apple-app-site-association")
                let matcher = AASAMatcher(document: try JSONValue.parse(Data(buffer: served.body)))
                for domain in app.domains {
                    let url = link.replacingOccurrences(of: "shop.acme-corp.com", with: domain)
                    #expect(matcher.decide(appID: app.appID, url: url).verdict == .match, "\(domain)")
                }

                // Without the app: the web form lives at the route's path and reads the configured names.
                let page = try await api.get("/account/reset")
                #expect(page.status == .ok)
                let html = String(buffer: page.body)
                #expect(html.contains(#"data-token-parameter="code" data-email-parameter="mail""#))
                #expect(
                    html.contains(#"app-argument=https://shop.acme-corp.com/account/reset">"#),
                    "the Smart App Banner opens the app"
                )
                #expect(!html.contains(#"id="open-app""#), "no same-domain button that cannot open the app")
                #expect(try await api.get("/reset-password").status == .notFound)
                #expect(String(buffer: try await api.get("/robots.txt").body).contains("Disallow: /account/reset\n"))

                #expect(try await api.verify(code, email: Self.address).status == .ok)
                #expect(
                    try await api.confirm(code, "a new passphrase for the shop", email: Self.address).status
                        == .noContent
                )
                #expect(try await api.signIn(Self.address, "a new passphrase for the shop") != nil)
                let notice = try #require(try await world.mail.waitFor(2).last)
                #expect(
                    notice.text.contains("https://shop.acme-corp.com/account/reset\n")
                        || notice.text.hasSuffix("https://shop.acme-corp.com/account/reset")
                )
            }
        }
    }

    @Test func theOptInCustomSchemeLinkUsesTheAppsSchemeAndNames() async throws {
        var app = try Self.load()
        app.passwordReset?.customSchemeRoute = "account-reset-in-app"
        let appRoutes = try RouteTable<ManifestDestination>(manifest: try #require(app.routes))
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve({ $0.app = app }) { api in
                try await api.signUp(Self.address, Self.password)
                try await api.requestReset(Self.address)
                let message = try #require(try await world.mail.waitFor(1).first)
                let link = try #require(
                    message.text.split(separator: "\n").first { $0.hasPrefix("acme:") }.map(String.init)
                )
                #expect(link.hasPrefix("acme://account/reset?code="), "\(link)")
                #expect(try appRoutes.match(link).get().destination.parameters["mail"] == [Self.address])
            }
        }
    }

    /// A one-segment reset path is the server's: no short code may take it. The other app's is two segments.
    @Test func aOneSegmentResetPathIsReservedFromShortCodes() throws {
        let demo = try SmartLinkValidator(apps: [.demo], allowedHosts: [])
        #expect(demo.problems(SmartLink(code: "reset-password", route: "/")).contains { $0.hasPrefix("code:") })
        let other = try SmartLinkValidator(apps: [try Self.load()], allowedHosts: [])
        #expect(other.problems(SmartLink(code: "reset-password", route: "/")).isEmpty)
    }

    /// Every way a reset route can leak its token or fail to open the app stops the start, with its reason.
    @Test(arguments: [
        (
            "route", #""route": "no-such-route""#,
            "app.passwordReset.route: 'no-such-route' is not a route of the manifest (home, order, account-reset, account-reset-in-app)"
        ),
        (
            "query", #""route": "account-reset-in-app", "tokenParameter": "code""#,
            "app.passwordReset.route: 'account-reset-in-app' does not accept universal links"
        ),
        (
            "parameter", #""route": "account-reset", "tokenParameter": "token""#,
            "app.passwordReset.tokenParameter: route 'account-reset' has no parameter 'token'"
        ),
        (
            "path", #""route": "order", "tokenParameter": "number""#,
            "app.passwordReset.route: 'order' also accepts custom-scheme links"
        ),
        (
            "scheme", #""route": "account-reset", "tokenParameter": "code", "customSchemeRoute": "order""#,
            "app.passwordReset.tokenParameter: route 'order' has no parameter 'code'"
        ),
    ])
    func aResetRouteThatLeaksOrDoesNotExistStopsTheStart(_ name: String, _ section: String, _ expected: String) throws {
        let problems = try Self.problems(passwordReset: "{\(section)}")
        #expect(problems.contains { $0.hasPrefix(expected) }, "\(name): \(problems)")
    }

    @Test func aTokenInTheQueryOrNotSensitiveIsRefused() throws {
        let problems = try Self.problems(
            passwordReset: #"{"route": "account-reset", "tokenParameter": "code", "emailParameter": "mail"}"#
        ) { routes in
            var reset = routes.routes[2]
            reset.parameters[0].location = .query
            reset.parameters[1].isSensitive = false
            routes.routes[2] = reset
        }
        #expect(
            problems.contains {
                $0.hasPrefix(
                    "app.passwordReset.tokenParameter: 'code' of route 'account-reset' is in the query: a universal link carries secrets in the fragment"
                )
            },
            "\(problems)"
        )
        #expect(
            problems.contains {
                $0.hasPrefix("app.passwordReset.emailParameter: 'mail' of route 'account-reset' must be sensitive")
            },
            "\(problems)"
        )
    }

    @Test func aResetRouteTheAssociationFileExcludesIsRefused() throws {
        let problems = try Self.problems(
            passwordReset: #"{"route": "account-reset", "tokenParameter": "code", "emailParameter": "mail"}"#,
            excluded: ["/account/*"]
        )
        #expect(problems.count == 2, "one per domain: \(problems)")
        #expect(
            problems.first?.hasPrefix(
                "passwordReset.route: the association file does not claim https://shop.acme-corp.com/account/reset for the app"
            ) == true,
            "\(problems)"
        )
    }

    @Test func aTokenShorterThanTheServersIsRefused() throws {
        let problems = try Self.problems(passwordReset: #"{"route": "account-reset", "tokenParameter": "code"}"#) {
            routes in
            routes.routes[2].parameters[0].minLength = 16
            routes.routes[2].parameters[0].maxLength = 32
        }
        #expect(
            problems.contains {
                $0.hasPrefix(
                    "app.passwordReset: a reset link cannot be printed from the manifest: route 'account-reset': parameter 'code' is longer than 32 characters"
                )
            },
            "\(problems)"
        )
    }

    /// The other app's configuration with its `passwordReset` section, excluded paths and manifest replaced; the
    /// problems its load reports.
    static func problems(
        passwordReset: String,
        excluded: [String] = ["/account/settings"],
        routes edit: (inout RouteManifest) -> Void = { _ in }
    ) throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("other-app-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var manifest = try JSONDecoder().decode(
            RouteManifest.self,
            from: Data(contentsOf: Self.folder.appendingPathComponent("routes.json"))
        )
        edit(&manifest)
        try JSONEncoder().encode(manifest).write(to: folder.appendingPathComponent("routes.json"))
        var file =
            try JSONSerialization.jsonObject(with: Data(contentsOf: Self.folder.appendingPathComponent("app.json")))
            as! [String: Any]
        var app = file["app"] as! [String: Any]
        app["passwordReset"] = try JSONSerialization.jsonObject(with: Data(passwordReset.utf8))
        app["excludedPaths"] = excluded
        file["app"] = app
        let path = folder.appendingPathComponent("app.json")
        try JSONSerialization.data(withJSONObject: file).write(to: path)
        do {
            _ = try AppConfiguration.load(path: path.path)
            return []
        } catch {
            return error.problems
        }
    }
}
