#if canImport(UIKit) && !os(watchOS)
import DeepLinks
import UIKit

// Type-checked on Apple platforms only (this file is empty on Linux). The front door's two delegates: they hand
// every callback, untouched, to the app's relay (LinkRelay.shared, tested on Linux), and say when the window is
// ready, so that no app writes, or forgets, those lines.

/// The app delegate of the front door, for a SwiftUI app (`@UIApplicationDelegateAdaptor(DeepLinksAppDelegate.self)`)
/// or as a UIKit app's base class: it gives every scene ``sceneDelegateClass``, whose callbacks hold the cold-start
/// link that SwiftUI alone drops (FB17446617, iOS 18.4 and later) and every URL context of a set.
@MainActor
open class DeepLinksAppDelegate: UIResponder, UIApplicationDelegate {
    /// The scene delegate each scene gets: ``DeepLinksSceneDelegate`` (a SwiftUI app), or a UIKit app's subclass.
    open class var sceneDelegateClass: DeepLinksSceneDelegate.Type { DeepLinksSceneDelegate.self }

    open func application(
        _ application: UIApplication,
        configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration {
        let configuration = UISceneConfiguration(name: nil, sessionRole: connectingSceneSession.role)
        configuration.delegateClass = Self.sceneDelegateClass
        return configuration
    }
}

/// The scene delegate of the front door: every link callback of the scene to ``links`` (the app's
/// `LinkRelay.shared`), and, in a UIKit app, a window whose root is ``makeRootViewController(in:)``, with links
/// released once it is on screen.
///
/// A UIKit app subclasses it and overrides ``makeRootViewController(in:)``; a SwiftUI app uses it as it is, through
/// ``DeepLinksAppDelegate`` (SwiftUI makes the window; its `deepLinks` modifier says when the UI is ready). An app
/// whose first screen is a sign-in replaces it with ``setRoot(_:)``, which releases the links held meanwhile.
@MainActor
open class DeepLinksSceneDelegate: UIResponder, UIWindowSceneDelegate {
    public var window: UIWindow?

    /// Where this scene's callbacks go: the app's relay. Override it for a coordinator per window.
    open var links: any LinkReceiver { LinkRelay.shared }

    /// The first root of the scene's new window (a UIKit app's tab bar controller, or its sign-in screen); make
    /// the app's `UIKitNavigator` on `window` here. nil, the default, keeps no window: a SwiftUI app's window is
    /// SwiftUI's.
    open func makeRootViewController(in window: UIWindow) -> UIViewController? { nil }

    /// Hands the connection options' links (a cold start's) to ``links``, then shows the window whose root is
    /// ``makeRootViewController(in:)`` and releases the links. An override that restores saved state does so
    /// first, then calls `super`: the link wins over the restored screen.
    open func scene(
        _ scene: UIScene,
        willConnectTo session: UISceneSession,
        options connectionOptions: UIScene.ConnectionOptions
    ) {
        links.scene(willConnectWith: connectionOptions)
        // The library's own class, as a SwiftUI app uses it, makes no window: SwiftUI makes the scene's.
        guard type(of: self) != DeepLinksSceneDelegate.self, let windowScene = scene as? UIWindowScene else { return }
        let window = UIWindow(windowScene: windowScene)
        guard let root = makeRootViewController(in: window) else { return }
        window.rootViewController = root
        self.window = window
        window.makeKeyAndVisible()
        links.setReady(true)
    }

    /// Replaces the window's root (the sign-in screen by the tab bar) and releases the links that waited for it:
    /// a link whose plan needed the tab bar (`UIKitNavigator` threw `notReady`) is carried out now, once.
    public func setRoot(_ controller: UIViewController) {
        window?.rootViewController = controller
        links.setReady(true)
    }

    open func scene(_ scene: UIScene, openURLContexts URLContexts: Set<UIOpenURLContext>) {
        links.scene(openURLContexts: URLContexts)
    }

    open func scene(_ scene: UIScene, continue userActivity: NSUserActivity) {
        links.scene(continue: userActivity)
    }

    open func sceneDidBecomeActive(_ scene: UIScene) { links.setActive(true) }
    open func sceneDidEnterBackground(_ scene: UIScene) { links.setActive(false) }
    open func sceneDidDisconnect(_ scene: UIScene) { links.setActive(false) }
}

/// The front door's default `onUnhandled`: a universal link no route takes is a page of the site the app has no
/// screen for, so it opens in Safari (the app's own `open(_:)` of its own domain goes to Safari, not back to the
/// app). Custom-scheme links and the other reasons are left alone.
public func openRejectedUniversalLinks<Destination>(
    _ url: String,
    _ reason: LinkCoordinator<Destination>.Unhandled
) async {
    guard case .rejected = reason, let link = URL(string: url), link.scheme == "https" else { return }
    await UIApplication.shared.open(link)
}
#endif
