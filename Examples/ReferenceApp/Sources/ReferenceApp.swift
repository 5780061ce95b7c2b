import Combine  // ObservableObject and @Published: SwiftUI does not re-export Combine
import DeepLinks
import DeepLinksSwiftUI
import DeepLinksUIKit
import DemoAppRoutes
import SwiftUI

/// The reference app: a SwiftUI `App` with a scene delegate of its own (life cycle D of the DocC article "How iOS
/// delivers a link to an app"): the modifier on the root view hears `onOpenURL` and `onContinueUserActivity`, the
/// scene delegate hears the connection options and URL contexts, which keeps the cold-start link SwiftUI drops
/// (FB17446617); the coordinator merges the twins, holds links until the UI is mounted and, for routes behind
/// sign-in, until the user is signed in.
@main
struct ReferenceApp: App {
    @UIApplicationDelegateAdaptor(AppDelegate.self) private var appDelegate
    @StateObject private var model = AppModel.shared

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

/// Gives every scene the app's own delegate.
final class AppDelegate: NSObject, UIApplicationDelegate {
    func application(
        _ application: UIApplication,
        configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration {
        let configuration = UISceneConfiguration(name: nil, sessionRole: connectingSceneSession.role)
        configuration.delegateClass = SceneDelegate.self
        return configuration
    }
}

/// Forwards the scene's callbacks, untouched, to the app's coordinator (SwiftUI still draws the window).
final class SceneDelegate: NSObject, UISceneDelegate {
    func scene(
        _ scene: UIScene,
        willConnectTo session: UISceneSession,
        options connectionOptions: UIScene.ConnectionOptions
    ) {
        AppModel.shared.coordinator.scene(willConnectWith: connectionOptions)
    }

    func scene(_ scene: UIScene, openURLContexts URLContexts: Set<UIOpenURLContext>) {
        AppModel.shared.coordinator.scene(openURLContexts: URLContexts)
    }

    func scene(_ scene: UIScene, continue userActivity: NSUserActivity) {
        AppModel.shared.coordinator.scene(continue: userActivity)
    }
}

@MainActor
final class AppModel: ObservableObject {
    /// One model for the app: the scene delegate, which UIKit creates, reaches the coordinator through it.
    static let shared = AppModel()

    let navigation = NavigationModel(state: NavigationState(selectedTab: DemoRoute.Tab.posts))
    let api = ServerAPI(baseURL: ServerAPI.configuredBaseURL)
    /// The reset link's token and address, kept in memory only while the reset screen is shown.
    @Published var pendingReset: (token: String, email: String?)?
    @Published private(set) var sessionToken: String?
    private(set) var coordinator: LinkCoordinator<DemoRoute>!

    init() {
        coordinator = LinkCoordinator(
            table: DemoRoute.table,
            requirements: { $0.requirements },
            onUnhandled: { await openUnroutableLinkInSafari($0, $1) }
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
