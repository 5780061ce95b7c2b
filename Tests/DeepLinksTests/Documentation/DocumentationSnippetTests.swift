// The testing snippets of the documentation, word for word (`make apple-typecheck` checks that every Swift block of
// the docs that imports Testing is here), run on the documentation's example app (DocExampleApp.swift). Below
// them, the proof that they can fail: the same runs with a route that takes nothing, or links the table rejects.
import DeepLinks
import DeepLinksTesting
import Testing

// MARK: - From the documentation

// WiringLifeCycles.md, "Prove it in your tests"
import DeepLinksTesting
import Testing

@Suite struct LinkDeliveryTests {
    static let token = String(repeating: "A", count: 43)
    static let customSchemeLinks = ["yourapp://post/1", "yourapp:///post/2", "yourapp://reset-password?token=\(token)"]
    static let universalLinks = [
        "https://example.com/post/1", "https://example.com/post/2/",
        "https://example.com/reset-password#token=\(token)",
    ]

    /// Every life cycle, state and knob iOS produces: each link reaches its screen once, in order, never before the
    /// app is ready, through your table.
    @Test func everyLinkReachesItsScreenOnce() async {
        for scenario in DeliveryScenario.grid() where !scenario.isKnownLimit {
            let simulator = DeliverySimulator(scenario)
            let outcome = await simulator.run(
                coordinatorWith: AppRoute.table,
                urls: simulator.urls(customScheme: Self.customSchemeLinks, universalLinks: Self.universalLinks)
            ) { url in (try? AppRoute.table.destination(for: url))?.target }
            #expect(outcome.violations.isEmpty, "\(scenario)")
        }
    }
}

// DeepLinksTesting.md
import DeepLinksTesting
import Testing

@Suite struct AppRouteTableTests {
    @Test func everyDestinationPrintsAndParsesBack() {
        let token = String(repeating: "A", count: 43)
        #expect(
            RouteTableCheck.roundTripFailures(AppRoute.table, [.post(id: 1), .resetPassword(token: token)]).isEmpty
        )
    }
}

// DeepLinksTesting.md, "Your coordinator, in every cell"
import DeepLinksTesting
import Testing

@Suite struct SignInDeliveryTests {
    static let links = ["yourapp://post/1", "yourapp://post/2", "yourapp://post/3"]
    static let universalLinks = [
        "https://example.com/post/1", "https://example.com/post/2", "https://example.com/post/3",
    ]

    @Test func linksBehindSignInWaitAndArriveOnce() async {
        let knobs = DeliverySimulator.CoordinatorKnobs(signedInAfter: 2, resolves: true)
        for scenario in DeliveryScenario.allCells where knobs.isValid(for: scenario) {
            let simulator = DeliverySimulator(scenario)
            let outcome = await simulator.run(
                coordinatorWith: AppRoute.table,
                urls: simulator.urls(customScheme: Self.links, universalLinks: Self.universalLinks),
                knobs: knobs
            ) { url in (try? AppRoute.table.destination(for: url))?.target }
            #expect(outcome.violations.isEmpty, "\(scenario)")
        }
    }
}

// MARK: - The snippets can fail

@Suite struct DocumentationSnippetsCanFail {
    /// The documented run with a route that takes nothing (`{ _ in nil }`): a violation in every cell that handles a
    /// link, never a pass by skipping the screen check.
    @Test func aRouteThatTakesNothingFailsEveryCell() async {
        var cells = 0
        for scenario in DeliveryScenario.allCells where !scenario.isKnownLimit {
            let simulator = DeliverySimulator(scenario)
            let links = simulator.urls(
                customScheme: LinkDeliveryTests.customSchemeLinks,
                universalLinks: LinkDeliveryTests.universalLinks
            )
            let outcome = await simulator.run(coordinatorWith: AppRoute.table, urls: links) {
                (_: String) -> NavigationTarget<Screen>? in nil
            }
            let library = simulator.run(.library, urls: links) { (_: String) -> NavigationTarget<Screen>? in nil }
            guard !outcome.handled.isEmpty else { continue }
            cells += 1
            #expect(
                outcome.violations.contains { $0.hasPrefix("route returned nil for every handled link") },
                "\(scenario)"
            )
            #expect(
                library.violations.contains { $0.hasPrefix("route returned nil for every handled link") },
                "\(scenario)"
            )
        }
        #expect(cells > 0)
    }

    /// The documented run with links of another app (the demo app's defaults, say): the table rejects them, and every
    /// cell that delivers one fails, naming the link.
    @Test func linksTheTableRejectsFailEveryCell() async {
        var cells = 0
        for scenario in DeliveryScenario.allCells where !scenario.isKnownLimit {
            let simulator = DeliverySimulator(scenario)
            let links = simulator.urls(
                customScheme: ["demoapp://post/10"],
                universalLinks: ["https://links.example.com/post/10"]
            )
            let outcome = await simulator.run(coordinatorWith: AppRoute.table, urls: links) { url in
                (try? AppRoute.table.destination(for: url))?.target
            }
            guard outcome.undelivered.isEmpty else { continue }
            cells += 1
            #expect(outcome.violations.contains { $0.hasPrefix("your table rejects") }, "\(scenario)")
        }
        #expect(cells > 0)
    }

    /// A route given without the app's links: the simulator's defaults are the demo app's, so this is a violation.
    @Test func aRouteWithoutTheAppsLinksFails() {
        let scenario = DeliveryScenario(lifecycle: .sceneDelegate, state: .foreground, kind: .customScheme)
        let outcome = DeliverySimulator(scenario).run(
            .library,
            route: { url in AnyScreen.erase(NavigationTarget(path: [url])) }
        )
        #expect(outcome.violations.contains { $0.hasPrefix("route given without urls") })
    }
}
