import DeepLinks
import DeepLinksTesting
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a first-time adopter meets: a link never held in silence, a UI that cannot show a link yet (a sign-in root
/// before the tab bar), the relay the library's delegates talk to, and a route table declared once.
@Suite struct FrontDoorTests {
    // The routes are the documentation's example app's (Documentation/DocExampleApp.swift): `yourapp` and
    // `example.com`, a post, and the reset link in both forms, declared without `print:` closures.

    /// Cases without associated values print by reflection too.
    enum Page: Hashable, Sendable {
        case home
        case settings
    }

    actor Log {
        private(set) var events: [String] = []
        private(set) var delivered: [AppRoute] = []
        func append(_ event: String) { events.append(event) }
        func deliver(_ route: AppRoute) { delivered.append(route) }
    }

    @Test func aRouteTableWithoutPrintClosuresPrintsEveryDestinationAndParsesItBack() throws {
        let token = String(repeating: "A", count: 40)
        #expect(try AppRoute.table.url(for: .post(id: 7)) == "https://example.com/post/7")
        #expect(try AppRoute.table.url(for: .post(id: 7), as: .customScheme()) == "yourapp://post/7")
        #expect(
            try AppRoute.table.url(for: .resetPassword(token: token)) == "https://example.com/reset-password#token="
                + token
        )
        #expect(
            try AppRoute.table.url(for: .resetPassword(token: token), as: .customScheme())
                == "yourapp://reset-password?token=" + token
        )
        let pages = try RouteTable<Page>(
            schemes: ["yourapp"],
            hosts: ["example.com"],
            routes: [Route("home", "/") { _ in .home }, Route("settings", "/settings") { _ in .settings }]
        )
        #expect(try pages.url(for: .settings, as: .customScheme()) == "yourapp://settings")
        #expect(try pages.url(for: .home) == "https://example.com/")
        #expect(RouteTableCheck.roundTripFailures(pages, [.home, .settings]).isEmpty)
        #expect(
            try AppRoute.table.destination(for: "yourapp://reset-password?token=" + token)
                == AppRoute.table.destination(for: "https://example.com/reset-password#token=" + token)
        )
        let failures = RouteTableCheck.roundTripFailures(
            AppRoute.table,
            [.post(id: 7), .post(id: -1), .resetPassword(token: token)]
        )
        #expect(failures.isEmpty)
    }

    @Test func aLinkNeverReleasedIsReportedWithTheCallTheAppNeverMade() async {
        let clock = TestClock()
        let log = Log()
        let coordinator = LinkCoordinator(
            table: AppRoute.table,
            clock: clock,
            log: { event in Task { await log.append(event.description) } }
        ) { _ in }
        coordinator.receive("yourapp://post/1", via: .sceneOpenURLContexts, sourceApplication: nil)
        await coordinator.settle()
        clock.advance(by: .seconds(4))
        await coordinator.settle()
        #expect(await !coordinator.events.contains { if case .held = $0 { true } else { false } }, "not before 5 s")
        clock.advance(by: .seconds(1))
        var held: [String] = []
        for _ in 0..<1_000 {
            await coordinator.settle()
            held = await coordinator.events.map(\.description).filter { $0.hasPrefix("still held") }
            if !held.isEmpty { break }
            await Task.yield()
        }
        #expect(held == ["still held, waiting for setReady(true): post /post/:id id=1"])
        for _ in 0..<1_000 where await !log.events.contains(held[0]) { await Task.yield() }
        #expect(await log.events.contains(held[0]), "the log hears it too")
        clock.advance(by: .seconds(30))
        await coordinator.settle()
        #expect(await coordinator.events.filter { $0.description.hasPrefix("still held") }.count == 1, "once")
    }

    @Test func aLinkWaitingForAConditionNamesTheCondition() async {
        let clock = TestClock()
        let coordinator = LinkCoordinator(
            table: AppRoute.table,
            clock: clock,
            requirements: { _ in ["signedIn"] }
        ) { _ in }
        coordinator.setReady(true)
        coordinator.receive("https://example.com/post/3", via: .onOpenURL, sourceApplication: nil)
        await coordinator.settle()
        clock.advance(by: .seconds(6))
        var held: [String] = []
        for _ in 0..<1_000 where held.isEmpty {
            await coordinator.settle()
            held = await coordinator.events.map(\.description).filter { $0.hasPrefix("still held") }
            await Task.yield()
        }
        #expect(held == [#"still held, waiting for setCondition("signedIn", holds: true): post /post/:id id=3"#])
    }

    /// A UIKit app shows a sign-in root, later replaced by the tab bar: a link delivered meanwhile finds no tab
    /// bar. Its `deliver` throws `notReady`: nothing is reported delivered, the link waits, and the next
    /// `setReady(true)` (the root swapped) delivers it, once, before any later link.
    @Test func aSignInRootHoldsTheLinkUntilTheTabBarIsThereThenDeliversItOnce() async {
        let log = Log()
        let window = Window()
        let coordinator = LinkCoordinator(table: AppRoute.table) { route in
            guard await window.hasTabBar else { throw LinkDeliveryError.notReady("no tab bar: the sign-in root") }
            await log.deliver(route)
        }
        coordinator.setReady(true)
        coordinator.receive("yourapp://post/1", via: .sceneOpenURLContexts, sourceApplication: nil)
        await coordinator.settle()
        coordinator.receive("yourapp://post/2", via: .sceneOpenURLContexts, sourceApplication: nil)
        await coordinator.settle()
        #expect(await log.delivered.isEmpty)
        let before = await coordinator.events.map(\.description)
        #expect(!before.contains { $0.hasPrefix("delivered") })
        #expect(
            before.contains(
                "not carried out yet (no tab bar: the sign-in root), held until setReady(true): post /post/:id id=1"
            )
        )
        await window.showTabBar()
        coordinator.setReady(true)
        await coordinator.settle()
        #expect(await log.delivered == [.post(id: 1), .post(id: 2)])
        coordinator.setReady(true)
        await coordinator.settle()
        #expect(await log.delivered == [.post(id: 1), .post(id: 2)], "delivered once")
        #expect(await coordinator.events.filter { $0.description.hasPrefix("delivered") }.count == 2)
    }

    @Test func aLinkTheUICanNeverShowIsReportedUndeliverable() async {
        actor Reasons {
            var all: [String] = []
            func append(_ reason: String) { all.append(reason) }
        }
        let reasons = Reasons()
        let coordinator = LinkCoordinator(
            table: AppRoute.table,
            onUnhandled: { _, why in
                if case .undeliverable(let reason) = why { await reasons.append(reason) }
            }
        ) { _ in throw LinkDeliveryError.undeliverable("no tab 'posts'") }
        coordinator.setReady(true)
        coordinator.receive("yourapp://post/1", via: .onOpenURL, sourceApplication: nil)
        await coordinator.settle()
        #expect(await reasons.all == ["no tab 'posts'"])
        #expect(
            await coordinator.events.map(\.description) == [
                "could not be carried out (no tab 'posts'): post /post/:id id=1"
            ]
        )
    }

    actor Window {
        private(set) var hasTabBar = false
        func showTabBar() { hasTabBar = true }
    }

    /// The library's scene delegate reaches the coordinator through the relay, whichever is made first: calls
    /// made before the coordinator starts are handed over in order.
    @Test func theRelayKeepsCallsMadeBeforeTheCoordinatorStartsInOrder() async throws {
        let relay = LinkRelay()
        let log = Log()
        relay.receive("yourapp://post/1", via: .sceneConnectionURLContext, sourceApplication: nil)
        relay.receive(
            activityType: "NSUserActivityTypeBrowsingWeb",
            webpageURL: "https://example.com/post/2",
            via: .sceneContinueUserActivity
        )
        relay.setReady(true)
        let coordinator = try #require(relay.start(AppRoute.table) { await log.deliver($0) })
        #expect(relay.start(AppRoute.table) { _ in } == nil, "one coordinator")
        await coordinator.settle()
        #expect(await log.delivered == [.post(id: 1), .post(id: 2)])
        relay.receive("yourapp://post/3", via: .onOpenURL, sourceApplication: nil)
        await coordinator.settle()
        #expect(await log.delivered == [.post(id: 1), .post(id: 2), .post(id: 3)])
    }

    @Test func aSensitiveValueIsNeverPrinted() {
        let screen = NavigationTarget(present: Sensitive("SECRET-TOKEN"))
        var dumped = ""
        dump(screen, to: &dumped)
        for text in ["\(screen)", String(reflecting: screen), dumped, "\(Sensitive("SECRET-TOKEN"))"] {
            #expect(!text.contains("SECRET"), "\(text)")
        }
        #expect(Sensitive("a") != Sensitive("b") && Sensitive("a") == Sensitive("a"))
    }
}
