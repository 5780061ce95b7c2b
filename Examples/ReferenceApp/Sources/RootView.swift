import DeepLinks
import DeepLinksSwiftUI
import DemoAppRoutes
import SwiftUI

/// Three tabs, each a `NavigationStack` whose path is the tab's stack of `DemoScreen`s in the `NavigationModel`;
/// modals are sheets. A link moves all of it through one `NavigationPlan`.
struct RootView: View {
    @EnvironmentObject private var navigation: NavigationModel<DemoScreen>

    var body: some View {
        TabView(selection: $navigation.selectedTab) {
            stack(DemoRoute.Tab.posts) { PostListScreen() }
                .tabItem { Label("Posts", systemImage: "list.bullet") }
                .tag(DemoRoute.Tab.posts)
            stack(DemoRoute.Tab.search) { SearchScreen() }
                .tabItem { Label("Search", systemImage: "magnifyingglass") }
                .tag(DemoRoute.Tab.search)
            stack(DemoRoute.Tab.settings) { SettingsScreen(tab: nil) }
                .tabItem { Label("Settings", systemImage: "gear") }
                .tag(DemoRoute.Tab.settings)
        }
        .safeAreaInset(edge: .bottom) { DeferredLinkPrompt() }
        // A second reset link (another token) is another modal: the sheet shows the new token.
        .sheet(item: $navigation.modal) { modal in
            switch modal.screen {
            case .resetPassword(let token, let email): ResetPasswordScreen(token: token.value, email: email?.value)
            case .newPost: NewPostScreen()
            default: Text("Unknown screen")
            }
        }
    }

    private func stack<Root: View>(_ tab: String, @ViewBuilder root: () -> Root) -> some View {
        NavigationStack(path: $navigation[stack: tab]) {
            root().navigationDestination(for: DemoScreen.self) { ScreenView(screen: $0) }
        }
    }
}

/// A pushed screen, from its `DemoScreen`.
struct ScreenView: View {
    let screen: DemoScreen

    var body: some View {
        switch screen {
        case .post(let id): PostScreen(id: id)
        case .comments(let id): CommentsScreen(postID: id)
        case .search(let query, let tags, let page): SearchResultsScreen(query: query, tags: tags, page: page)
        case .profile(let id): Text("Profile \(id.uuidString)")
        case .file(let path): Text("File \(path)")
        case .settings(let tab): SettingsScreen(tab: tab)
        case .newPost, .resetPassword: Text("Not a pushed screen")
        }
    }
}

/// At the first launch: "opened a link before installing?" A `PasteButton` reads the pasteboard on the user's
/// tap, so iOS shows no paste prompt, and nothing is read unless they tap.
struct DeferredLinkPrompt: View {
    @EnvironmentObject private var model: AppModel
    @AppStorage("deferredLinkOffered") private var offered = false

    var body: some View {
        if !offered {
            HStack {
                Text("Came from a link?")
                PasteButton(payloadType: String.self) { strings in
                    offered = true
                    guard let text = strings.first,
                        let link = DeferredLink(pasteboard: text, linkDomains: [DemoRoute.host])
                    else { return }
                    Task { await model.redeem(link) }
                }
                Button("No") { offered = true }
            }
            .padding()
            .background(.thinMaterial)
        }
    }
}
