@testable import DeepLinks
import DeepLinksTesting
import DemoAppRoutes
import Foundation
import Testing

@Suite struct RouteTablePrintingTests {
    static let token = "AbCdEfGhIjKlMnOpQrStUvWxYz012345-_"
    let table = DemoRoute.table

    @Test(arguments: [
        (DemoRoute.post(id: 10), "https://links.example.com/post/10", "demoapp://post/10"),
        (.home, "https://links.example.com/", "demoapp://"),
        (.newPost, "https://links.example.com/post/new", "demoapp://post/new"),
        (.comments(postID: 3), "https://links.example.com/post/3/comments", "demoapp://post/3/comments"),
        (
            .search(query: "a b+c", tags: ["x", "y"], page: 2),
            "https://links.example.com/search?q=a%20b%2Bc&tag=x&tag=y&page=2",
            "demoapp://search?q=a%20b%2Bc&tag=x&tag=y&page=2"
        ),
        (
            .file(path: "docs/résumé.pdf"), "https://links.example.com/files/docs/r%C3%A9sum%C3%A9.pdf",
            "demoapp://files/docs/r%C3%A9sum%C3%A9.pdf"
        ),
        (.settings(tab: .privacy), "https://links.example.com/settings/privacy", "demoapp://settings/privacy"),
    ])
    func destinationsPrintInBothForms(_ destination: DemoRoute, _ universal: String, _ scheme: String) throws {
        #expect(try table.url(for: destination) == universal)
        #expect(try table.url(for: destination, as: .customScheme()) == scheme)
        #expect(try table.destination(for: universal) == destination)
        #expect(try table.destination(for: scheme) == destination)
    }

    @Test func theResetLinkCarriesTheTokenInTheFragmentOrTheQuery() throws {
        let reset = DemoRoute.resetPassword(token: Self.token, email: "user+tag@example.com")
        #expect(
            try table.url(for: reset)
                == "https://links.example.com/reset-password#token=\(Self.token)&email=user%2Btag%40example.com"
        )
        #expect(
            try table.url(for: reset, as: .customScheme())
                == "demoapp://reset-password?token=\(Self.token)&email=user%2Btag%40example.com"
        )
        #expect(try table.destination(for: try table.url(for: reset)) == reset)
        #expect(try table.destination(for: try table.url(for: reset, as: .customScheme())) == reset)
    }

    @Test func aUniversalOnlyRouteDoesNotPrintAsACustomScheme() throws {
        let profile = DemoRoute.profile(id: UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!)
        #expect(try table.url(for: profile) == "https://links.example.com/u/6ba7b810-9dad-11d1-80b4-00c04fd430c8")
        #expect(throws: PrintError.self) { try table.url(for: profile, as: .customScheme()) }
    }

    @Test(arguments: [
        (
            DemoRoute.resetPassword(token: "short", email: nil),
            "route 'reset-password': parameter 'token' is shorter than 32 characters"
        ),
        (
            .resetPassword(token: String(repeating: "a", count: 32) + "!", email: nil),
            "route 'reset-password': parameter 'token' has characters outside base64url"
        ),
        (.search(query: "", tags: [], page: 1), "route 'search': parameter 'q' is shorter than 1 characters"),
        (.file(path: "a//b"), "route 'file': catch-all 'path' has an empty segment"),
        (.file(path: ""), "route 'file': catch-all 'path' has an empty segment"),
    ])
    func valuesThatBreakTheirConstraintsAreNotPrinted(_ destination: DemoRoute, _ reason: String) {
        do {
            let url = try table.url(for: destination)
            Issue.record("printed \(url)")
        } catch {
            #expect(error.reason == reason)
        }
    }

    @Test func theRoundTripCheckCatchesParseAndPrintDrift() throws {
        enum Bad: Sendable, Equatable { case value(String) }
        // parse lower-cases what print does not: the check catches the drift.
        let table = try RouteTable<Bad>(
            schemes: ["app"],
            routes: [
                Route(
                    "v",
                    "/v/:x",
                    parse: { p in try .value((p("x") as String).lowercased()) },
                    print: { if case .value(let x) = $0 { ["x": x] } else { nil } }
                )
            ]
        )
        #expect(RouteTableCheck.roundTripFailures(table, [.value("abc")]).isEmpty)
        #expect(
            RouteTableCheck.roundTripFailures(table, [.value("ABC")]) == [
                "destination #0 printed as app://v/ABC parses back to another destination, by route 'v' (its parse and print disagree, or it is shadowed)"
            ]
        )
    }

    @Test func aNamedDestinationIsPrintedByItsRouteAndFallsBackWhenItRefuses() throws {
        // Every demo destination prints through the route it names, in both forms, as the linear path does.
        struct Unnamed: Sendable { let route: DemoRoute }
        let unnamed = try RouteTable<Unnamed>(
            schemes: [DemoRoute.scheme],
            hosts: [DemoRoute.host],
            routes: DemoRoute.routes.map { route in
                Route(
                    route.name,
                    route.pattern.description,
                    parameters: route.parameters,
                    sources: route.sources,
                    parse: { Unnamed(route: try route.parse($0)) },
                    print: { route.print($0.route) }
                )
            }
        )
        let reset = DemoRoute.resetPassword(token: Self.token, email: "user+tag@example.com")
        for destination in [
            DemoRoute.home, .post(id: 7), .newPost, .comments(postID: 3), reset,
            .search(query: "café", tags: ["a"], page: 2), .settings(tab: .privacy),
        ] {
            for form in [LinkForm.universalLink(), .customScheme()] {
                let named = try? DemoRoute.table.url(for: destination, as: form)
                #expect(
                    named == (try? unnamed.url(for: Unnamed(route: destination), as: form)),
                    "\(destination) as \(form)"
                )
                if case .universalLink = form { #expect(named != nil) }
            }
        }
        // A name whose route does not print the destination: every route is asked.
        struct Misnamed: Sendable, RouteNamedDestination { func routeName(for form: LinkForm) -> String? { "b" } }
        let table = try RouteTable<Misnamed>(
            schemes: ["app"],
            routes: [
                Route("a", "/a", parse: { _ in Misnamed() }, print: { _ in [:] }),
                Route("b", "/b", parse: { _ in Misnamed() }, print: { _ in nil }),
            ]
        )
        #expect(try table.url(for: Misnamed(), as: .customScheme()) == "app://a")
    }

    @Test func aParameterInTheFirstSegmentPrintsInTheTripleSlashForm() throws {
        enum User: Sendable, Equatable { case named(String) }
        let table = try RouteTable<User>(
            schemes: ["app"],
            routes: [
                Route(
                    "user",
                    "/:name",
                    parse: { p in try .named(p("name")) },
                    print: { if case .named(let n) = $0 { ["name": n] } else { nil } }
                )
            ]
        )
        #expect(try table.url(for: .named("Ada"), as: .customScheme()) == "app:///Ada")
        #expect(try table.destination(for: "app:///Ada") == .named("Ada"))
    }

    @Test func theManifestRoundTripsThroughJSONAndMatchesLikeTheTypedTable() throws {
        let data = try JSONEncoder().encode(table.manifest)
        let manifest = try JSONDecoder().decode(RouteManifest.self, from: data)
        #expect(manifest == table.manifest)
        let loaded = try RouteTable<ManifestDestination>(manifest: manifest)
        for url in RouteTableTests.valid.map(\.url) + RouteTableTests.invalid.map(\.url) {
            let typed = table.match(url)
            let untyped = loaded.match(url)
            switch (typed, untyped) {
            case (.success(let a), .success(let b)):
                #expect(a.routeName == b.routeName && a.parameters == b.parameters, "\(url)")
            case (.failure(let a), .failure(let b)):
                #expect(a.code == b.code, "\(url)")
            case (.failure(let a), .success(let b)) where a.code == .invalidParameter && b.routeName == "settings":
                continue  // custom kinds are checked by their Swift type, which a manifest does not carry
            default:
                Issue.record("typed and manifest tables disagree on \(url): \(typed) vs \(untyped)")
            }
        }
        let printed = try loaded.url(
            for: ManifestDestination(route: "reset-password-scheme", parameters: ["token": [Self.token]]),
            as: .customScheme()
        )
        #expect(printed == "demoapp://reset-password?token=\(Self.token)")
    }

    @Test func aManifestWithAnUnknownVersionOrSourceIsRefused() throws {
        var manifest = table.manifest
        manifest.version = 2
        #expect(throws: RouteTableError.self) { try RouteTable<ManifestDestination>(manifest: manifest) }
        manifest = table.manifest
        manifest.routes[0].sources = ["carrierPigeon"]
        #expect(throws: RouteTableError.self) { try RouteTable<ManifestDestination>(manifest: manifest) }
    }
}
