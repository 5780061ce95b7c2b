import DeepLinks

/// Several user actions in a row, with the app changing state between them:
/// ordering and repeats across launches, backgrounding and foreground taps.
public struct DeliverySequence: Sendable, CustomStringConvertible {
    public var lifecycle: DeliveryScenario.Lifecycle
    /// Each action's cell and knobs; the app becomes ready during each action (per its `readyAt`).
    public var actions: [DeliveryScenario]

    public var description: String { actions.map(\.description).joined(separator: " → ") }

    /// A random sequence of 2–5 actions for one life cycle, from a seeded generator: reproducible by seed.
    public static func random(seed: UInt64) -> DeliverySequence {
        var generator = SplitMix64(seed: seed)
        let lifecycle = DeliveryScenario.Lifecycle.allCases[Int(generator.next() % 4)]
        let count = 2 + Int(generator.next() % 4)
        var actions: [DeliveryScenario] = []
        // Where the app is before each action: a link sent to the browser leaves it where it was.
        var running = false
        var foreground = false
        for _ in 0..<count {
            let states: [DeliveryScenario.AppState] =
                !running
                ? [.notRunning]
                : DeliveryScenario.AppState.allCases.filter {
                    (foreground || $0 != .foreground) && (lifecycle != .appDelegate || $0 != .backgroundDetached)
                }
            var scenario = DeliveryScenario(
                lifecycle: lifecycle,
                state: states[Int(generator.next() % UInt64(states.count))],
                kind: DeliveryScenario.LinkKind.allCases[Int(generator.next() % 2)]
            )
            scenario.setSize = 1 + Int(generator.next() % 3)
            scenario.setOrder = Int(generator.next() % UInt64(DeliveryScenario.factorial(scenario.setSize)))
            scenario.urlShape = Int(generator.next() % 3)
            scenario.readyAt = [.beforeFirstEvent, .afterEvents(1), .afterLastEvent][Int(generator.next() % 3)]
            scenario.swiftUIDelay = Int(generator.next() % 3)
            scenario.activeBeforeLink = generator.next() % 2 == 0
            scenario.sourceApplication = generator.next() % 2 == 0 ? nil : "com.example.demo.widget"
            // Knobs that apply to some cells only: drawn, then kept where they apply.
            func maybe(_ change: (inout DeliveryScenario) -> Void) {
                var changed = scenario
                change(&changed)
                if changed.isValid { scenario = changed }
            }
            let draw = { generator.next() }
            maybe { $0.universalLinkChannel = DeliveryScenario.UniversalLinkChannel.allCases[Int(draw() % 3)] }
            maybe { $0.targetScene = DeliveryScenario.TargetScene.allCases[Int(draw() % 3)] }
            maybe { $0.otherActivity = draw() % 2 == 0 }
            maybe { $0.restoration = draw() % 2 == 0 }
            maybe { $0.launchReturnsFalse = draw() % 4 == 0 }
            maybe { $0.handlerMount = DeliveryScenario.HandlerMount.allCases[Int(draw() % 3)] }
            maybe {
                $0.opening =
                    draw() % 5 == 0
                    ? LinkOpening.allCases[Int(draw() % UInt64(LinkOpening.allCases.count))] : .tapInAnotherApp
            }
            actions.append(scenario)
            if RoutingPolicy.delivers(scenario.kind, opening: scenario.opening) {
                (running, foreground) = (true, true)
            } else {
                // The app was quit for a not-running action, sent to the background for a background one.
                running = running && scenario.state != .notRunning
                foreground = foreground && scenario.state == .foreground
            }
        }
        return DeliverySequence(lifecycle: lifecycle, actions: actions)
    }

    /// Runs every action against one app, which a cold launch restarts, and checks the oracles over the whole run.
    public func run(
        _ wiring: DeliverySimulator.Wiring,
        route: @escaping DeliverySimulator.Router = DeliverySimulator.screenPerLink
    ) -> DeliverySimulator.Outcome {
        var trace: [DeviceEvent] = []
        var handled: [(url: String, index: Int)] = []
        var opened: [DeviceEvent.Link] = []
        var app = AppUnderTest(wiring: wiring, route: route)
        var nextID = 0
        var readyMarks: [Int] = []
        for action in actions {
            let urls = DeliverySimulator(action).urls()
            let links = urls.map { url in
                defer { nextID += 1 }
                return DeviceEvent.Link(url: url, deliveryID: nextID, sourceApplication: action.sourceApplication)
            }
            opened += links
            // The user leaves the app before the next link: it goes to the background, or loses its scene.
            var transition: [DeviceEvent] = []
            if !trace.isEmpty {
                switch action.state {
                case .background:
                    transition =
                        lifecycle == .appDelegate ? [.appDidEnterBackground] : [.sceneDidEnterBackground(scene: 1)]
                case .backgroundDetached:
                    transition = [.sceneDidEnterBackground(scene: 1), .sceneDidDisconnect(scene: 1)]
                case .notRunning, .foreground: transition = []
                }
            }
            let events = transition + DeliveryPlanner.trace(action, links: links) + [.tick]
            let readyOffset: Int
            switch action.readyAt {
            case .beforeFirstEvent: readyOffset = 0
            case .afterEvents(let count): readyOffset = min(count, events.count)
            case .afterLastEvent: readyOffset = events.count
            }
            for (offset, event) in events.enumerated() {
                let index = trace.count
                // a new process: nothing survives
                if event == .processLaunch { app = AppUnderTest(wiring: wiring, route: route) }
                if offset == readyOffset, !app.isReady {
                    readyMarks.append(index)
                    handled += app.becomeReady(at: index).map { ($0, index) }
                }
                trace.append(event)
                handled += app.receive(event, at: index).map { ($0, index) }
            }
            if readyOffset == events.count, !app.isReady {
                readyMarks.append(trace.count)
                handled += app.becomeReady(at: trace.count).map { ($0, trace.count) }
            }
        }
        let violations =
            DeliverySimulator.check(trace, handled, readyAt: 0)
            + handled.filter { entry in !readyMarks.contains { $0 <= entry.index } }.map {
                "early: \($0.url) handled before the app was ready"
            }
        return .init(
            trace: trace,
            handled: handled.map(\.url),
            undelivered: DeliverySimulator.undelivered(opened, trace),
            navigation: app.navigation,
            violations: violations + app.navigationViolations(handled: handled.map(\.url))
        )
    }
}

/// SplitMix64: a small, seeded, reproducible generator, for tests that sweep random cases by seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
