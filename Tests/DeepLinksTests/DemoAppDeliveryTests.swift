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
        return match.destination.navigationTarget
    }

    @Test func theSimulatorsLinksReachTheirDemoScreensWithTheirParameters() {
        let expected = [
            NavigationTarget(tab: "posts", path: ["demoapp://post/10"]),
            NavigationTarget(tab: "search", path: ["demoapp://search?q=caf%C3%A9%20%F0%9F%98%80&page=1"]),
            NavigationTarget(tab: "posts", path: ["demoapp://post/12"]),
        ]
        for base in ["demoapp://", "https://links.example.com/"] {
            #expect(DeliverySimulator.urlShapes.map { Self.route(base + $0) } == expected)
        }
    }

    @Test func everyCellAndKnobEndsOnTheLastLinksScreen() {
        let grid = DeliveryScenario.grid(seed: 7).filter { !$0.isKnownLimit }
        var failures = 0
        for scenario in grid {
            let outcome = DeliverySimulator(scenario).run(.library, route: Self.route)
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
            knobs: knob,
            route: Self.route
        )
        #expect(outcome.violations.contains { $0.hasPrefix("duplicated:") })
        let inside = await DeliverySimulator(scenario).run(
            coordinatorWith: DemoRoute.table,
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
            #expect(outcome.navigation.presented == ["reset-password"])
        }
        guard case .success(let match) = DemoRoute.table.match(link) else { Issue.record("no match"); return }
        #expect(
            match.destination == .resetPassword(token: String(repeating: "A", count: 43), email: "user+tag@example.com")
        )
        #expect(match.destination.requirements.isEmpty)
        #expect(
            match.destination.navigationTarget == .over(present: "reset-password"),
            "no token in a screen identifier"
        )
    }

    @Test func everyScreenIdentifierParsesBackToItsDestination() throws {
        let destinations: [DemoRoute] = [
            .home, .post(id: 3), .comments(postID: 3), .search(query: "a+b c@d", tags: ["x", "y"], page: 2),
            .profile(id: UUID(uuidString: "6F1C1D5E-0000-4000-8000-000000000001")!), .file(path: "a/b c.txt"),
            .settings(tab: .privacy),
        ]
        for destination in destinations {
            for screen in destination.navigationTarget.path {
                _ = try DemoRoute.table.destination(for: screen)
            }
            if let last = destination.navigationTarget.path.last {
                #expect(try DemoRoute.table.destination(for: last) == destination)
            }
        }
    }
}
