import DeepLinks

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The destinations of the demo app (`Server/Examples/demo-app.json`): the route table the app parses links
/// with and the server prints them with. A model for adopters: declare yours the same way, in a module both
/// your app and your server import.
public enum DemoRoute: Sendable, Hashable {
    case home
    case post(id: Int)
    case newPost
    case comments(postID: Int)
    /// The reset screen. The token is a secret: sensitive, so it never reaches a log line.
    case resetPassword(token: String, email: String?)
    case search(query: String, tags: [String], page: Int)
    case profile(id: UUID)
    case file(path: String)
    case settings(tab: SettingsTab)
}

/// A custom parameter type: the tabs of the settings screen, by identifier.
public enum SettingsTab: String, Sendable, Hashable, CaseIterable, RouteParameterValue {
    case account, notifications, privacy

    public init?(routeParameter: String) { self.init(rawValue: routeParameter) }
    public var routeParameter: String { rawValue }
}

extension DemoRoute {
    /// The demo app's custom scheme and universal-link host, as in `Server/Examples/demo-app.json`.
    public static let scheme = "demoapp"
    public static let host = "links.example.com"

    /// Reset tokens: 32 to 128 base64url characters.
    public static let tokenLength = 32...128

    public static let routes: [Route<DemoRoute>] = [
        // Without `print:`, a destination prints by its enum case (named like the route) and its associated values
        // by label; `comments` and `search`, whose labels differ from their parameters' names, print themselves.
        Route("home", "/") { _ in .home },
        Route("post", "/post/:id", parameters: [.path("id", Int.self)]) { try .post(id: $0("id")) },
        Route("new-post", "/post/new") { _ in .newPost },
        Route(
            "comments",
            "/post/:id/comments",
            parameters: [.path("id", Int.self)],
            parse: { p in try .comments(postID: p("id")) },
            print: { if case .comments(let id) = $0 { ["id": id] } else { nil } }
        ),
        // The universal link carries the token in the fragment, which browsers never send to a server.
        Route(
            "reset-password",
            "/reset-password",
            parameters: [
                .fragment("token", sensitive: true, length: tokenLength, characters: .base64URL),
                .fragment("email", String.self, .optional, sensitive: true, length: 3...254),
            ],
            sources: .universalLink
        ) { p in try .resetPassword(token: p("token"), email: p("email")) },
        // A custom-scheme URL has no server to hide the token from: it travels in the query.
        Route(
            "reset-password-scheme",
            "/reset-password",
            parameters: [
                .query("token", sensitive: true, length: tokenLength, characters: .base64URL),
                .query("email", String.self, .optional, sensitive: true, length: 3...254),
            ],
            sources: .customScheme,
            caseName: "resetPassword"
        ) { p in try .resetPassword(token: p("token"), email: p("email")) },
        Route(
            "search",
            "/search",
            parameters: [
                .query("q", String.self, .required, length: 1...200),
                .query("tag", String.self, .list, length: 1...50),
                .query("page", Int.self, .defaultValue("1")),
            ],
            parse: { p in try .search(query: p("q"), tags: p("tag"), page: p("page")) },
            print: {
                if case .search(let q, let tags, let page) = $0 { ["q": q, "tag": tags, "page": page] } else { nil }
            }
        ),
        Route("profile", "/u/:id", parameters: [.path("id", UUID.self)], sources: .universalLink) {
            try .profile(id: $0("id"))
        },
        Route("file", "/files/*path") { try .file(path: $0("path")) },
        Route("settings", "/settings/:tab", parameters: [.path("tab", SettingsTab.self)]) {
            try .settings(tab: $0("tab"))
        },
    ]

    /// The compiled table. Building it cannot fail: a test checks it has no diagnostics but the documented overlap.
    public static let table: RouteTable<DemoRoute> = {
        do {
            return try RouteTable(schemes: [scheme], hosts: [host], routes: routes)
        } catch {
            fatalError("the demo route table is invalid: \(error)")
        }
    }()
}

extension SettingsTab: RouteValueConvertible {}

/// Each destination names its route: printing looks it up by name instead of asking every route.
extension DemoRoute: RouteNamedDestination {
    public func routeName(for form: LinkForm) -> String? {
        switch self {
        case .home: "home"
        case .post: "post"
        case .newPost: "new-post"
        case .comments: "comments"
        case .resetPassword: if case .customScheme = form { "reset-password-scheme" } else { "reset-password" }
        case .search: "search"
        case .profile: "profile"
        case .file: "file"
        case .settings: "settings"
        }
    }
}
