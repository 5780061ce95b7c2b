import DeepLinks

extension DemoRoute {
    /// The demo app's tabs, by identifier (never by index).
    public enum Tab {
        public static let posts = "posts"
        public static let search = "search"
        public static let settings = "settings"
    }

    /// The condition routes behind sign-in need (``LinkInbox`` holds their links until it holds).
    public static let signedIn = "signedIn"

    /// Where each destination lives in the demo app: the tab, the screens of its stack from the root, and the
    /// modal over them. A screen's identifier is its destination's ``screen`` link, so it carries the
    /// parameters (a test sees they arrived intact) but never a secret: the reset screen is "reset-password",
    /// and the app keeps the token in memory beside it.
    public var navigationTarget: NavigationTarget {
        switch self {
        case .home: NavigationTarget(tab: Tab.posts)
        case .newPost: NavigationTarget(tab: Tab.posts, present: "new-post")
        case .comments(let id): NavigationTarget(tab: Tab.posts, path: [DemoRoute.post(id: id).screen, screen])
        // Over whatever tab is shown: the user came from a mail, not from a place in the app.
        case .resetPassword: .over(present: "reset-password")
        case .search: NavigationTarget(tab: Tab.search, path: [screen])
        case .settings: NavigationTarget(tab: Tab.settings, path: [screen])
        case .post, .profile, .file: NavigationTarget(tab: Tab.posts, path: [screen])
        }
    }

    /// A screen's identifier: the destination's link (custom scheme, or universal for a route that only
    /// takes those), which `DemoRoute.table` parses back (`DemoRoute.table.destination(for: screen)`).
    public var screen: String {
        (try? Self.table.url(for: self, as: .customScheme())) ?? (try? Self.table.url(for: self)) ?? "unprintable"
    }

    /// What a destination needs before it is shown: a profile and the settings need a signed-in user; a
    /// reset link never does (whoever opens it has lost their password).
    public var requirements: Set<String> {
        switch self {
        case .profile, .settings, .newPost: [Self.signedIn]
        default: []
        }
    }
}
