/// One cell of the delivery table of the DocC article "How iOS delivers a link to an app" (DeepLinks), with its knobs.
public struct DeliveryScenario: Sendable, Hashable, CustomStringConvertible {
    public enum Lifecycle: String, Sendable, Hashable, CaseIterable {
        /// UIKit, app delegate only.
        case appDelegate = "A"
        /// UIKit with a scene delegate.
        case sceneDelegate = "B"
        /// SwiftUI `App`, no adaptor.
        case swiftUI = "C"
        /// SwiftUI `App` with `@UIApplicationDelegateAdaptor` and the app's own scene delegate.
        case swiftUIWithAdaptor = "D"
    }

    public enum AppState: String, Sendable, Hashable, CaseIterable {
        case notRunning = "NR"
        case background = "BG"
        /// Scene life cycles only: the process lives, its scene was disconnected.
        case backgroundDetached = "BG-D"
        case foreground = "FG"
    }

    public enum LinkKind: String, Sendable, Hashable, CaseIterable {
        case customScheme = "CS"
        case universalLink = "UL"
    }

    /// When the app declares itself ready (P6).
    public enum ReadyAt: Sendable, Hashable {
        case beforeFirstEvent
        /// After this many events of the trace.
        case afterEvents(Int)
        case afterLastEvent
    }

    /// Which SwiftUI channel carries a universal link (P11; the Camera-app report of C4).
    public enum UniversalLinkChannel: String, Sendable, Hashable, CaseIterable {
        case openURL, continueUserActivity, both
    }

    /// Which scene a foreground link reaches in a multi-window app (§2.6, P13).
    public enum TargetScene: String, Sendable, Hashable, CaseIterable {
        /// The scene on screen (ID 1).
        case current
        /// Another connected scene (ID 2).
        case other
        /// A new scene (ID 3), which sees the link as a cold connection while the process is warm.
        case new

        var id: Int {
            switch self {
            case .current: 1
            case .other: 2
            case .new: 3
            }
        }
    }

    /// When the view carrying SwiftUI's handlers mounts, at a cold connection (P10).
    public enum HandlerMount: String, Sendable, Hashable, CaseIterable {
        case atFirstRender
        /// After the publish: SwiftUI queues the event, as nothing had subscribed yet, and replays it ([R]).
        case afterPublish
        /// Mounted, unmounted and mounted again (a view rebuilt) before the publish.
        case remountedBeforePublish
    }

    public var lifecycle: Lifecycle
    public var state: AppState
    public var kind: LinkKind
    /// How many URLs one delivery carries (1 to 3; P7); SwiftUI publishes only the first.
    public var setSize: Int = 1
    /// Which order a set comes in, as an index into the set's permutations (sets have no order: F7, F9).
    public var setOrder: Int = 0
    /// Which shape the first URL of the set has (see ``DeliverySimulator/urlShapes``); the next ones follow.
    public var urlShape: Int = 0
    public var readyAt: ReadyAt = .afterLastEvent
    public var universalLinkChannel: UniversalLinkChannel = .openURL
    /// Ticks between SwiftUI's first render and its publish.
    public var swiftUIDelay: Int = 1
    /// The same link opened again as a second, genuine delivery (goal 5).
    public var repeatLink: Bool = false
    /// The app or scene becomes active before the link's callback rather than after it (lifecycleInterleave);
    /// in A's foreground, a resign-active/become-active pair around the callback.
    public var activeBeforeLink: Bool = false
    /// Foreground links of scene life cycles: which scene gets them.
    public var targetScene: TargetScene = .current
    /// A universal link's connection options also hold an activity that is not a link, first (P8).
    public var otherActivity: Bool = false
    /// The app restores saved UI state as it launches or its scene reconnects (§2.7, P9).
    public var restoration: Bool = false
    /// A1/A2: the launch method returns false, so `open`/`continue` never come (F4, P5).
    public var launchReturnsFalse: Bool = false
    public var handlerMount: HandlerMount = .atFirstRender
    /// Profile fb17446617: SwiftUI drops a cold-start publish (C and D, not running).
    public var dropsColdSwiftUIPublish: Bool = false
    /// The sender's bundle ID on every link: nil (another team) or the app's own team.
    public var sourceApplication: String? = nil
    /// How the user opens the link (stage 1): a universal link opened some ways never reaches the app.
    public var opening: LinkOpening = .tapInAnotherApp

    public init(lifecycle: Lifecycle, state: AppState, kind: LinkKind) {
        self.lifecycle = lifecycle
        self.state = state
        self.kind = kind
    }

    /// The cell name of the table, as `B3d` or `C2`.
    public var cell: String {
        let column: Int
        switch (state, kind) {
        case (.notRunning, .customScheme): column = 1
        case (.notRunning, .universalLink): column = 2
        case (.background, .customScheme), (.backgroundDetached, .customScheme): column = 3
        case (.background, .universalLink), (.backgroundDetached, .universalLink): column = 4
        case (.foreground, .customScheme): column = 5
        case (.foreground, .universalLink): column = 6
        }
        return lifecycle.rawValue + String(column) + (state == .backgroundDetached ? "d" : "")
    }

    var isSwiftUI: Bool { lifecycle == .swiftUI || lifecycle == .swiftUIWithAdaptor }

    /// Whether the scene connects for this link (a launch, a detached scene, or a new window).
    var connects: Bool {
        state == .notRunning || state == .backgroundDetached || targetScene == .new
    }

    /// Whether the cell exists and each knob applies to it: an app-delegate app has no scene; only a launch
    /// method can return false; only SwiftUI mounts handlers; a restored state needs a launch or a reconnection.
    public var isValid: Bool {
        (1...3).contains(setSize) && (0..<Self.factorial(setSize)).contains(setOrder)
            && !(lifecycle == .appDelegate && (state == .backgroundDetached || targetScene != .current))
            && (targetScene == .current || state == .foreground)
            && (!launchReturnsFalse || (lifecycle == .appDelegate && state == .notRunning))
            && (handlerMount == .atFirstRender || (isSwiftUI && connects))
            && (!dropsColdSwiftUIPublish || (isSwiftUI && state == .notRunning))
            && (!restoration || state == .notRunning || state == .backgroundDetached)
            && (!otherActivity || kind == .universalLink)
            && (universalLinkChannel == .openURL || kind == .universalLink)
    }

    static func factorial(_ n: Int) -> Int { (1...max(n, 1)).reduce(1, *) }

    /// `items` in the order `setOrder` picks among their permutations.
    func ordered<T>(_ items: [T]) -> [T] {
        var pool = items
        var index = setOrder
        var result: [T] = []
        while !pool.isEmpty {
            let block = Self.factorial(pool.count - 1)
            result.append(pool.remove(at: (index / block) % pool.count))
            index %= block
        }
        return result
    }

    public var description: String {
        var knobs = ["set=\(setSize)", "ready=\(readyAt)"]
        if setOrder != 0 { knobs.append("order=\(setOrder)") }
        if urlShape != 0 { knobs.append("shape=\(urlShape)") }
        if kind == .universalLink { knobs.append("ul=\(universalLinkChannel.rawValue)") }
        if isSwiftUI { knobs.append("delay=\(swiftUIDelay)") }
        if repeatLink { knobs.append("repeat") }
        if activeBeforeLink { knobs.append("activeFirst") }
        if targetScene != .current { knobs.append("scene=\(targetScene.rawValue)") }
        if otherActivity { knobs.append("otherActivity") }
        if restoration { knobs.append("restoration") }
        if launchReturnsFalse { knobs.append("launchReturnsFalse") }
        if handlerMount != .atFirstRender { knobs.append("mount=\(handlerMount.rawValue)") }
        if dropsColdSwiftUIPublish { knobs.append("fb17446617") }
        if let sourceApplication { knobs.append("source=\(sourceApplication)") }
        if opening != .tapInAnotherApp { knobs.append("opening=\(opening.rawValue)") }
        return "\(cell) " + knobs.joined(separator: " ")
    }

    /// The one combination the library cannot tell apart (README, "Known limits"): D2 under fb17446617
    /// (SwiftUI drops the cold publish, the app's scene delegate has the link) and the same universal link
    /// tapped again within the duplicate window with no background trip between. The second tap comes
    /// through `onOpenURL` alone, exactly as the dropped publish would have, and is merged with the first.
    public var isKnownLimit: Bool {
        lifecycle == .swiftUIWithAdaptor && kind == .universalLink && dropsColdSwiftUIPublish && repeatLink
    }

    /// Every valid cell with default knobs.
    public static var allCells: [DeliveryScenario] {
        Lifecycle.allCases.flatMap { lifecycle in
            AppState.allCases.flatMap { state in
                LinkKind.allCases.map { DeliveryScenario(lifecycle: lifecycle, state: state, kind: $0) }
            }
        }.filter(\.isValid)
    }
}

extension DeliveryScenario {
    /// The full sweep: every cell × every set size and order × every `readyAt` × interleave × repeat ×
    /// each knob where it applies (scene, restoration, launch returning false, handler mount, dropped
    /// publish, extra activity, universal-link channel); the URL shape, SwiftUI delay, sender and opening
    /// drawn from a seeded generator for each scenario, so a seed reproduces the sweep.
    public static func grid(seed: UInt64 = 0) -> [DeliveryScenario] {
        var scenarios = allCells
        func expand(_ variants: [(inout DeliveryScenario) -> Void]) {
            scenarios = scenarios.flatMap { scenario in
                variants.map { change in
                    var variant = scenario
                    change(&variant)
                    return variant
                }.filter(\.isValid)
            }
        }
        expand(
            (1...3).flatMap { size in
                (0..<factorial(size)).map { order in
                    {
                        $0.setSize = size; $0.setOrder = order
                    }
                }
            }
        )
        expand(
            [ReadyAt.beforeFirstEvent, .afterEvents(1), .afterEvents(2), .afterLastEvent].map { ready in
                { $0.readyAt = ready }
            }
        )
        expand([{ $0.activeBeforeLink = false }, { $0.activeBeforeLink = true }])
        expand([{ $0.repeatLink = false }, { $0.repeatLink = true }])
        expand(TargetScene.allCases.map { target in { $0.targetScene = target } })
        expand([{ $0.restoration = false }, { $0.restoration = true }])
        expand([{ $0.launchReturnsFalse = false }, { $0.launchReturnsFalse = true }])
        expand(HandlerMount.allCases.map { mount in { $0.handlerMount = mount } })
        expand([{ $0.dropsColdSwiftUIPublish = false }, { $0.dropsColdSwiftUIPublish = true }])
        expand([{ $0.otherActivity = false }, { $0.otherActivity = true }])
        expand(UniversalLinkChannel.allCases.map { channel in { $0.universalLinkChannel = channel } })
        var generator = SplitMix64(seed: seed)
        return scenarios.map { scenario in
            var scenario = scenario
            scenario.urlShape = Int(generator.next() % UInt64(DeliverySimulator.urlShapes.count))
            scenario.swiftUIDelay = Int(generator.next() % 4)
            scenario.sourceApplication = generator.next() % 2 == 0 ? nil : "com.example.demo.widget"
            if scenario.kind == .universalLink, generator.next() % 8 == 0 {
                scenario.opening = LinkOpening.allCases[Int(generator.next() % UInt64(LinkOpening.allCases.count))]
            }
            return scenario
        }
    }
}
