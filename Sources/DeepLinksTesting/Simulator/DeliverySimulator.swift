import DeepLinks

/// Runs a scenario against a wiring and checks the oracles of specs/ios-delivery.md §5.6: every delivered
/// link handled exactly once, in order, never before the app is ready, byte for byte; cross-channel
/// duplicates merged; genuine repeats kept.
public struct DeliverySimulator: Sendable {
    /// How the app under test turns callbacks into handled links.
    public enum Wiring: String, Sendable, Hashable, CaseIterable {
        /// Every callback forwarded, untouched, to a ``LinkInbox``: what the library asks apps to do.
        case library
        /// Only `application(_:open:options:)` and `application(_:continue:)` (P2), handling at once.
        case naiveApplicationDelegateOnly
        /// Only `scene(_:openURLContexts:)` (its first context) and `scene(_:continue:)` (P1, P7), handling at once.
        case naiveWarmSceneCallbacksOnly
    }

    public struct Outcome: Sendable {
        public var trace: [DeviceEvent]
        /// The URLs the app handled, in order.
        public var handled: [String]
        /// Oracle violations, one sentence each; empty when the run is correct.
        public var violations: [String]
    }

    public var scenario: DeliveryScenario

    public init(_ scenario: DeliveryScenario) {
        self.scenario = scenario
    }

    /// The URLs of one user action: a set of `setSize` links whose shape checks byte-exactness (goal 4).
    func urls() -> [String] {
        let base = scenario.kind == .universalLink ? "https://links.example.com" : "demoapp://"
        let shapes = ["post/10?tag=a&tag=b&q=a+b%2Bc#frag", "search?q=caf%C3%A9%20%F0%9F%98%80&e=user%2Btag%40example.com"]
        return (0..<scenario.setSize).map { index in
            scenario.kind == .universalLink ? base + "/" + shapes[index % 2] : base + shapes[index % 2]
        }
    }

    /// Runs the scenario with the wiring under test.
    /// - Parameter urls: the links of the user action; by default `setSize` links whose shapes test
    ///   byte-exactness. Give real ones (a reset link from a real message, say) to follow them to the app.
    public func run(_ wiring: Wiring, urls given: [String]? = nil) -> Outcome {
        var links = (given ?? urls()).enumerated().map { DeviceEvent.Link(url: $0.element, deliveryID: $0.offset) }
        var trace = DeliveryPlanner.trace(scenario, links: links)
        if scenario.repeatLink {
            // The same link opened again, now with the app in the foreground: a second, genuine delivery.
            var warm = scenario
            warm.state = .foreground
            let again = DeviceEvent.Link(url: links[0].url, deliveryID: links.count)
            links.append(again)
            trace += [.tick, .tick, .tick] + DeliveryPlanner.trace(warm, links: [again])
        }
        let readyIndex: Int
        switch scenario.readyAt {
        case .beforeFirstEvent: readyIndex = 0
        case .afterEvents(let count): readyIndex = min(count, trace.count)
        case .afterLastEvent: readyIndex = trace.count
        }

        var app = AppUnderTest(wiring: wiring, active: scenario.state == .foreground)
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
        return Outcome(trace: trace, handled: handledAt.map(\.url), violations: Self.check(trace, handledAt, readyAt: readyAt))
    }

    /// The oracles. The expected links are those the trace carries at all: SwiftUI publishes one member of a
    /// set, so iOS itself never hands the app the others.
    static func check(_ trace: [DeviceEvent], _ handled: [(url: String, index: Int)], readyAt: Int) -> [String] {
        var expected: [Int: String] = [:]
        for event in trace { for link in event.links { expected[link.deliveryID] = link.url } }
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
            for link in event.links where firstSeen[link.deliveryID] == nil { firstSeen[link.deliveryID] = index }
        }
        for url in Set(expectedInOrder) {
            let deliveries = expected.keys.filter { expected[$0] == url }.sorted()
            let handlings = handled.filter { $0.url == url }.map(\.index)
            for (delivery, handledAt) in zip(deliveries, handlings) where handledAt < firstSeen[delivery]! {
                violations.append("out of order: \(url) handled at event \(handledAt), before its delivery at \(firstSeen[delivery]!)")
            }
        }
        return violations
    }
}

/// The app model the simulator drives: its glue transcribes each callback; its core decides.
struct AppUnderTest {
    let wiring: DeliverySimulator.Wiring
    var inbox = LinkInbox()
    var isReady = false

    /// - Parameter active: whether the app is in the foreground when the run starts.
    init(wiring: DeliverySimulator.Wiring, active: Bool = false) {
        self.wiring = wiring
        if active { _ = inbox.setActive(true, at: .zero) }
    }

    /// Run-loop turns seen so far.
    var turn = 0

    /// A tick is a run-loop turn of 100 ms; events within one turn are 1 ms apart.
    func time(_ index: Int) -> Duration { .milliseconds(100 * turn + index) }

    mutating func becomeReady(at index: Int) -> [String] {
        isReady = true
        guard wiring == .library else { return [] }
        return Self.handled(inbox.setReady(true, at: time(index)))
    }

    mutating func receive(_ event: DeviceEvent, at index: Int) -> [String] {
        switch wiring {
        case .library:
            switch event {
            case .tick:
                turn += 1
            case .appDidBecomeActive, .sceneDidBecomeActive, .swiftUIPhaseActive:
                return Self.handled(inbox.setActive(true, at: time(index)))
            case .appDidEnterBackground, .sceneDidEnterBackground, .sceneDidDisconnect:
                return Self.handled(inbox.setActive(false, at: time(index)))
            default: break
            }
            var actions: [LinkInbox.Action] = []
            for (url, channel) in Self.transcribe(event) {
                actions += inbox.receive(url, via: channel, at: time(index))
            }
            return Self.handled(actions)
        case .naiveApplicationDelegateOnly:
            switch event {
            case .appOpenURL(let link), .appContinueUserActivity(let link): return isReady ? [link.url] : []
            default: return []
            }
        case .naiveWarmSceneCallbacksOnly:
            switch event {
            case .sceneOpenURLContexts(_, let contexts): return isReady ? [contexts[0].url] : []
            case .sceneContinueUserActivity(_, let link): return isReady ? [link.url] : []
            default: return []
            }
        }
    }

    /// The glue the library asks apps to paste: each callback's payload, untouched, with its channel.
    /// It reads `url`, never `deliveryID`.
    static func transcribe(_ event: DeviceEvent) -> [(String, LinkChannel)] {
        switch event {
        case .appDidFinishLaunching(let url, let activity):
            return (url.map { [($0.url, LinkChannel.launchOptionsURL)] } ?? []) + (activity.map { [($0.url, .launchOptionsUserActivity)] } ?? [])
        case .appOpenURL(let link): return [(link.url, .applicationOpenURL)]
        case .appContinueUserActivity(let link): return [(link.url, .applicationContinueUserActivity)]
        case .sceneWillConnect(_, let contexts, let activities):
            return contexts.map { ($0.url, .sceneConnectionURLContext) } + activities.map { ($0.url, .sceneConnectionUserActivity) }
        case .sceneOpenURLContexts(_, let contexts): return contexts.map { ($0.url, .sceneOpenURLContexts) }
        case .sceneContinueUserActivity(_, let link): return [(link.url, .sceneContinueUserActivity)]
        case .swiftUIOpenURL(_, let link): return [(link.url, .onOpenURL)]
        case .swiftUIContinue(_, let link): return [(link.url, .onContinueUserActivity)]
        default: return []
        }
    }

    static func handled(_ actions: [LinkInbox.Action]) -> [String] {
        actions.compactMap { if case .handle(let delivery) = $0 { delivery.url } else { nil } }
    }
}
