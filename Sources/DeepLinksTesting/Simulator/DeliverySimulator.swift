import DeepLinks

/// Runs a scenario against a wiring and checks the oracles of the DocC article "How iOS delivers a link to an app" (DeepLinks): every delivered
/// link handled exactly once, in order, never before the app is ready, byte for byte; cross-channel
/// duplicates merged; genuine repeats kept.
public struct DeliverySimulator: Sendable {
    /// How the app under test turns callbacks into handled links.
    public enum Wiring: String, Sendable, Hashable, CaseIterable {
        /// Every callback forwarded, untouched, to a `LinkInbox`: what the library asks apps to do.
        case library
        /// Only `application(_:open:options:)` and `application(_:continue:)` (P2), handling at once.
        case naiveApplicationDelegateOnly
        /// Only `scene(_:openURLContexts:)` (its first context) and `scene(_:continue:)` (P1, P7), handling at once.
        case naiveWarmSceneCallbacksOnly
        /// Every scene and SwiftUI callback, handling at once, but `.first` of each set (P7, P8).
        case naiveFirstOfEachSet
    }

    public struct Outcome: Sendable {
        public var trace: [DeviceEvent]
        /// The URLs the app handled, in order.
        public var handled: [String]
        /// Links the user opened that iOS never handed the app: sent to the browser (stage 1), the members of
        /// a set SwiftUI does not publish, a publish a profile drops. The oracle expects none of them.
        public var undelivered: [String]
        /// Where the app's navigation ended.
        public var navigation: NavigationState<AnyScreen>
        /// Oracle violations, one sentence each; empty when the run is correct.
        public var violations: [String]
    }

    /// Where the app under test navigates for a link; nil when its route table rejects it. The generic `run`
    /// methods take the app's own `(String) -> NavigationTarget<Screen>?` and erase its screens to ``AnyScreen``.
    public typealias Router = @Sendable (String) -> NavigationTarget<AnyScreen>?

    /// Every link to a screen of its own, on one tab: enough to check the app ends where the last link points.
    public static let screenPerLink: Router = { url in NavigationTarget(tab: "links", path: [AnyScreen("link " + url)])
    }

    public var scenario: DeliveryScenario

    public init(_ scenario: DeliveryScenario) {
        self.scenario = scenario
    }

    /// URL shapes that check byte-exactness (goal 4): repeated keys, `+` and `%2B`, a fragment, non-ASCII,
    /// an address inside a value, and a long one (about 3 KiB).
    public static let urlShapes = [
        "post/10?tag=a&tag=b&q=a+b%2Bc#frag",
        "search?q=caf%C3%A9%20%F0%9F%98%80&e=user%2Btag%40example.com",
        "post/12?ref=" + String(repeating: "%F0%9F%98%80a+b%2B", count: 170) + "#" + String(repeating: "x", count: 100),
    ]

    /// The URLs of one user action in this scenario, from your app's links: `setSize` distinct ones of the
    /// scenario's kind (custom scheme or universal link), from the scenario's `urlShape` on. Give three or more of
    /// each kind to cover the sets of three a scene can receive (with fewer, a set holds as many as there are).
    public func urls(customScheme: [String], universalLinks: [String]) -> [String] {
        var links: [String] = []
        for link in scenario.kind == .universalLink ? universalLinks : customScheme where !links.contains(link) {
            links.append(link)
        }
        guard !links.isEmpty else { return [] }
        return (0..<min(scenario.setSize, links.count)).map { links[(scenario.urlShape + $0) % links.count] }
    }

    /// The default links: ``urlShapes`` on the demo app's scheme and host.
    func urls() -> [String] {
        urls(
            customScheme: Self.urlShapes.map { "demoapp://" + $0 },
            universalLinks: Self.urlShapes.map { "https://links.example.com/" + $0 }
        )
    }

    /// Runs the scenario with the wiring under test.
    /// - Parameters:
    ///   - wiring: how the app under test turns callbacks into handled links.
    ///   - urls: the links of the user action; by default `setSize` links whose shapes test byte-exactness
    ///     (the inbox's own checks: they are the demo app's, `demoapp://` and `links.example.com`). With `route`,
    ///     give your app's links: a `route` without `urls` is a violation, never a pass.
    ///   - route: where your app navigates for a link (your table's destination mapped to its
    ///     `NavigationTarget`), to check the app ends on the right screen. A route that returns nil for every
    ///     handled link checks nothing: a violation.
    public func run(_ wiring: Wiring, urls: [String]? = nil, route: Router? = nil) -> Outcome {
        let appRoute = route
        let route = appRoute ?? Self.screenPerLink
        let (links, trace) = plannedTrace(urls: urls)
        let readyIndex = readyIndex(in: trace)

        var app = AppUnderTest(wiring: wiring, route: route, active: scenario.state == .foreground)
        var handledAt: [(url: String, index: Int)] = []
        var readyAt = Int.max
        for index in 0...trace.count {
            if index == readyIndex {
                readyAt = index
                handledAt += app.becomeReady(at: index).map { ($0, index) }
            }
            guard index < trace.count else { break }
            handledAt += app.receive(trace[index], at: index).map { ($0, index) }
        }
        return Outcome(
            trace: trace,
            handled: handledAt.map(\.url),
            undelivered: Self.undelivered(links, trace),
            navigation: app.navigation,
            violations: Self.check(trace, handledAt, readyAt: readyAt)
                + app.navigationViolations(handled: handledAt.map(\.url))
                + Self.routeViolations(urls: urls, handled: handledAt.map(\.url), route: appRoute)
        )
    }

    /// The same, with your app's own screens (`route` maps a URL to your `NavigationTarget`).
    public func run<Screen: Hashable & Sendable>(
        _ wiring: Wiring,
        urls: [String],
        route: @escaping @Sendable (String) -> NavigationTarget<Screen>?
    ) -> Outcome {
        let erased: Router? = { route($0).map(AnyScreen.erase) }
        return run(wiring, urls: urls, route: erased)
    }

    /// Oracle of the test itself: a `route` given to check your app must meet your app's links, and take them.
    static func routeViolations(urls: [String]?, handled: [String], route: Router?) -> [String] {
        guard let route else { return [] }
        guard urls != nil else {
            return [
                "route given without urls: the default links are the demo app's (demoapp://, links.example.com), "
                    + "which your table does not take; pass your own links with urls:"
            ]
        }
        guard !handled.isEmpty, handled.allSatisfy({ route($0) == nil }) else { return [] }
        return ["route returned nil for every handled link (\(handled.first!)...): your table takes none of them"]
    }

    /// The links of the user action and the callbacks iOS makes for them, the repeat included.
    func plannedTrace(urls given: [String]?) -> (links: [DeviceEvent.Link], trace: [DeviceEvent]) {
        var links = (given ?? urls()).enumerated().map {
            DeviceEvent.Link(url: $0.element, deliveryID: $0.offset, sourceApplication: scenario.sourceApplication)
        }
        var trace = DeliveryPlanner.trace(scenario, links: links)
        if scenario.repeatLink {
            // The same link opened again, now with the app in the foreground: a second, genuine delivery.
            appendRepeat(in: .foreground, after: [.tick, .tick, .tick], links: &links, trace: &trace)
        }
        return (links, trace)
    }

    /// The first link opened again, as a second, genuine delivery, after `prefix`, with the app in `state`.
    func appendRepeat(
        in state: DeliveryScenario.AppState,
        after prefix: [DeviceEvent],
        links: inout [DeviceEvent.Link],
        trace: inout [DeviceEvent]
    ) {
        var later = DeliveryScenario(lifecycle: scenario.lifecycle, state: state, kind: scenario.kind)
        later.universalLinkChannel = scenario.universalLinkChannel
        let again = DeviceEvent.Link(url: links[0].url, deliveryID: links.count)
        links.append(again)
        trace += prefix + DeliveryPlanner.trace(later, links: [again])
    }

    /// What an app shows after restoring the state it saved at its last run.
    static func restored(_ screen: String) -> NavigationState<AnyScreen> {
        NavigationState(selectedTab: "restored", stacks: ["restored": [AnyScreen(screen)]])
    }

    /// Oracle: the app shows the destination of the last link it handled (restored state must not win, P9).
    static func screenViolations(last: String?, _ navigation: NavigationState<AnyScreen>, _ route: Router) -> [String] {
        guard let last, let target = route(last), !navigation.isShowing(target) else { return [] }
        return ["wrong screen: after \(last) the app shows \(navigation)"]
    }

    /// The index of the event before which the app declares itself ready (`trace.count`: after the last).
    func readyIndex(in trace: [DeviceEvent]) -> Int {
        switch scenario.readyAt {
        case .beforeFirstEvent: 0
        case .afterEvents(let count): min(count, trace.count)
        case .afterLastEvent: trace.count
        }
    }

    static func undelivered(_ links: [DeviceEvent.Link], _ trace: [DeviceEvent]) -> [String] {
        let delivered = Set(trace.flatMap(\.links).map(\.deliveryID))
        return links.filter { !delivered.contains($0.deliveryID) }.map(\.url)
    }

    /// The oracles. The expected links are those the trace carries at all: SwiftUI publishes one member of a
    /// set, so iOS itself never hands the app the others.
    static func check(_ trace: [DeviceEvent], _ handled: [(url: String, index: Int)], readyAt: Int) -> [String] {
        var expected: [Int: String] = [:]
        for event in trace { for link in event.links where link.isDelivery { expected[link.deliveryID] = link.url } }
        let expectedInOrder = expected.keys.sorted().map { expected[$0]! }
        var violations: [String] = []
        let handledURLs = handled.map(\.url)
        for url in Set(expectedInOrder) {
            let want = expectedInOrder.filter { $0 == url }.count
            let got = handledURLs.filter { $0 == url }.count
            if got < want { violations.append("lost: \(url) handled \(got) of \(want) times") }
            if got > want { violations.append("duplicated: \(url) handled \(got) times for \(want) deliveries") }
        }
        for url in Set(handledURLs) where !expectedInOrder.contains(url) {
            violations.append("altered or invented: \(url) was never delivered")
        }
        for entry in handled where entry.index < readyAt {
            violations.append("early: \(entry.url) handled before the app was ready")
        }
        // Order and causality: the k-th handling of a URL answers its k-th delivery, and never comes before it.
        var firstSeen: [Int: Int] = [:]
        for (index, event) in trace.enumerated() {
            for link in event.links where link.isDelivery && firstSeen[link.deliveryID] == nil {
                firstSeen[link.deliveryID] = index
            }
        }
        for url in Set(expectedInOrder) {
            let deliveries = expected.keys.filter { expected[$0] == url }.sorted()
            let handlings = handled.filter { $0.url == url }.map(\.index)
            for (delivery, handledAt) in zip(deliveries, handlings) where handledAt < firstSeen[delivery]! {
                violations.append(
                    "out of order: \(url) handled at event \(handledAt), before its delivery at \(firstSeen[delivery]!)"
                )
            }
        }
        return violations
    }
}

/// The app model the simulator drives: its glue transcribes each callback; its core (the inbox) decides;
/// each handled link moves its navigation by a ``NavigationPlan``, and restored state replaces it.
struct AppUnderTest {
    let wiring: DeliverySimulator.Wiring
    let route: DeliverySimulator.Router
    var inbox = LinkInbox()
    var isReady = false
    var navigation = NavigationState<AnyScreen>()
    /// Run-loop turns seen so far.
    var turn = 0

    /// - Parameter active: whether the app is in the foreground when the run starts.
    init(wiring: DeliverySimulator.Wiring, route: @escaping DeliverySimulator.Router, active: Bool = false) {
        self.wiring = wiring
        self.route = route
        if active { _ = inbox.setActive(true, at: .zero) }
    }

    /// A tick is a run-loop turn of 100 ms; events within one turn are 1 ms apart.
    func time(_ index: Int) -> Duration { .milliseconds(100 * turn + index) }

    mutating func becomeReady(at index: Int) -> [String] {
        isReady = true
        guard wiring == .library else { return [] }
        return navigate(inbox.setReady(true, at: time(index)))
    }

    mutating func receive(_ event: DeviceEvent, at index: Int) -> [String] {
        switch event {
        case .tick:
            turn += 1
        case .stateRestoration(_, let screen):
            // Every wiring restores as the app launches or the scene connects, before it reads the link.
            navigation = DeliverySimulator.restored(screen)
        default: break
        }
        switch wiring {
        case .library:
            switch event {
            case .appDidBecomeActive, .sceneDidBecomeActive, .swiftUIPhaseActive:
                return navigate(inbox.setActive(true, at: time(index)))
            case .appDidEnterBackground, .sceneDidEnterBackground, .sceneDidDisconnect:
                return navigate(inbox.setActive(false, at: time(index)))
            default:
                var actions: [LinkInbox.Action] = []
                for (url, channel, _) in Self.transcribe(event) {
                    actions += inbox.receive(url, via: channel, at: time(index))
                }
                return navigate(actions)
            }
        case .naiveApplicationDelegateOnly:
            switch event {
            case .appOpenURL(let link), .appContinueUserActivity(let link): return handleAtOnce([link.url])
            default: return []
            }
        case .naiveWarmSceneCallbacksOnly:
            switch event {
            case .sceneOpenURLContexts(_, let contexts): return handleAtOnce([contexts[0].url])
            case .sceneContinueUserActivity(_, let link): return handleAtOnce([link.url])
            default: return []
            }
        case .naiveFirstOfEachSet:
            switch event {
            case .sceneWillConnect(_, let contexts, let activities):
                return handleAtOnce([(contexts.first ?? activities.first)?.url].compactMap { $0 })
            case .sceneOpenURLContexts(_, let contexts): return handleAtOnce([contexts[0].url])
            case .sceneContinueUserActivity(_, let link), .swiftUIOpenURL(_, let link): return handleAtOnce([link.url])
            default: return []
            }
        }
    }

    /// The glue the library asks apps to paste: each callback's payload, untouched, with its channel; an
    /// activity counts only when ``LinkInbox/link(activityType:webpageURL:)`` says it is a link.
    /// It reads `url`, `activityType` and, where UIKit gives it, `sourceApplication`; never `deliveryID`.
    static func transcribe(_ event: DeviceEvent) -> [(String, LinkChannel, sender: String?)] {
        func link(_ activity: DeviceEvent.Link) -> String? {
            LinkInbox.link(activityType: activity.activityType ?? "", webpageURL: activity.url)
        }
        switch event {
        case .appDidFinishLaunching(let url, let activity):
            return (url.map { [($0.url, LinkChannel.launchOptionsURL, $0.sourceApplication)] } ?? [])
                + (activity.flatMap(link).map { [($0, .launchOptionsUserActivity, nil)] } ?? [])
        case .appOpenURL(let context): return [(context.url, .applicationOpenURL, context.sourceApplication)]
        case .appContinueUserActivity(let activity):
            return link(activity).map { [($0, .applicationContinueUserActivity, nil)] } ?? []
        case .sceneWillConnect(_, let contexts, let activities):
            return contexts.map { ($0.url, .sceneConnectionURLContext, $0.sourceApplication) }
                + activities.compactMap(link).map { ($0, .sceneConnectionUserActivity, nil) }
        case .sceneOpenURLContexts(_, let contexts):
            return contexts.map { ($0.url, .sceneOpenURLContexts, $0.sourceApplication) }
        case .sceneContinueUserActivity(_, let activity):
            return link(activity).map { [($0, .sceneContinueUserActivity, nil)] } ?? []
        case .swiftUIOpenURL(_, let url): return [(url.url, .onOpenURL, nil)]  // SwiftUI names no sender
        case .swiftUIContinue(_, let activity):
            return link(activity).map { [($0, .onContinueUserActivity, nil)] } ?? []
        default: return []
        }
    }

    /// A naive wiring handles a link the moment it sees it, and can do so only once its UI exists.
    private mutating func handleAtOnce(_ urls: [String]) -> [String] {
        guard isReady else { return [] }
        for url in urls { go(to: url) }
        return urls
    }

    private mutating func navigate(_ actions: [LinkInbox.Action]) -> [String] {
        let urls = actions.compactMap { action -> String? in
            if case .handle(let delivery) = action { delivery.url } else { nil }
        }
        for url in urls { go(to: url) }
        return urls
    }

    private mutating func go(to url: String) {
        guard let target = route(url) else { return }
        navigation = NavigationPlan(from: navigation, to: target).applied(to: navigation)
    }

    func navigationViolations(handled: [String]) -> [String] {
        DeliverySimulator.screenViolations(last: handled.last, navigation, route)
    }
}
