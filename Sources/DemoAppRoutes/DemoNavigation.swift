import DeepLinks

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The demo app's screens: its own type, not the library's (yours will name your screens). A `NavigationStack`
/// binds a path of them; the reset screen carries its token, ``Sensitive`` so that no description prints it.
public enum DemoScreen: Hashable, Sendable {
    case post(id: Int)
    case comments(postID: Int)
    case newPost
    case resetPassword(token: Sensitive<String>, email: Sensitive<String>?)
    case search(query: String, tags: [String], page: Int)
    case profile(id: UUID)
    case file(path: String)
    case settings(tab: SettingsTab)
}

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
    /// modal over them. The demo app's own mapping (not library API): yours maps your routes to your screens.
    public var navigationTarget: NavigationTarget<DemoScreen> {
        switch self {
        case .home: NavigationTarget(tab: Tab.posts)
        case .newPost: NavigationTarget(tab: Tab.posts, present: .newPost)
        case .comments(let id): NavigationTarget(tab: Tab.posts, path: [.post(id: id), .comments(postID: id)])
        // Over whatever tab is shown: the user came from a mail, not from a place in the app. A second reset
        // link (another token) is another screen: the sheet is presented again with the new token.
        case .resetPassword(let token, let email):
            .over(present: .resetPassword(token: Sensitive(token), email: email.map(Sensitive.init)))
        case .search(let query, let tags, let page):
            NavigationTarget(tab: Tab.search, path: [.search(query: query, tags: tags, page: page)])
        case .settings(let tab): NavigationTarget(tab: Tab.settings, path: [.settings(tab: tab)])
        case .post(let id): NavigationTarget(tab: Tab.posts, path: [.post(id: id)])
        case .profile(let id): NavigationTarget(tab: Tab.posts, path: [.profile(id: id)])
        case .file(let path): NavigationTarget(tab: Tab.posts, path: [.file(path: path)])
        }
    }

    /// What a destination needs before it is shown (the demo app's own rule): a profile and the settings need a
    /// signed-in user; a reset link never does (whoever opens it has lost their password).
    public var requirements: Set<String> {
        switch self {
        case .profile, .settings, .newPost: [Self.signedIn]
        default: []
        }
    }
}
