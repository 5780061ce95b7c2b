import DeepLinks
import DeepLinksTesting
import DemoAppRoutes
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The delivery simulator driving the demo app's real route table and navigation: each link through the
/// inbox, `DemoRoute.table`, `navigationTarget` and a ``NavigationPlan``, in every cell and knob.
@Suite struct DemoAppDeliveryTests {
    static let route: DeliverySimulator.Router = { url in
        guard case .success(let match) = DemoRoute.table.match(url) else { return nil }
        return AnyScreen.erase(match.destination.navigationTarget)
    }

    /// The demo app's links of a scenario's kind (the simulator's URL shapes on its scheme and host).
    static func urls(_ scenario: DeliveryScenario) -> [String] {
        DeliverySimulator(scenario).urls(
            customScheme: DeliverySimulator.urlShapes.map { "demoapp://" + $0 },
            universalLinks: DeliverySimulator.urlShapes.map { "https://links.example.com/" + $0 }
        )
    }

    @Test func theSimulatorsLinksReachTheirDemoScreensWithTheirParameters() {
        let expected = [
            NavigationTarget(tab: "posts", path: [DemoScreen.post(id: 10)]),
            NavigationTarget(tab: "search", path: [DemoScreen.search(query: "café 😀", tags: [], page: 1)]),
            NavigationTarget(tab: "posts", path: [DemoScreen.post(id: 12)]),
        ].map(AnyScreen.erase)
        for base in ["demoapp://", "https://links.example.com/"] {
            #expect(DeliverySimulator.urlShapes.map { Self.route(base + $0) } == expected)
        }
    }

    @Test func everyCellAndKnobEndsOnTheLastLinksScreen() {
        let grid = DeliveryScenario.grid(seed: 7).filter { !$0.isKnownLimit }
        var failures = 0
        for scenario in grid {
            let outcome = DeliverySimulator(scenario).run(.library, urls: Self.urls(scenario), route: Self.route)
            if !outcome.violations.isEmpty {
                failures += 1
                if failures <= 5 { Issue.record("\(scenario): \(outcome.violations)") }
            }
            if let last = outcome.handled.last {
                #expect(outcome.navigation.isShowing(Self.route(last)!))
            }
        }
        print(
            "delivery simulator, demo app: \(grid.count) scenarios (grid seed 7) through DemoRoute.table, \(failures) with a violation"
        )
        #expect(failures == 0)
    }

    /// The same sweep through the shipped `LinkCoordinator` (the demo table, a test clock), with the knobs only
    /// it sees: a twin arriving late, a sign-in the links wait for, an asynchronous resolution, and the link
    /// opened again after a trip to the background, and a coordinator per window (the link must land in the window
    /// iOS handed it to).
    @Test func theShippedCoordinatorHandlesEveryCellAndKnobOnceInOrderAndNeverEarly() async {
        let knobs: [DeliverySimulator.CoordinatorKnobs] = [
            .init(),
            .init(lateTwin: .milliseconds(30)),
            .init(lateTwin: .milliseconds(1_500)),
            .init(signedInAfter: 2, resolves: true),
            .init(resolves: true, repeatAfterBackground: true),
            .init(coordinatorPerScene: true),
            .init(lateTwin: .milliseconds(30), signedInAfter: 1, coordinatorPerScene: true),
        ]
        let grid = DeliveryScenario.grid(seed: 7).filter { !$0.isKnownLimit }
        var runs = 0
        var failures = 0
        for (position, scenario) in grid.enumerated() {
            let knob = knobs[position % knobs.count]
            guard knob.isValid(for: scenario) else { continue }
            runs += 1
            let outcome = await DeliverySimulator(scenario).run(
                coordinatorWith: DemoRoute.table,
                urls: Self.urls(scenario),
                knobs: knob,
                route: Self.route
            )
            if !outcome.violations.isEmpty {
                failures += 1
                if failures <= 5 { Issue.record("\(scenario) \(knob): \(outcome.violations)") }
            }
        }
        print(
            "delivery simulator, shipped coordinator: \(runs) runs of \(grid.count) scenarios, \(failures) with a violation"
        )
        #expect(runs > grid.count / 2)
        #expect(failures == 0)
    }

    @Test func aTwinLaterThanTheInboxsWindowIsASecondTap() async {
        // The oracle sees it: the knob's bound is the inbox's window, not a blind spot. At a cold start the app's
        // scene delegate reads the link from the connection options; SwiftUI's publish 2.5 s later is past the
        // 2 s duplicate window, so the inbox takes it for a second tap.
        let scenario = DeliveryScenario(lifecycle: .swiftUIWithAdaptor, state: .notRunning, kind: .customScheme)
        let knob = DeliverySimulator.CoordinatorKnobs(lateTwin: .milliseconds(2_500))
        #expect(!knob.isValid(for: scenario))
        let outcome = await DeliverySimulator(scenario).run(
            coordinatorWith: DemoRoute.table,
            urls: Self.urls(scenario),
            knobs: knob,
            route: Self.route
        )
        #expect(outcome.violations.contains { $0.hasPrefix("duplicated:") })
        let inside = await DeliverySimulator(scenario).run(
            coordinatorWith: DemoRoute.table,
            urls: Self.urls(scenario),
            knobs: .init(lateTwin: .milliseconds(1_700)),
            route: Self.route
        )
        #expect(inside.violations.isEmpty && inside.handled.count == 1)
    }

    @Test func aResetLinkFromAMailOpensTheResetScreenOverAnyTab() {
        let link =
            "https://links.example.com/reset-password#token=\(String(repeating: "A", count: 43))&email=user%2Btag%40example.com"
        for cell in DeliveryScenario.allCells where cell.kind == .universalLink {
            let outcome = DeliverySimulator(cell).run(.library, urls: [link], route: Self.route)
            #expect(outcome.violations.isEmpty && outcome.handled == [link])
            let token = Sensitive(String(repeating: "A", count: 43))
            let screen = DemoScreen.resetPassword(token: token, email: Sensitive("user+tag@example.com"))
            #expect(outcome.navigation.presented == [AnyScreen(screen)])
            #expect(!"\(outcome.navigation)".contains("AAAA"), "the token is redacted in the state's description")
        }
        guard case .success(let match) = DemoRoute.table.match(link) else { Issue.record("no match"); return }
        #expect(
            match.destination == .resetPassword(token: String(repeating: "A", count: 43), email: "user+tag@example.com")
        )
        #expect(match.destination.requirements.isEmpty)
        #expect(!"\(match.destination.navigationTarget)".contains("AAAA"), "the token never printed")
    }

    /// A second reset mail opened while the reset sheet shows the first: the sheet is presented again, with the
    /// new token (the server replaced the first, so keeping it would end on "expired").
    @Test func aSecondResetLinkRepresentsTheScreenWithTheNewToken() throws {
        let first = try DemoRoute.table.destination(
            for: "demoapp://reset-password?token=" + String(repeating: "A", count: 43)
        )
        let second = try DemoRoute.table.destination(
            for: "demoapp://reset-password?token=" + String(repeating: "B", count: 43)
        )
        var state = NavigationState<DemoScreen>(selectedTab: DemoRoute.Tab.search)
        state = NavigationPlan(from: state, to: first.navigationTarget).applied(to: state)
        let plan = NavigationPlan(from: state, to: second.navigationTarget)
        #expect(
            plan.steps == [
                .dismissAll, .present(.resetPassword(token: Sensitive(String(repeating: "B", count: 43)), email: nil)),
            ]
        )
        let after = plan.applied(to: state)
        guard case .resetPassword(let token, _) = after.presented.last else {
            Issue.record("no reset screen")
            return
        }
        #expect(token.value == String(repeating: "B", count: 43))
        #expect(
            NavigationPlan(from: after, to: second.navigationTarget).steps.isEmpty,
            "the same link again: nothing to do"
        )
    }

    @Test func everyPushedScreenCarriesItsDestinationsParameters() {
        let id = UUID(uuidString: "6F1C1D5E-0000-4000-8000-000000000001")!
        let cases: [(DemoRoute, [DemoScreen])] = [
            (.home, []), (.post(id: 3), [.post(id: 3)]), (.comments(postID: 3), [.post(id: 3), .comments(postID: 3)]),
            (
                .search(query: "a+b c@d", tags: ["x", "y"], page: 2),
                [.search(query: "a+b c@d", tags: ["x", "y"], page: 2)]
            ),
            (.profile(id: id), [.profile(id: id)]), (.file(path: "a/b c.txt"), [.file(path: "a/b c.txt")]),
            (.settings(tab: .privacy), [.settings(tab: .privacy)]),
        ]
        for (destination, path) in cases {
            #expect(destination.navigationTarget.path == path, "\(destination)")
        }
    }
}
