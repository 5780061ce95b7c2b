import Combine  // ObservableObject and @Published: SwiftUI does not re-export Combine
import DeepLinks
import DeepLinksSwiftUI
import DemoAppRoutes
import SwiftUI

/// The reference app: a SwiftUI `App` (life cycle C of the DocC article "How iOS delivers a link to an app"). Every link reaches the
/// `LinkCoordinator` through one modifier on the root view; the coordinator holds links until the UI is
/// mounted and, for routes behind sign-in, until the user is signed in.
@main
struct ReferenceApp: App {
    @StateObject private var model = AppModel()

    var body: some Scene {
        WindowGroup {
            RootView()
                .environmentObject(model)
                .environmentObject(model.navigation)
                .deepLinks(model.coordinator)
                .onAppear { model.coordinator.setReady(true) }
        }
    }
}

@MainActor
final class AppModel: ObservableObject {
    let navigation = NavigationModel(state: NavigationState(selectedTab: DemoRoute.Tab.posts))
    let api = ServerAPI(baseURL: URL(string: "https://\(DemoRoute.host)")!)
    /// The reset link's token and address, kept in memory only while the reset screen is shown.
    @Published var pendingReset: (token: String, email: String?)?
    @Published private(set) var sessionToken: String?
    private(set) var coordinator: LinkCoordinator<DemoRoute>!

    init() {
        coordinator = LinkCoordinator(
            table: DemoRoute.table,
            requirements: { $0.requirements },
            onUnhandled: { url, reason in
                // A universal link of ours the app has no screen for (an older app, a web-only page): the web
                // has it. The app's own open(_:) of its own domain goes to Safari, not back to the app.
                guard case .rejected = reason, let link = URL(string: url), link.scheme == "https" else { return }
                await UIApplication.shared.open(link)
            }
        ) { [weak self] destination in
            await self?.show(destination)
        }
    }

    func show(_ destination: DemoRoute) {
        if case .resetPassword(let token, let email) = destination {
            pendingReset = (token, email)
        }
        navigation.go(to: destination.navigationTarget)
    }

    /// A link opened before the app was installed, left on the pasteboard by the landing page.
    func redeem(_ link: DeferredLink) async {
        guard let url = try? await api.redeem(link), !url.isEmpty else { return }
        coordinator.receive(url, via: .deferred)
    }

    func signIn(email: String, password: String) async throws {
        sessionToken = try await api.signIn(email: email, password: password)
        coordinator.setCondition(DemoRoute.signedIn, holds: true)
    }

    func signOut() {
        sessionToken = nil
        coordinator.setCondition(DemoRoute.signedIn, holds: false)
    }
}
