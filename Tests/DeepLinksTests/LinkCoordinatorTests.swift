import DeepLinks
import Foundation
import DemoAppRoutes
import Testing

@Suite struct LinkCoordinatorTests {
    actor Delivered {
        private(set) var all: [DemoRoute] = []
        func append(_ destination: DemoRoute) { all.append(destination) }
    }

    @Test func linksWaitForReadinessThenAreDeliveredOnceThroughTheRouteTable() async {
        let delivered = Delivered()
        let coordinator = LinkCoordinator(table: DemoRoute.table) { await delivered.append($0) }
        coordinator.receive("demoapp://post/1", via: .launchOptionsURL)
        coordinator.receive("demoapp://post/1", via: .applicationOpenURL)
        coordinator.receive("otherapp://x", via: .applicationOpenURL)
        #expect(await delivered.all.isEmpty)
        coordinator.setReady(true)
        await coordinator.settle()
        #expect(await delivered.all == [.post(id: 1)])
        let events = await coordinator.events.map(\.description)
        #expect(
            events == [
                "dropped post /post/:id id=1: duplicate",
                "rejected otherapp://x: scheme_not_accepted: the scheme 'otherapp' is not one of this app's (demoapp)",
                "delivered post /post/:id id=1 to post",
            ]
        )
    }

    @Test func aRouteNeedingSignInWaitsForIt() async {
        let delivered = Delivered()
        let coordinator = LinkCoordinator(
            table: DemoRoute.table,
            requirements: { if case .settings = $0 { ["signedIn"] } else { [] } }
        ) { await delivered.append($0) }
        coordinator.setReady(true)
        coordinator.receive("demoapp://settings/account", via: .onOpenURL)
        await coordinator.settle()
        #expect(await delivered.all.isEmpty)
        coordinator.setCondition("signedIn", holds: true)
        await coordinator.settle()
        #expect(await delivered.all == [.settings(tab: .account)])
    }

    @Test func aNewerLinkCancelsAResolutionInFlight() async {
        let delivered = Delivered()
        let coordinator = LinkCoordinator(
            table: DemoRoute.table,
            resolve: { destination in
                if case .post(1) = destination { try await Task.sleep(for: .seconds(5)) }
                return destination
            }
        ) { await delivered.append($0) }
        coordinator.setReady(true)
        coordinator.receive("demoapp://post/1", via: .onOpenURL)
        coordinator.receive("demoapp://post/2", via: .onOpenURL)
        await coordinator.settle()
        #expect(await delivered.all == [.post(id: 2)])
        let events = await coordinator.events.map(\.description)
        #expect(
            events == [
                "resolution cancelled for post /post/:id id=1 by a newer link", "delivered post /post/:id id=2 to post",
            ]
        )
    }

    @Test func aSlowResolutionTimesOutAndAFailingOneIsReported() async {
        let delivered = Delivered()
        struct Offline: Error {}
        let coordinator = LinkCoordinator(
            table: DemoRoute.table,
            timeout: .milliseconds(50),
            resolve: { destination in
                if case .post(1) = destination { try await Task.sleep(for: .seconds(5)) }
                if case .post(2) = destination { throw Offline() }
                return destination
            }
        ) { await delivered.append($0) }
        coordinator.setReady(true)
        coordinator.receive("demoapp://post/1", via: .onOpenURL)
        await coordinator.settle()
        coordinator.receive("demoapp://post/2", via: .onOpenURL)
        await coordinator.settle()
        #expect(await delivered.all.isEmpty)
        let events = await coordinator.events.map(\.description)
        #expect(
            events == ["resolution timed out for post /post/:id id=1", "resolution failed for post /post/:id id=2"]
        )
    }

    actor Gate {
        private var waiting: CheckedContinuation<Void, Never>?
        private var isOpen = false
        func wait() async {
            guard !isOpen else { return }
            await withCheckedContinuation { waiting = $0 }
        }
        func open() {
            isOpen = true
            waiting?.resume()
            waiting = nil
        }
    }

    /// Found by the simulator driving the coordinator: a newer link arriving while an older one is being
    /// delivered reported the older one to `onUnhandled` as cancelled too (a universal link would then open
    /// in the app and in Safari). A link handed to `deliver` is the app's.
    @Test func aNewerLinkNeverCancelsALinkAlreadyHandedToTheApp() async throws {
        let delivered = Delivered()
        let unhandled = Unhandled()
        let gate = Gate()
        let coordinator = LinkCoordinator(
            table: DemoRoute.table,
            onUnhandled: { await unhandled.append($0, $1) }
        ) { destination in
            await delivered.append(destination)
            if destination == .post(id: 1) { await gate.wait() }
        }
        coordinator.setReady(true)
        coordinator.receive("demoapp://post/1", via: .onOpenURL)
        for _ in 0..<1_000 where await delivered.all.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        #expect(await delivered.all == [.post(id: 1)], "post/1 is being delivered")
        coordinator.receive("demoapp://post/2", via: .onOpenURL)
        // post/2 goes through while post/1's delivery is still running.
        for _ in 0..<1_000 where await delivered.all.count < 2 { try await Task.sleep(for: .milliseconds(1)) }
        await gate.open()
        await coordinator.settle()
        #expect(await delivered.all == [.post(id: 1), .post(id: 2)])
        #expect(await unhandled.all.isEmpty)
        #expect(!(await coordinator.events.map(\.description)).contains { $0.hasPrefix("resolution cancelled") })
    }

    actor Unhandled {
        private(set) var all: [String] = []
        func append(_ url: String, _ reason: LinkCoordinator<DemoRoute>.Unhandled) {
            let why =
                switch reason {
                case .rejected(let rejection): "rejected \(rejection.code.rawValue)"
                case .expired: "expired"
                case .cancelled: "cancelled"
                case .resolutionFailed: "resolution failed"
                case .timedOut: "timed out"
                case .declined: "declined"
                case .undeliverable(let reason): "undeliverable: \(reason)"
                }
            all.append("\(url) \(why)")
        }
    }

    /// Seed 002: a link the app cannot carry out reaches the app's hook, the URL as it came (to open in Safari).
    @Test func rejectedExpiredCancelledAndFailedLinksReachTheHook() async {
        let unhandled = Unhandled()
        struct Offline: Error {}
        let coordinator = LinkCoordinator(
            table: DemoRoute.table,
            configuration: .init(expiry: .milliseconds(50)),
            timeout: .milliseconds(100),
            resolve: { destination in
                if case .post(1) = destination { try await Task.sleep(for: .seconds(5)) }
                if case .post(3) = destination { throw Offline() }
                return destination
            },
            onUnhandled: { await unhandled.append($0, $1) }
        ) { _ in }
        coordinator.receive("https://links.example.com/nowhere", via: .onOpenURL)
        coordinator.receive("demoapp://post/9", via: .onOpenURL)  // held, never ready in time
        try? await Task.sleep(for: .milliseconds(120))
        coordinator.setReady(true)
        await coordinator.settle()
        coordinator.receive("demoapp://post/1", via: .onOpenURL)
        coordinator.receive("demoapp://post/2", via: .onOpenURL)  // cancels post/1's resolution
        await coordinator.settle()
        coordinator.receive("demoapp://post/3", via: .onOpenURL)
        await coordinator.settle()
        #expect(
            await unhandled.all == [
                "https://links.example.com/nowhere rejected no_route",
                "demoapp://post/9 expired",
                "demoapp://post/1 cancelled",
                "demoapp://post/3 resolution failed",
            ]
        )
    }

    /// Each link is matched once, when it arrives, however long it is held.
    @Test func eachLinkIsMatchedOnce() async {
        final class Count: @unchecked Sendable {
            private let lock = NSLock()
            private var value = 0
            func add() { lock.withLock { value += 1 } }
            var current: Int { lock.withLock { value } }
        }
        let parses = Count()
        let table = try! RouteTable<Int>(
            schemes: ["app"],
            routes: [
                Route(
                    "n",
                    "/n/:n",
                    parameters: [.path("n", Int.self)],
                    parse: { p in
                        parses.add(); return try p("n")
                    },
                    print: { ["n": $0] }
                )
            ]
        )
        let coordinator = LinkCoordinator(table: table) { _ in }
        for n in 1...5 { coordinator.receive("app://n/\(n)", via: .onOpenURL) }
        coordinator.setReady(true)
        await coordinator.settle()
        #expect(parses.current == 5)
        #expect(await coordinator.events.count == 5)
    }

    @Test func theEventLogKeepsTheLatest() async {
        let coordinator = LinkCoordinator(table: DemoRoute.table, eventLimit: 3) { _ in }
        coordinator.setReady(true)
        for id in 1...10 {
            coordinator.receive("demoapp://post/\(id)", via: .onOpenURL)
            await coordinator.settle()
        }
        #expect(
            await coordinator.events.map(\.description) == (8...10).map { "delivered post /post/:id id=\($0) to post" }
        )
    }

    @Test func secretsStayRedactedInEvents() async {
        let coordinator = LinkCoordinator(table: DemoRoute.table) { _ in }
        coordinator.setReady(true)
        coordinator.receive("demoapp://reset-password?token=SECRETSECRETSECRETSECRETSECRET123", via: .onOpenURL)
        coordinator.receive("demoapp://reset-password?token=short-SECRET", via: .onOpenURL)
        await coordinator.settle()
        let events = await coordinator.events.map(\.description).joined(separator: "\n")
        #expect(!events.contains("SECRET"))
    }
}

@Suite struct LinkCoordinatorOrderTests {
    typealias Delivered = LinkCoordinatorTests.Delivered

    /// What an adapter does: synchronous calls from one thread, as UIKit makes them; they apply in call order.
    @Test func inputsFromSynchronousCallbacksApplyInCallOrder() async {
        let delivered = Delivered()
        let coordinator = LinkCoordinator(table: DemoRoute.table) { await delivered.append($0) }
        for id in 1...50 { coordinator.receive("demoapp://post/\(id)", via: .sceneOpenURLContexts) }
        coordinator.setReady(true)
        await coordinator.settle()
        // Held links released together are all delivered, in order (the queue policy).
        #expect(await delivered.all == (1...50).map { DemoRoute.post(id: $0) })
        // Later taps in a burst: each newer one may cancel the one in flight, never reorder; the last wins.
        for id in 51...100 { coordinator.receive("demoapp://post/\(id)", via: .sceneOpenURLContexts) }
        await coordinator.settle()
        let ids = await delivered.all.map { if case .post(let id) = $0 { id } else { 0 } }
        #expect(ids.last == 100 && ids == ids.sorted())
        let outcomes = await coordinator.events.filter {
            $0.description.hasPrefix("delivered") || $0.description.hasPrefix("resolution cancelled")
        }
        #expect(outcomes.count == 100, "each link delivered or cancelled, once")
    }

    @Test func onlyABrowsingWebActivityIsALink() async {
        let delivered = Delivered()
        let coordinator = LinkCoordinator(table: DemoRoute.table) { await delivered.append($0) }
        coordinator.setReady(true)
        coordinator.receive(
            activityType: "com.example.demo.viewing-post",
            webpageURL: "https://links.example.com/post/99",
            via: .sceneConnectionUserActivity
        )
        coordinator.receive(
            activityType: LinkInbox.browsingWebActivityType,
            webpageURL: "https://links.example.com/post/7",
            via: .sceneConnectionUserActivity
        )
        await coordinator.settle()
        #expect(await delivered.all == [.post(id: 7)])
    }
}

extension LinkCoordinatorOrderTests {
    /// Callbacks from several tasks at once: every link is delivered exactly once, each task's in its order.
    @Test func concurrentDeliveriesLoseNothingAndKeepEachSendersOrder() async {
        let delivered = Delivered()
        let coordinator = LinkCoordinator(table: DemoRoute.table) { await delivered.append($0) }
        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<8 {
                group.addTask {
                    for index in 0..<25 {
                        coordinator.receive("demoapp://post/\(sender * 1000 + index)", via: .sceneOpenURLContexts)
                    }
                }
            }
        }
        coordinator.setReady(true)
        await coordinator.settle()
        let ids = await delivered.all.map { if case .post(let id) = $0 { id } else { -1 } }
        #expect(ids.count == 200 && Set(ids).count == 200)
        for sender in 0..<8 {
            let mine = ids.filter { $0 / 1000 == sender }
            #expect(mine == mine.sorted(), "sender \(sender)'s links in its order")
        }
    }

    enum Account: Sendable, Equatable {
        case post(Int)
        case deletePost(Int)
    }

    /// A table where one destination changes something: deleting a post waits for the person.
    static let accountTable = try! RouteTable<Account>(
        schemes: ["demoapp"],
        hosts: [],
        routes: [
            Route(
                "post",
                "/post/:id",
                parameters: [.path("id", Int.self)],
                parse: { p in .post(try p("id")) },
                print: { if case .post(let id) = $0 { ["id": id] } else { nil } }
            ),
            Route(
                "delete-post",
                "/post/:id/delete",
                parameters: [.path("id", Int.self)],
                requiresConfirmation: true,
                parse: { p in .deletePost(try p("id")) },
                print: { if case .deletePost(let id) = $0 { ["id": id] } else { nil } }
            ),
        ]
    )

    actor Asked {
        private(set) var all: [Account] = []
        private(set) var delivered: [Account] = []
        private(set) var unhandled: [String] = []
        private(set) var rejected: [String] = []
        func ask(_ destination: Account) { all.append(destination) }
        func deliver(_ destination: Account) { delivered.append(destination) }
        func report(_ url: String, _ reason: LinkCoordinator<Account>.Unhandled) {
            if case .declined = reason { unhandled.append(url) }
            if case .rejected(let rejection) = reason { rejected.append("\(url) \(rejection.code.rawValue)") }
        }
    }

    /// Seed 003, "limit what a URL can do": a state-changing destination is never carried out by the link alone.
    @Test func aDestinationThatChangesSomethingWaitsForConfirmationAndIsDeclinedWithoutIt() async {
        #expect(Self.accountTable.match("demoapp://post/7/delete").map(\.requiresConfirmation) == .success(true))
        #expect(Self.accountTable.match("demoapp://post/7").map(\.requiresConfirmation) == .success(false))
        for answer in [nil, false, true] as [Bool?] {
            let asked = Asked()
            let coordinator: LinkCoordinator<Account>
            if let answer {
                coordinator = LinkCoordinator(
                    table: Self.accountTable,
                    confirm: {
                        await asked.ask($0); return answer
                    },
                    onUnhandled: { await asked.report($0, $1) }
                ) { await asked.deliver($0) }
            } else {
                // No confirm hook: nobody can say yes.
                coordinator = LinkCoordinator(table: Self.accountTable, onUnhandled: { await asked.report($0, $1) }) {
                    await asked.deliver($0)
                }
            }
            coordinator.setReady(true)
            coordinator.receive("demoapp://post/7/delete", via: .onOpenURL)
            await coordinator.settle()
            coordinator.receive("demoapp://post/8", via: .onOpenURL)
            await coordinator.settle()
            #expect(await asked.all == (answer == nil ? [] : [.deletePost(7)]), "only the deletion is asked about")
            #expect(await asked.delivered == (answer == true ? [.deletePost(7), .post(8)] : [.post(8)]))
            #expect(await asked.unhandled == (answer == true ? [] : ["demoapp://post/7/delete"]))
            let events = await coordinator.events.map(\.description)
            #expect(
                events.first
                    == (answer == true
                        ? "delivered delete-post /post/:id/delete id=7 to delete-post"
                        : "not confirmed: delete-post /post/:id/delete id=7")
            )
        }
    }

    @Test func theManifestCarriesTheConfirmationRequirement() throws {
        let manifest = Self.accountTable.manifest
        #expect(manifest.routes.map(\.confirm) == [nil, true])
        let loaded = try RouteTable(manifest: manifest)
        #expect(loaded.match("demoapp://post/7/delete").map(\.requiresConfirmation) == .success(true))
        #expect(loaded.manifest == manifest)
    }

    /// Seed 003: a custom-scheme route may take links from the app's own family of apps only.
    static let widgetTable = try! RouteTable<Account>(
        schemes: ["demoapp"],
        hosts: ["links.example.com"],
        routes: [
            Route(
                "post",
                "/post/:id",
                parameters: [.path("id", Int.self)],
                sourceApplications: ["com.example.demo.widget"],
                parse: { p in .post(try p("id")) },
                print: { if case .post(let id) = $0 { ["id": id] } else { nil } }
            )
        ]
    )

    @Test func aRouteLimitedToSomeAppsTakesTheirLinksOnlyAndOnlyWhereIOSNamesTheSender() async {
        let asked = Asked()
        let coordinator = LinkCoordinator(
            table: Self.widgetTable,
            onUnhandled: { await asked.report($0, $1) }
        ) { await asked.deliver($0) }
        coordinator.setReady(true)
        coordinator.setActive(true)
        // The allowed app, through the scene delegate, and SwiftUI's twin without a sender: delivered once.
        coordinator.receive(
            "demoapp://post/1",
            via: .sceneOpenURLContexts,
            sourceApplication: "com.example.demo.widget"
        )
        coordinator.receive("demoapp://post/1", via: .onOpenURL)
        await coordinator.settle()
        // SwiftUI's sighting first, then the scene delegate's: still once.
        coordinator.receive("demoapp://post/2", via: .onOpenURL)
        coordinator.receive(
            "demoapp://post/2",
            via: .sceneOpenURLContexts,
            sourceApplication: "com.example.demo.widget"
        )
        await coordinator.settle()
        // Another app (or one iOS does not name, being of another team): refused, reported once.
        coordinator.receive("demoapp://post/3", via: .sceneOpenURLContexts, sourceApplication: "com.evil.app")
        coordinator.receive("demoapp://post/3", via: .onOpenURL)
        await coordinator.settle()
        // No sender anywhere (a SwiftUI app without a scene delegate): never carried out.
        coordinator.receive("demoapp://post/4", via: .onOpenURL)
        await coordinator.settle()
        // Universal links are the association file's business, not the sender's.
        coordinator.receive("https://links.example.com/post/5", via: .onOpenURL)
        await coordinator.settle()
        #expect(await asked.delivered == [.post(1), .post(2), .post(5)])
        #expect(await asked.rejected == ["demoapp://post/3 source_application_not_allowed"])
        let events = await coordinator.events.map(\.description)
        #expect(events.filter { $0.hasPrefix("passed over") }.count == 4, "the twins of 1 and 3, the first of 2, and 4")
        #expect(Self.widgetTable.manifest.routes[0].sourceApplications == ["com.example.demo.widget"])
        let loaded = try? RouteTable(manifest: Self.widgetTable.manifest)
        #expect(loaded?.match("demoapp://post/1").map(\.sourceApplications) == .success(["com.example.demo.widget"]))
    }
}
