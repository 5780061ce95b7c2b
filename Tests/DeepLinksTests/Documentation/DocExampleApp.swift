// The app the documentation's snippets are written for (README.md and the DocC articles of DeepLinks,
// DeepLinksSwiftUI, DeepLinksUIKit and DeepLinksTesting): `make apple-typecheck` compiles every snippet against
// this file and Apple's stand-ins, and the testing snippets run here, on Linux (DocumentationSnippetTests). The
// declarations below are GettingStarted.md's, word for word (the same check holds them to it).
import DeepLinks

enum AppRoute: Hashable, Sendable {
    case post(id: Int)
    case resetPassword(token: String)
}

extension AppRoute {
    static let table = try! RouteTable<AppRoute>(
        schemes: ["yourapp"],
        hosts: ["example.com"],
        routes: [
            Route("post", "/post/:id", parameters: [.path("id", Int.self)]) { try .post(id: $0("id")) },
            // The universal link keeps the token in the fragment, which a browser never sends to a server.
            Route(
                "reset-password",
                "/reset-password",
                parameters: [.fragment("token", sensitive: true, length: 32...128, characters: .base64URL)],
                sources: .universalLink
            ) { try .resetPassword(token: $0("token")) },
            // A custom-scheme link has no server to hide it from: the token travels in the query.
            Route(
                "reset-password-scheme",
                "/reset-password",
                parameters: [.query("token", sensitive: true, length: 32...128, characters: .base64URL)],
                sources: .customScheme,
                caseName: "resetPassword"
            ) { try .resetPassword(token: $0("token")) },
        ]
    )
}

enum Screen: Hashable, Sendable {
    case post(id: Int)
    case resetPassword(token: Sensitive<String>)
}

extension AppRoute {
    /// Posts in the Home tab's stack; the reset screen over whatever is shown.
    var target: NavigationTarget<Screen> {
        switch self {
        case .post(let id): NavigationTarget(tab: "home", path: [.post(id: id)])
        case .resetPassword(let token): .over(present: .resetPassword(token: Sensitive(token)))
        }
    }
}
