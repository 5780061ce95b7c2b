/// Stage 2 of specs/ios-delivery.md §5.4: the exact callback sequence iOS produces for one cell, with the
/// scenario's knobs applied. One scene (ID 1) takes the links.
public enum DeliveryPlanner {
    /// The events for one user action opening `links` (a set delivered together) in `scenario`'s cell.
    public static func trace(_ scenario: DeliveryScenario, links: [DeviceEvent.Link]) -> [DeviceEvent] {
        let set = scenario.reverseSet ? Array(links.reversed()) : links
        let first = set[0]
        let ul = scenario.kind == .universalLink
        let cold = scenario.state == .notRunning
        let detached = scenario.state == .backgroundDetached
        var events: [DeviceEvent] = cold ? [.processLaunch] : []

        switch scenario.lifecycle {
        case .appDelegate:
            // One URL per callback: A has no sets (A1–A6).
            switch scenario.state {
            case .notRunning:
                events.append(.appDidFinishLaunching(url: ul ? nil : first, userActivity: ul ? first : nil))
                events.append(ul ? .appContinueUserActivity(first) : .appOpenURL(first))
                events.append(.appDidBecomeActive)
            case .background, .backgroundDetached:
                events += [.appWillEnterForeground, ul ? .appContinueUserActivity(first) : .appOpenURL(first), .appDidBecomeActive]
            case .foreground:
                events.append(ul ? .appContinueUserActivity(first) : .appOpenURL(first))
            }

        case .sceneDelegate:
            if cold || detached {
                if cold { events.append(.appDidFinishLaunching(url: nil, userActivity: nil)) }  // F1: nil options
                events.append(.sceneWillConnect(scene: 1, urlContexts: ul ? [] : set, userActivities: ul ? [first] : []))
                events += [.sceneWillEnterForeground(scene: 1), .sceneDidBecomeActive(scene: 1)]
            } else {
                let delivery: DeviceEvent = ul ? .sceneContinueUserActivity(scene: 1, first) : .sceneOpenURLContexts(scene: 1, set)
                events += scenario.state == .background
                    ? [.sceneWillEnterForeground(scene: 1), delivery, .sceneDidBecomeActive(scene: 1)]
                    : [delivery]
            }

        case .swiftUI, .swiftUIWithAdaptor:
            let adaptor = scenario.lifecycle == .swiftUIWithAdaptor
            // SwiftUI publishes one context only ([R], P7); a universal link goes to onOpenURL, or (Camera-app
            // report) to onContinueUserActivity, or both.
            var publish: [DeviceEvent] = []
            if !ul || scenario.universalLinkChannel != .continueUserActivity { publish.append(.swiftUIOpenURL(scene: 1, first)) }
            if ul && scenario.universalLinkChannel != .openURL { publish.append(.swiftUIContinue(scene: 1, first)) }
            if cold || detached {
                if cold, adaptor { events.append(.appDidFinishLaunching(url: nil, userActivity: nil)) }
                if adaptor {
                    // D: the app's own scene delegate gets the full connection options.
                    events.append(.sceneWillConnect(scene: 1, urlContexts: ul ? [] : set, userActivities: ul ? [first] : []))
                }
                events.append(.swiftUIBody(scene: 1))
                events += Array(repeating: .tick, count: scenario.swiftUIDelay)
                events += publish
                events.append(.swiftUIPhaseActive(scene: 1))
            } else {
                events += publish
                if adaptor, !ul {
                    // D3/D5: the full set is forwarded to the app's scene delegate after the publish ([R]).
                    events.append(.sceneOpenURLContexts(scene: 1, set))
                }
                if scenario.state == .background { events.append(.swiftUIPhaseActive(scene: 1)) }
            }
        }
        return events
    }
}
