import DeepLinks

/// What the simulated device does to the app, mirroring UIKit's and SwiftUI's callbacks
/// of the delivery table. Each link carries a hidden ground-truth `deliveryID`: the wiring under test must not
/// read it; the oracle does.
public enum DeviceEvent: Sendable, Hashable {
    public struct Link: Sendable, Hashable {
        public var url: String
        /// Ground truth for the oracle: which user action this link came from; -1 for an activity that is not
        /// a link (a Handoff or Spotlight activity beside a universal link), which must never be handled.
        public let deliveryID: Int
        /// An activity's type (a universal link's is browsing-web); nil for a URL context, or a URL SwiftUI publishes.
        public var activityType: String?
        /// The sending app's bundle ID: nil whenever another team's app sent it (P16), so nothing may depend on it.
        public var sourceApplication: String?

        public init(url: String, deliveryID: Int, activityType: String? = nil, sourceApplication: String? = nil) {
            self.url = url
            self.deliveryID = deliveryID
            self.activityType = activityType
            self.sourceApplication = sourceApplication
        }

        var isDelivery: Bool { deliveryID >= 0 }

        /// The same link as a browsing-web activity, as a universal link reaches UIKit callbacks.
        var asActivity: Link {
            Link(
                url: url,
                deliveryID: deliveryID,
                activityType: LinkInbox.browsingWebActivityType,
                sourceApplication: sourceApplication
            )
        }
    }

    case processLaunch
    /// The UI state saved at the last run, restored before `didFinishLaunching` (A, F3) or read from
    /// `session.stateRestorationActivity` in `willConnect` (scenes, F10): it shows `screen`.
    case stateRestoration(scene: Int?, screen: String)
    /// `willFinishLaunching` / `didFinishLaunching`, with launch options holding a URL or a universal-link activity (A).
    case appDidFinishLaunching(url: Link?, userActivity: Link?)
    case appOpenURL(Link)
    case appContinueUserActivity(Link)
    case appWillEnterForeground
    case appDidBecomeActive
    case appWillResignActive
    case appDidEnterBackground
    /// `scene(_:willConnectTo:options:)` with the connection options' URL contexts and activities (sets, in
    /// the order the knob chose).
    case sceneWillConnect(scene: Int, urlContexts: [Link], userActivities: [Link])
    case sceneOpenURLContexts(scene: Int, [Link])
    case sceneContinueUserActivity(scene: Int, Link)
    case sceneWillEnterForeground(scene: Int)
    case sceneDidBecomeActive(scene: Int)
    case sceneDidEnterBackground(scene: Int)
    /// UIKit released the scene (closed in the switcher, or memory): the process lives on (BG-D).
    case sceneDidDisconnect(scene: Int)
    /// A SwiftUI render pass.
    case swiftUIBody(scene: Int)
    /// The view carrying the `onOpenURL`/`onContinueUserActivity` handlers appears or goes away.
    case swiftUIHandlerMounted(scene: Int)
    case swiftUIHandlerUnmounted(scene: Int)
    /// SwiftUI publishes one URL to the scene's `onOpenURL` handlers.
    case swiftUIOpenURL(scene: Int, Link)
    /// SwiftUI publishes a browsing-web activity to `onContinueUserActivity`.
    case swiftUIContinue(scene: Int, Link)
    case swiftUIPhaseActive(scene: Int)
    /// One run-loop turn.
    case tick

    /// The scene the event is for; nil for an application-level event.
    var scene: Int? {
        switch self {
        case .stateRestoration(let scene, _): scene
        case .sceneWillConnect(let scene, _, _), .sceneOpenURLContexts(let scene, _),
            .sceneContinueUserActivity(let scene, _), .sceneWillEnterForeground(let scene),
            .sceneDidBecomeActive(let scene), .sceneDidEnterBackground(let scene), .sceneDidDisconnect(let scene),
            .swiftUIBody(let scene), .swiftUIHandlerMounted(let scene), .swiftUIHandlerUnmounted(let scene),
            .swiftUIOpenURL(let scene, _), .swiftUIContinue(let scene, _), .swiftUIPhaseActive(let scene):
            scene
        default: nil
        }
    }

    /// The links and activities this event carries.
    var links: [Link] {
        switch self {
        case .appDidFinishLaunching(let url, let activity): [url, activity].compactMap { $0 }
        case .appOpenURL(let link), .appContinueUserActivity(let link), .sceneContinueUserActivity(_, let link),
            .swiftUIOpenURL(_, let link), .swiftUIContinue(_, let link):
            [link]
        case .sceneWillConnect(_, let contexts, let activities): contexts + activities
        case .sceneOpenURLContexts(_, let contexts): contexts
        default: []
        }
    }
}
