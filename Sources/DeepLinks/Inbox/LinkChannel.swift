/// The callbacks through which iOS hands an app a link (<doc:LinkDelivery>).
public enum LinkChannel: String, Sendable, Hashable, Codable, CaseIterable {
    /// `launchOptions[.url]` in `willFinishLaunching` / `didFinishLaunching` (life cycle A).
    case launchOptionsURL
    /// `launchOptions[.userActivityDictionary]` (life cycle A, universal link at cold launch).
    case launchOptionsUserActivity
    /// `application(_:open:options:)` (life cycle A).
    case applicationOpenURL
    /// `application(_:continue:restorationHandler:)` (life cycle A).
    case applicationContinueUserActivity
    /// `connectionOptions.urlContexts` in `scene(_:willConnectTo:options:)`.
    case sceneConnectionURLContext
    /// `connectionOptions.userActivities` in `scene(_:willConnectTo:options:)`.
    case sceneConnectionUserActivity
    /// `scene(_:openURLContexts:)`.
    case sceneOpenURLContexts
    /// `scene(_:continue:)`.
    case sceneContinueUserActivity
    /// SwiftUI `onOpenURL`.
    case onOpenURL
    /// SwiftUI `onContinueUserActivity(NSUserActivityTypeBrowsingWeb)`.
    case onContinueUserActivity
    /// A deferred deep link, redeemed at the first launch after an install (``DeferredLink``): no twin.
    case deferred

    /// Whether the channel reports a link the app was launched or its scene connected with. Such a sighting's
    /// twin (SwiftUI's publish of the same link, or `open` after launch options) may come after the app or
    /// scene became active, so becoming active does not end it.
    var isConnectionTime: Bool {
        switch self {
        case .launchOptionsURL, .launchOptionsUserActivity, .sceneConnectionURLContext, .sceneConnectionUserActivity:
            true
        default: false
        }
    }

    /// Channels that report the same delivery as this one (P3, P11, P12): a link seen on both within the
    /// duplicate window is one link. A link repeated on the *same* channel is a genuine repeat.
    var twins: Set<LinkChannel> {
        switch self {
        case .launchOptionsURL: [.applicationOpenURL]
        case .applicationOpenURL: [.launchOptionsURL]
        case .launchOptionsUserActivity: [.applicationContinueUserActivity]
        case .applicationContinueUserActivity: [.launchOptionsUserActivity]
        case .sceneConnectionURLContext, .sceneOpenURLContexts, .sceneConnectionUserActivity,
            .sceneContinueUserActivity:
            [.onOpenURL, .onContinueUserActivity]
        case .onOpenURL:
            [
                .onContinueUserActivity, .sceneConnectionURLContext, .sceneOpenURLContexts,
                .sceneConnectionUserActivity, .sceneContinueUserActivity,
            ]
        case .onContinueUserActivity:
            [
                .onOpenURL, .sceneConnectionURLContext, .sceneOpenURLContexts, .sceneConnectionUserActivity,
                .sceneContinueUserActivity,
            ]
        case .deferred: []
        }
    }
}
