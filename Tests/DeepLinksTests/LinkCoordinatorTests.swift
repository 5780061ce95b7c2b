import DeepLinks
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
        await coordinator.receive("demoapp://post/1", via: .launchOptionsURL)
        await coordinator.receive("demoapp://post/1", via: .applicationOpenURL)
        await coordinator.receive("otherapp://x", via: .applicationOpenURL)
        #expect(await delivered.all.isEmpty)
        await coordinator.setReady(true)
        await coordinator.settle()
        #expect(await delivered.all == [.post(id: 1)])
        let events = await coordinator.events.map(\.description)
        #expect(events == [
            "dropped demoapp://post/1: duplicate",
            "rejected otherapp://x: scheme_not_accepted: the scheme 'otherapp' is not one of this app's (demoapp)",
            "delivered post /post/:id id=1 to post",
        ])
    }

    @Test func aRouteNeedingSignInWaitsForIt() async {
        let delivered = Delivered()
        let coordinator = LinkCoordinator(
            table: DemoRoute.table,
            requirements: { if case .settings = $0 { ["signedIn"] } else { [] } }
        ) { await delivered.append($0) }
        await coordinator.setReady(true)
        await coordinator.receive("demoapp://settings/account", via: .onOpenURL)
        await coordinator.settle()
        #expect(await delivered.all.isEmpty)
        await coordinator.setCondition("signedIn", holds: true)
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
        await coordinator.setReady(true)
        await coordinator.receive("demoapp://post/1", via: .onOpenURL)
        await coordinator.receive("demoapp://post/2", via: .onOpenURL)
        await coordinator.settle()
        #expect(await delivered.all == [.post(id: 2)])
        let events = await coordinator.events.map(\.description)
        #expect(events == ["resolution cancelled for post /post/:id id=1 by a newer link", "delivered post /post/:id id=2 to post"])
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
        await coordinator.setReady(true)
        await coordinator.receive("demoapp://post/1", via: .onOpenURL)
        await coordinator.settle()
        await coordinator.receive("demoapp://post/2", via: .onOpenURL)
        await coordinator.settle()
        #expect(await delivered.all.isEmpty)
        let events = await coordinator.events.map(\.description)
        #expect(events == ["resolution timed out for post /post/:id id=1", "resolution failed for post /post/:id id=2"])
    }

    @Test func secretsStayRedactedInEvents() async {
        let coordinator = LinkCoordinator(table: DemoRoute.table) { _ in }
        await coordinator.setReady(true)
        await coordinator.receive("demoapp://reset-password?token=SECRETSECRETSECRETSECRETSECRET123", via: .onOpenURL)
        await coordinator.receive("demoapp://reset-password?token=short-SECRET", via: .onOpenURL)
        await coordinator.settle()
        let events = await coordinator.events.map(\.description).joined(separator: "\n")
        #expect(!events.contains("SECRET"))
    }
}
