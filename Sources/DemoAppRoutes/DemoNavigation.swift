import DeepLinks

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// modal over them. Screen identifiers carry the parameters, so a test can see they arrived intact.
    public var navigationTarget: NavigationTarget {
        switch self {
        case .home: NavigationTarget(tab: Tab.posts)
        case .post(let id): NavigationTarget(tab: Tab.posts, path: ["post/\(id)"])
        case .newPost: NavigationTarget(tab: Tab.posts, present: "new-post")
        case .comments(let id): NavigationTarget(tab: Tab.posts, path: ["post/\(id)", "comments/\(id)"])
        // Over whatever tab is shown: the user came from a mail, not from a place in the app.
        case .resetPassword: NavigationTarget(present: "reset-password")
        case .search(let query, let tags, let page):
            NavigationTarget(tab: Tab.search, path: ["search q=\(query) tags=\(tags.joined(separator: ",")) page=\(page)"])
        case .profile(let id): NavigationTarget(tab: Tab.posts, path: ["profile/\(id.uuidString.lowercased())"])
        case .file(let path): NavigationTarget(tab: Tab.posts, path: ["file/\(path)"])
        case .settings(let tab): NavigationTarget(tab: Tab.settings, path: ["settings/\(tab.rawValue)"])
        }
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
