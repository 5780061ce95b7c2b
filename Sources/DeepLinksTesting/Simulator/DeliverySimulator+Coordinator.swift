import DeepLinks

extension DeliverySimulator {
    /// What `run(coordinatorWith:urls:knobs:route:)` adds to a scenario: the timing and the app's own work
    /// around each link, which only the shipped coordinator sees.
    public struct CoordinatorKnobs: Sendable, Hashable, CustomStringConvertible {
        /// How much later than planned SwiftUI publishes a link (a twin arriving late); every later event moves
        /// with it. Inside the inbox's windows the twin is still one delivery: up to 2 s before the app is
        /// active, up to 50 ms while it is (an active app's twins come in one run-loop turn).
        public var lateTwin: Duration = .zero
        /// Every destination needs the `signedIn` condition, which holds from this many events after the app is
        /// ready; nil for no requirement.
        public var signedInAfter: Int? = nil
        /// Each destination is resolved asynchronously (an actor hop, as a fetch would) before it is delivered.
        public var resolves = false
        /// After the run, the app goes to the background and the first link is opened again: a second, genuine
        /// delivery, which must be handled again.
        public var repeatAfterBackground = false
        /// Each scene (window) has a coordinator of its own, fed by that scene's callbacks, as the UIKit reference
        /// app does: every link must be handled by the coordinator of the scene iOS handed it to.
        public var coordinatorPerScene = false

        public init(
            lateTwin: Duration = .zero,
            signedInAfter: Int? = nil,
            resolves: Bool = false,
            repeatAfterBackground: Bool = false,
            coordinatorPerScene: Bool = false
        ) {
            self.lateTwin = lateTwin
            self.signedInAfter = signedInAfter
            self.resolves = resolves
            self.repeatAfterBackground = repeatAfterBackground
            self.coordinatorPerScene = coordinatorPerScene
        }

        /// Whether the knobs describe something iOS does in `scenario`: twins within the inbox's window (the
        /// planned run-loop turns between a scene's sighting and SwiftUI's publish, plus `lateTwin`, under 2 s
        /// before the app is active, under 50 ms while it is); a trip to the background from a run that
        /// reaches the app.
        public func isValid(for scenario: DeliveryScenario) -> Bool {
            let activeAtPublish = scenario.state == .foreground || scenario.activeBeforeLink
            let turns = scenario.swiftUIDelay + (scenario.handlerMount == .afterPublish ? 2 : 0)
            let gap = lateTwin + .milliseconds(100 * turns + 10)
            return (lateTwin < .milliseconds(40) || (!activeAtPublish && gap < .seconds(2)))
                && (!repeatAfterBackground || RoutingPolicy.delivers(scenario.kind, opening: scenario.opening))
        }

        public var description: String {
            var parts: [String] = []
            if lateTwin > .zero { parts.append("lateTwin=\(lateTwin)") }
            if let signedInAfter { parts.append("signedInAfter=\(signedInAfter)") }
            if resolves { parts.append("resolves") }
            if repeatAfterBackground { parts.append("repeatAfterBackground") }
            if coordinatorPerScene { parts.append("coordinatorPerScene") }
            return parts.isEmpty ? "plain" : parts.joined(separator: " ")
        }
    }

    /// Runs the scenario through the shipped `LinkCoordinator`, not a model of it: every callback of the trace is
    /// handed to the coordinator as the library's glue hands it (`LinkCoordinator.receive(_:via:sourceApplication:)`,
    /// `receive(activityType:webpageURL:via:)`, `setActive`, `setReady`, `setCondition`), at its time on a
    /// ``TestClock``; the coordinator matches each URL with `table`, waits for readiness and conditions, resolves, and
    /// delivers destinations. The same oracles then judge the run: each delivery handled once, in order, never early,
    /// and the destination exactly the one its URL gives (the URL's bytes, through `table`).
    ///
    /// A tick is a run-loop turn of 100 ms; events within one turn are 1 ms apart.
    ///
    /// `urls` are links of your app (your table's scheme and hosts): the simulator has no links of its own for
    /// your table. One your table rejects is a violation, as is a `route` that returns nil for every link handled.
    public func run<Destination: Sendable & Equatable>(
        coordinatorWith table: RouteTable<Destination>,
        urls: [String],
        knobs: CoordinatorKnobs = .init(),
        route: Router? = nil
    ) async -> Outcome {
        let appRoute = route
        let route = appRoute ?? Self.screenPerLink
        guard !urls.isEmpty else {
            return Outcome(trace: [], handled: [], undelivered: [], navigation: .init(), violations: ["no urls given"])
        }
        var (links, trace) = plannedTrace(urls: urls)
        if knobs.repeatAfterBackground, !links.isEmpty, !trace.isEmpty {
            let background: [DeviceEvent] =
                scenario.lifecycle == .appDelegate
                ? [.appWillResignActive, .appDidEnterBackground] : [.sceneDidEnterBackground(scene: 1)]
            appendRepeat(
                in: .background,
                after: [.tick] + background + [.tick, .tick, .tick],
                links: &links,
                trace: &trace
            )
        }
        let readyIndex = readyIndex(in: trace)
        let signedInIndex = knobs.signedInAfter.map { min(readyIndex + $0, trace.count) }

        let clock = TestClock()
        let recorder = Recorder<Destination>()
        // The app's opt-in reporter, to a server that takes every batch: one `opened` per link carried out.
        let reports = ReportedOpens()
        let reporter = LinkReporter(server: "https://links.example.com", linkDomains: [], clock: clock) { body, _ in
            await reports.add(body)
            return 200
        }
        let requirements: Set<String> = knobs.signedInAfter == nil ? [] : ["signedIn"]
        let resolves = knobs.resolves
        // One coordinator for the app (key 0), or one per scene, made when its scene's first callback comes.
        let perScene = knobs.coordinatorPerScene && scenario.lifecycle != .appDelegate
        var coordinators: [Int: LinkCoordinator<Destination>] = [:]
        func coordinator(for scene: Int, at index: Int) -> LinkCoordinator<Destination> {
            if let existing = coordinators[scene] { return existing }
            let made = LinkCoordinator(
                table: table,
                clock: clock,
                requirements: { _ in requirements },
                resolve: { destination in
                    guard resolves else { return destination }
                    return await recorder.resolved(destination)
                },
                onUnhandled: { await recorder.unhandled($0, $1, scene: scene) },
                reporter: reporter,
                deliver: { await recorder.delivered($0, scene: scene) }
            )
            // A scene on screen is active; a new window becomes active through its own callbacks.
            if scenario.state == .foreground, scene != DeliveryScenario.TargetScene.new.id { made.setActive(true) }
            if index >= readyIndex { made.setReady(true) }
            if let signedInIndex, index >= signedInIndex { made.setCondition("signedIn", holds: true) }
            coordinators[scene] = made
            return made
        }
        _ = coordinator(for: perScene ? DeliveryScenario.TargetScene.current.id : 0, at: 0)

        // Each event at its time: 100 ms per tick, 1 ms apart within a turn, SwiftUI's publishes and everything
        // after them `lateTwin` later.
        var turn = 0
        var late = Duration.zero
        for index in 0...trace.count {
            await recorder.at(index)
            for made in coordinators.values {
                if index == readyIndex { made.setReady(true) }
                if index == signedInIndex { made.setCondition("signedIn", holds: true) }
            }
            guard index < trace.count else { break }
            let event = trace[index]
            switch event {
            case .tick: turn += 1
            case .swiftUIOpenURL, .swiftUIContinue: late = knobs.lateTwin
            default: break
            }
            clock.advance(to: TestClock.Instant(offset: .milliseconds(100 * turn + index) + late))
            if perScene, let scene = event.scene {
                Self.send(event, to: coordinator(for: scene, at: index))
            } else {
                for made in coordinators.values { Self.send(event, to: made) }
            }
            for made in coordinators.values { await made.settle() }
        }
        for made in coordinators.values { await made.settle() }

        var violations: [String] = []
        let deliveries = await recorder.deliveries
        await reporter.settle()
        let opened = await reports.opened
        if opened != deliveries.count {
            violations.append("the reporter sent \(opened) opened events for \(deliveries.count) links carried out")
        }
        // A newer link cancels a resolution in flight (a second tap wins): the older link goes to `onUnhandled`,
        // not to the screen. It is accounted for, not lost; any other unhandled link is a violation.
        var cancelled: [(url: String, index: Int, scene: Int)] = []
        for (url, reason, index, scene) in await recorder.unhandled {
            if case .cancelled = reason {
                cancelled.append((url, index, scene))
            } else if case .rejected(let rejection) = reason {
                violations.append("your table rejects \(table.redact(url)): \(rejection)")
            } else {
                violations.append("unhandled: \(url) (\(reason))")
            }
        }
        // Each URL's destination (its bytes, through the table), read once: a delivery must be one of them.
        let destinations = Set(links.map(\.url)).compactMap { url in
            (try? table.match(url).get()).map { (url: url, destination: $0.destination) }
        }
        var handledAt: [(url: String, index: Int, scene: Int)] = []
        for (destination, index, scene) in deliveries {
            if let url = destinations.first(where: { $0.destination == destination })?.url {
                handledAt.append((url, index, scene))
            } else {
                violations.append("altered or invented: a destination no delivered URL gives (\(destination))")
            }
        }
        // Each window's screens: restored state, then the plans of the links its coordinator handled.
        var navigations: [Int: NavigationState<AnyScreen>] = [:]
        func key(_ scene: Int?) -> Int { perScene ? (scene ?? 0) : 0 }
        for index in 0...trace.count {
            if index < trace.count, case .stateRestoration(let scene, let screen) = trace[index] {
                navigations[key(scene)] = Self.restored(screen)
            }
            for handled in handledAt where handled.index == index {
                guard let target = route(handled.url) else { continue }
                let before = navigations[handled.scene] ?? NavigationState()
                navigations[handled.scene] = NavigationPlan(from: before, to: target).applied(to: before)
            }
        }
        let navigation = handledAt.last.flatMap { navigations[$0.scene] } ?? NavigationState()
        let accounted = (handledAt + cancelled).enumerated().sorted {
            ($0.element.index, $0.offset) < ($1.element.index, $1.offset)
        }.map(\.element)
        violations += Self.check(
            trace,
            accounted.map { ($0.url, $0.index) },
            readyAt: max(readyIndex, signedInIndex ?? 0)
        )
        violations += Self.windowViolations(trace, accounted, key: key)
        violations += Self.screenViolations(last: handledAt.last?.url, navigation, route)
        violations += Self.routeViolations(urls: urls, handled: handledAt.map(\.url), route: appRoute)
        return Outcome(
            trace: trace,
            handled: handledAt.map(\.url),
            undelivered: Self.undelivered(links, trace),
            navigation: navigation,
            violations: violations
        )
    }

    /// The same, with your app's own screens (`route` maps a URL to your `NavigationTarget`).
    public func run<Destination: Sendable & Equatable, Screen: Hashable & Sendable>(
        coordinatorWith table: RouteTable<Destination>,
        urls: [String],
        knobs: CoordinatorKnobs = .init(),
        route: @escaping @Sendable (String) -> NavigationTarget<Screen>?
    ) async -> Outcome {
        let erased: Router? = { route($0).map(AnyScreen.erase) }
        return await run(coordinatorWith: table, urls: urls, knobs: knobs, route: erased)
    }

    /// Oracle: each scene's coordinator handles exactly the deliveries iOS handed that scene (windows handle
    /// their links independently, so only the count per URL and scene is compared, not the order across them).
    static func windowViolations(
        _ trace: [DeviceEvent],
        _ accounted: [(url: String, index: Int, scene: Int)],
        key: (Int?) -> Int
    ) -> [String] {
        struct Place: Hashable {
            let url: String
            let scene: Int
        }
        var expected: [Place: Int] = [:]
        var seen: Set<Int> = []
        for event in trace {
            for link in event.links where link.isDelivery && seen.insert(link.deliveryID).inserted {
                expected[Place(url: link.url, scene: key(event.scene)), default: 0] += 1
            }
        }
        var actual: [Place: Int] = [:]
        for handled in accounted { actual[Place(url: handled.url, scene: handled.scene), default: 0] += 1 }
        return Set(expected.keys).union(actual.keys).compactMap { place in
            let (want, got) = (expected[place] ?? 0, actual[place] ?? 0)
            return want == got
                ? nil
                : "wrong window: \(place.url) handled \(got) times in scene \(place.scene), handed to it \(want) times"
        }.sorted()
    }

    /// The library's glue for one callback: its payload, untouched, to the coordinator.
    static func send<Destination>(_ event: DeviceEvent, to coordinator: LinkCoordinator<Destination>) {
        switch event {
        case .appDidBecomeActive, .sceneDidBecomeActive, .swiftUIPhaseActive:
            coordinator.setActive(true)
        case .appDidEnterBackground, .sceneDidEnterBackground, .sceneDidDisconnect:
            coordinator.setActive(false)
        default:
            for (url, channel, sender) in AppUnderTest.transcribe(event) {
                coordinator.receive(url, via: channel, sourceApplication: sender)
            }
        }
    }

    /// What the coordinator delivered, each with the index of the event after which it came.
    private actor Recorder<Destination: Sendable> {
        /// What was delivered, after which event, by which scene's coordinator.
        private(set) var deliveries: [(Destination, Int, scene: Int)] = []
        private(set) var unhandled: [(String, LinkCoordinator<Destination>.Unhandled, Int, scene: Int)] = []
        private var index = 0

        func at(_ index: Int) { self.index = index }
        func delivered(_ destination: Destination, scene: Int) { deliveries.append((destination, index, scene)) }
        func unhandled(_ url: String, _ reason: LinkCoordinator<Destination>.Unhandled, scene: Int) {
            unhandled.append((url, reason, index, scene))
        }
        /// An asynchronous resolution: a hop to this actor and back, as a fetch would take.
        func resolved(_ destination: Destination) async -> Destination {
            await Task.yield()
            return destination
        }
    }
}

/// The `opened` events the simulated app's reporter sent, counted from the batches' JSON.
actor ReportedOpens {
    private(set) var opened = 0

    func add(_ body: [UInt8]) {
        let needle = Array(#""type":"opened""#.utf8)
        guard body.count >= needle.count else { return }
        for start in 0...(body.count - needle.count) where body[start..<start + needle.count].elementsEqual(needle) {
            opened += 1
        }
    }
}
