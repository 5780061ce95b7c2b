import DeepLinks

/// What the simulated device does to the app, mirroring UIKit's and SwiftUI's callbacks
/// (specs/ios-delivery.md §5.2). Each link carries a hidden ground-truth `deliveryID`: the wiring under test
/// must not read it; the oracle does.
public enum DeviceEvent: Sendable, Hashable {
    public struct Link: Sendable, Hashable {
        public var url: String
        /// Ground truth for the oracle: which user action this link came from.
        public let deliveryID: Int
    }

    case processLaunch
    /// `willFinishLaunching` / `didFinishLaunching`, with launch options holding a URL or a universal-link activity (A).
    case appDidFinishLaunching(url: Link?, userActivity: Link?)
    case appOpenURL(Link)
    case appContinueUserActivity(Link)
    case appWillEnterForeground
    case appDidBecomeActive
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
    /// SwiftUI publishes one URL to the scene's `onOpenURL` handlers.
    case swiftUIOpenURL(scene: Int, Link)
    /// SwiftUI publishes a browsing-web activity to `onContinueUserActivity`.
    case swiftUIContinue(scene: Int, Link)
    case swiftUIPhaseActive(scene: Int)
    /// One run-loop turn.
    case tick

    /// The links this event carries.
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
