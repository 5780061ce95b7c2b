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
    enum AppRoute: Hashable, Sendable {
        case post(id: Int)
        case resetPassword(token: String)
        case settings
    }

    /// The three-route table of the docs, on `yourapp` and `example.com`, with no `print:` closure.
    static let table = try! RouteTable<AppRoute>(
        schemes: ["yourapp"],
        hosts: ["example.com"],
        routes: [
            Route("post", "/post/:id", parameters: [.path("id", Int.self)]) { try .post(id: $0("id")) },
            // One destination, two forms: the universal link keeps the token in the fragment (never sent to a
            // server), the custom scheme in the query.
            Route(
                "reset-password",
                "/reset-password",
                parameters: [.fragment("token", sensitive: true, length: 32...128, characters: .base64URL)],
                sources: .universalLink
            ) { try .resetPassword(token: $0("token")) },
            Route(
                "reset-password-scheme",
                "/reset-password",
                parameters: [.query("token", sensitive: true, length: 32...128, characters: .base64URL)],
                sources: .customScheme,
                caseName: "resetPassword"
            ) { try .resetPassword(token: $0("token")) },
            Route("settings", "/settings") { _ in .settings },
        ]
    )

    actor Log {
        private(set) var events: [String] = []
        private(set) var delivered: [AppRoute] = []
        func append(_ event: String) { events.append(event) }
        func deliver(_ route: AppRoute) { delivered.append(route) }
    }

    @Test func aRouteTableWithoutPrintClosuresPrintsEveryDestinationAndParsesItBack() throws {
        let token = String(repeating: "A", count: 40)
        #expect(try Self.table.url(for: .post(id: 7)) == "https://example.com/post/7")
        #expect(try Self.table.url(for: .post(id: 7), as: .customScheme()) == "yourapp://post/7")
        #expect(
            try Self.table.url(for: .resetPassword(token: token)) == "https://example.com/reset-password#token=" + token
        )
        #expect(
            try Self.table.url(for: .resetPassword(token: token), as: .customScheme())
                == "yourapp://reset-password?token=" + token
        )
        #expect(try Self.table.url(for: .settings, as: .customScheme()) == "yourapp://settings")
        #expect(
            try Self.table.destination(for: "yourapp://reset-password?token=" + token)
                == Self.table.destination(for: "https://example.com/reset-password#token=" + token)
        )
        let failures = RouteTableCheck.roundTripFailures(
            Self.table,
            [.post(id: 7), .post(id: -1), .resetPassword(token: token), .settings]
        )
        #expect(failures.isEmpty)
    }

    @Test func aLinkNeverReleasedIsReportedWithTheCallTheAppNeverMade() async {
        let clock = TestClock()
        let log = Log()
        let coordinator = LinkCoordinator(
            table: Self.table,
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
            table: Self.table,
            clock: clock,
            requirements: { $0 == .settings ? ["signedIn"] : [] }
        ) { _ in }
        coordinator.setReady(true)
        coordinator.receive("https://example.com/settings", via: .onOpenURL, sourceApplication: nil)
        await coordinator.settle()
        clock.advance(by: .seconds(6))
        var held: [String] = []
        for _ in 0..<1_000 where held.isEmpty {
            await coordinator.settle()
            held = await coordinator.events.map(\.description).filter { $0.hasPrefix("still held") }
            await Task.yield()
        }
        #expect(held == [#"still held, waiting for setCondition("signedIn", holds: true): settings /settings"#])
    }

    /// A UIKit app shows a sign-in root, later replaced by the tab bar: a link delivered meanwhile finds no tab
    /// bar. Its `deliver` throws `notReady`: nothing is reported delivered, the link waits, and the next
    /// `setReady(true)` (the root swapped) delivers it, once, before any later link.
    @Test func aSignInRootHoldsTheLinkUntilTheTabBarIsThereThenDeliversItOnce() async {
        let log = Log()
        let window = Window()
        let coordinator = LinkCoordinator(table: Self.table) { route in
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
            table: Self.table,
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
        let coordinator = try #require(relay.start(Self.table) { await log.deliver($0) })
        #expect(relay.start(Self.table) { _ in } == nil, "one coordinator")
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
