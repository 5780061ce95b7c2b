/// The simulator's second stage: the exact callback sequence iOS produces for one cell, with the
/// scenario's knobs applied.
public enum DeliveryPlanner {
    /// An activity that is not a link (a Handoff-style activity with a web page): never to be handled (P8).
    static let otherActivity = DeviceEvent.Link(
        url: "https://links.example.com/post/99",
        deliveryID: -1,
        activityType: "com.example.demo.viewing-post"
    )

    /// The events for one user action opening `links` (a set delivered together) in `scenario`'s cell;
    /// none when iOS sends the link to the browser (stage 1).
    public static func trace(_ scenario: DeliveryScenario, links: [DeviceEvent.Link]) -> [DeviceEvent] {
        guard RoutingPolicy.delivers(scenario.kind, opening: scenario.opening) else { return [] }
        let set = scenario.ordered(links)
        let ul = scenario.kind == .universalLink
        let activity = set[0].asActivity
        let contexts = ul ? [] : set
        let activities = ul ? (scenario.otherActivity ? [otherActivity, activity] : [activity]) : []
        let cold = scenario.state == .notRunning
        let scene = scenario.targetScene.id
        var events: [DeviceEvent] = cold ? [.processLaunch] : []
        let restoration: [DeviceEvent] =
            scenario.restoration
            ? [.stateRestoration(scene: scenario.lifecycle == .appDelegate ? nil : scene, screen: "restored")]
            : []

        /// The link's callbacks and the activation, in the order the interleave knob chose.
        func around(_ delivery: [DeviceEvent], _ activation: DeviceEvent) -> [DeviceEvent] {
            scenario.activeBeforeLink ? [activation] + delivery : delivery + [activation]
        }

        switch scenario.lifecycle {
        case .appDelegate:
            // One URL per callback: A has no sets (A1–A6).
            let delivery: [DeviceEvent] = [ul ? .appContinueUserActivity(activity) : .appOpenURL(set[0])]
            switch scenario.state {
            case .notRunning:
                events += restoration  // F3: before didFinishLaunching
                events.append(.appDidFinishLaunching(url: ul ? nil : set[0], userActivity: ul ? activity : nil))
                events += around(scenario.launchReturnsFalse ? [] : delivery, .appDidBecomeActive)  // F4
            case .background, .backgroundDetached:
                events += [.appWillEnterForeground] + around(delivery, .appDidBecomeActive)
            case .foreground:
                events +=
                    scenario.activeBeforeLink ? [.appWillResignActive] + delivery + [.appDidBecomeActive] : delivery
            }

        case .sceneDelegate:
            if scenario.connects {
                if cold { events.append(.appDidFinishLaunching(url: nil, userActivity: nil)) }  // F1: nil options
                events += restoration
                events.append(.sceneWillConnect(scene: scene, urlContexts: contexts, userActivities: activities))
                events += [.sceneWillEnterForeground(scene: scene), .sceneDidBecomeActive(scene: scene)]
            } else {
                let delivery: DeviceEvent =
                    ul ? .sceneContinueUserActivity(scene: scene, activity) : .sceneOpenURLContexts(scene: scene, set)
                events +=
                    scenario.state == .background
                    ? [.sceneWillEnterForeground(scene: scene)]
                        + around([delivery], .sceneDidBecomeActive(scene: scene))
                    : [delivery]
            }

        case .swiftUI, .swiftUIWithAdaptor:
            let adaptor = scenario.lifecycle == .swiftUIWithAdaptor
            // SwiftUI publishes one context only ([R], P7); a universal link goes to onOpenURL, or (Camera-app
            // report) to onContinueUserActivity, or both.
            var publish: [DeviceEvent] = []
            if !ul || scenario.universalLinkChannel != .continueUserActivity {
                publish.append(.swiftUIOpenURL(scene: scene, set[0]))
            }
            if ul && scenario.universalLinkChannel != .openURL {
                publish.append(.swiftUIContinue(scene: scene, activity))
            }
            if scenario.connects {
                if cold, adaptor { events.append(.appDidFinishLaunching(url: nil, userActivity: nil)) }
                events += restoration
                if adaptor {
                    // D: the app's own scene delegate gets the full connection options.
                    events.append(.sceneWillConnect(scene: scene, urlContexts: contexts, userActivities: activities))
                }
                events.append(.swiftUIBody(scene: scene))
                if scenario.dropsColdSwiftUIPublish { publish = [] }
                let wait = Array(repeating: DeviceEvent.tick, count: scenario.swiftUIDelay)
                let delivery: [DeviceEvent]
                switch scenario.handlerMount {
                case .atFirstRender:
                    delivery = [.swiftUIHandlerMounted(scene: scene)] + wait + publish
                case .remountedBeforePublish:
                    delivery =
                        [
                            .swiftUIHandlerMounted(scene: scene), .swiftUIHandlerUnmounted(scene: scene),
                            .swiftUIHandlerMounted(scene: scene),
                        ] + wait + publish
                case .afterPublish:
                    // Nothing has subscribed yet: SwiftUI queues the publish and replays it at the first mount.
                    delivery = wait + [.tick, .tick, .swiftUIHandlerMounted(scene: scene)] + publish
                }
                events += around(delivery, .swiftUIPhaseActive(scene: scene))
            } else {
                var delivery = publish
                if adaptor, !ul {
                    // D3/D5: the full set is forwarded to the app's scene delegate after the publish ([R]).
                    delivery.append(.sceneOpenURLContexts(scene: scene, set))
                }
                events += scenario.state == .background ? around(delivery, .swiftUIPhaseActive(scene: scene)) : delivery
            }
        }
        return events
    }
}
