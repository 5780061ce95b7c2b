import DeepLinks
import DeepLinksUIKit
import DemoAppRoutes
import UIKit

/// One window: a tab bar of navigation controllers, its own `LinkCoordinator` fed by this scene's callbacks (with
/// several windows, on iPad, each handles the links iOS hands its own scene), and a `UIKitNavigator` that carries
/// each link's plan out on the controllers. The base class forwards every callback and releases links once the
/// window is on screen.
final class SceneDelegate: DeepLinksSceneDelegate {
    private var navigator: UIKitNavigator<DemoScreen>?
    private lazy var coordinator = LinkCoordinator(
        table: DemoRoute.table,
        onUnhandled: openRejectedUniversalLinks,
        reporter: Self.reporter
    ) { [weak self] route in
        guard let navigator = await self?.navigator else { throw LinkDeliveryError.notReady("no window yet") }
        try await navigator.go(to: route.navigationTarget)
    }
    override var links: any LinkReceiver { coordinator }
    /// Tells the server each link the app opened (its route and channel, never a value): the funnel's opens.
    private static let reporter = LinkReporter.urlSession(
        server: ServerAPI.configuredBaseURL.absoluteString,
        linkDomains: ServerAPI.configuredBaseURL.host.map { [$0] } ?? []
    )

    override func makeRootViewController(in window: UIWindow) -> UIViewController? {
        let api = ServerAPI(baseURL: ServerAPI.configuredBaseURL)
        navigator = UIKitNavigator(window: window) { screen in
            guard case .resetPassword(let token, let email) = screen else {
                return ScreenViewController(screen: screen)
            }
            let reset = ResetPasswordViewController(token: token.value, email: email?.value, api: api)
            return UINavigationController(rootViewController: reset)
        }
        let tabs = UITabBarController()
        tabs.viewControllers = [DemoRoute.Tab.posts, DemoRoute.Tab.search, DemoRoute.Tab.settings].map { tab in
            let stack = UINavigationController(rootViewController: ScreenViewController(title: tab))
            stack.restorationIdentifier = tab
            return stack
        }
        return tabs
    }
}
