import DeepLinks
import DeepLinksUIKit
import DemoAppRoutes
import UIKit

/// One window: a tab bar of navigation controllers, its own `LinkCoordinator` fed by this scene's callbacks, and
/// a `UIKitNavigator` that carries each link's plan out on the controllers (one `setViewControllers` per stack;
/// the reset screen presented over whatever is shown).
final class SceneDelegate: UIResponder, UIWindowSceneDelegate {
    var window: UIWindow?
    private var navigator: UIKitNavigator?
    private let api = ServerAPI(baseURL: ServerAPI.configuredBaseURL)
    /// The reset link's token and address, kept in memory only until the reset screen takes them.
    private var pendingReset: (token: String, email: String?)?

    // No sign-in screen here, so no `requirements`: settings links open at once (the SwiftUI reference app shows
    // links held until sign-in).
    private lazy var coordinator = LinkCoordinator(
        table: DemoRoute.table,
        onUnhandled: { await openUnroutableLinkInSafari($0, $1) }
    ) { [weak self] destination in
        await self?.show(destination)
    }

    func scene(
        _ scene: UIScene,
        willConnectTo session: UISceneSession,
        options connectionOptions: UIScene.ConnectionOptions
    ) {
        guard let windowScene = scene as? UIWindowScene else { return }
        let window = UIWindow(windowScene: windowScene)
        let tabs = UITabBarController()
        tabs.viewControllers = [DemoRoute.Tab.posts, DemoRoute.Tab.search, DemoRoute.Tab.settings].map { tab in
            let stack = UINavigationController(rootViewController: ScreenViewController(screen: tab))
            stack.restorationIdentifier = tab
            return stack
        }
        window.rootViewController = tabs
        self.window = window
        navigator = UIKitNavigator(window: window) { [weak self] screen in
            self?.makeScreen(screen) ?? ScreenViewController(screen: screen)
        }
        // Every URL context and activity of the connection options (a cold start's link), untouched.
        coordinator.scene(willConnectWith: connectionOptions)
        window.makeKeyAndVisible()
        // The controllers exist: links may be carried out from now on.
        coordinator.setReady(true)
    }

    func scene(_ scene: UIScene, openURLContexts URLContexts: Set<UIOpenURLContext>) {
        coordinator.scene(openURLContexts: URLContexts)
    }

    func scene(_ scene: UIScene, continue userActivity: NSUserActivity) {
        coordinator.scene(continue: userActivity)
    }

    func sceneDidBecomeActive(_ scene: UIScene) { coordinator.setActive(true) }
    func sceneDidEnterBackground(_ scene: UIScene) { coordinator.setActive(false) }
    func sceneDidDisconnect(_ scene: UIScene) { coordinator.setActive(false) }

    private func show(_ destination: DemoRoute) {
        if case .resetPassword(let token, let email) = destination { pendingReset = (token, email) }
        navigator?.go(to: destination.navigationTarget)
    }

    /// The controller for a screen identifier of a navigation target (never a token: see `.over(present:)`).
    private func makeScreen(_ screen: String) -> UIViewController {
        guard screen == "reset-password", let reset = pendingReset else { return ScreenViewController(screen: screen) }
        pendingReset = nil
        return UINavigationController(
            rootViewController: ResetPasswordViewController(token: reset.token, email: reset.email, api: api)
        )
    }
}
