#if canImport(UIKit) && !os(watchOS)
    import DeepLinks
    import UIKit

    // Type-checked on Apple platforms only (this file is empty on Linux). It holds no decision: each helper hands
    // a callback's payload, untouched, to the coordinator, whose inbox (tested on Linux through the delivery
    // simulator) decides which activity is a link, what is a duplicate and when a link may be handled.

    extension LinkCoordinator {
        // MARK: App delegate (a UIKit app without scenes)

        /// In `application(_:didFinishLaunchingWithOptions:)`: the URL or universal-link activity the app was
        /// launched with. `open`/`continue` may report the same link again; the inbox merges them (P3).
        @MainActor
        public func application(didFinishLaunchingWithOptions options: [UIApplication.LaunchOptionsKey: Any]?) {
            if let url = options?[.url] as? URL {
                receive(url.absoluteString, via: .launchOptionsURL)
            }
            // The activity sits in the user-activity dictionary under a key Apple does not document (P4).
            if let dictionary = options?[.userActivityDictionary] as? [AnyHashable: Any] {
                for case let activity as NSUserActivity in dictionary.values {
                    receive(
                        activityType: activity.activityType,
                        webpageURL: activity.webpageURL?.absoluteString,
                        via: .launchOptionsUserActivity
                    )
                }
            }
        }

        /// In `application(_:open:options:)`.
        @MainActor
        public func application(open url: URL) {
            receive(url.absoluteString, via: .applicationOpenURL)
        }

        /// In `application(_:continue:restorationHandler:)`. Returns whether the activity was a link.
        @MainActor @discardableResult
        public func application(continue activity: NSUserActivity) -> Bool {
            let webpageURL = activity.webpageURL?.absoluteString
            receive(activityType: activity.activityType, webpageURL: webpageURL, via: .applicationContinueUserActivity)
            return LinkInbox.link(activityType: activity.activityType, webpageURL: webpageURL) != nil
        }

        // MARK: Scene delegate (UIKit with scenes, or a SwiftUI app's own scene delegate)

        /// In `scene(_:willConnectTo:options:)`, after applying `session.stateRestorationActivity` (P9): every
        /// URL context and every activity of the sets, not `.first` (P7, P8).
        @MainActor
        public func scene(willConnectWith options: UIScene.ConnectionOptions) {
            for context in options.urlContexts {
                receive(context.url.absoluteString, via: .sceneConnectionURLContext)
            }
            for activity in options.userActivities {
                receive(
                    activityType: activity.activityType,
                    webpageURL: activity.webpageURL?.absoluteString,
                    via: .sceneConnectionUserActivity
                )
            }
        }

        /// In `scene(_:openURLContexts:)`.
        @MainActor
        public func scene(openURLContexts contexts: Set<UIOpenURLContext>) {
            for context in contexts {
                receive(context.url.absoluteString, via: .sceneOpenURLContexts)
            }
        }

        /// In `scene(_:continue:)`.
        @MainActor
        public func scene(continue activity: NSUserActivity) {
            receive(
                activityType: activity.activityType,
                webpageURL: activity.webpageURL?.absoluteString,
                via: .sceneContinueUserActivity
            )
        }

        // Activation: `setActive(true)` in `applicationDidBecomeActive` / `sceneDidBecomeActive`, `setActive(false)`
        // in `applicationDidEnterBackground` / `sceneDidEnterBackground` / `sceneDidDisconnect`.
    }

    /// Carries a ``NavigationPlan`` out on a window's controllers: a tab bar controller (or none) whose tabs are
    /// navigation controllers. Tabs and screens are found by their `restorationIdentifier`, never by index.
    @MainActor
    public final class UIKitNavigator {
        public let window: UIWindow
        private let makeScreen: (String) -> UIViewController

        /// - Parameter makeScreen: builds the view controller for a screen identifier of a ``NavigationTarget``.
        public init(window: UIWindow, makeScreen: @escaping (String) -> UIViewController) {
            self.window = window
            self.makeScreen = makeScreen
        }

        /// What the controllers show now, as a ``NavigationState``.
        public var state: NavigationState {
            var state = NavigationState()
            let root = window.rootViewController
            if let tabs = root as? UITabBarController {
                state.selectedTab = tabs.selectedViewController?.restorationIdentifier
                for tab in tabs.viewControllers ?? [] {
                    if let id = tab.restorationIdentifier { state.stacks[id] = Self.screens(in: tab) }
                }
            } else if let root {
                state.stacks[""] = Self.screens(in: root)
            }
            var presented = root?.presentedViewController
            while let modal = presented {
                state.presented.append(modal.restorationIdentifier ?? "")
                presented = modal.presentedViewController
            }
            return state
        }

        /// Moves the controllers to `target` by the fewest steps, with one animation per controller: a dismissal,
        /// a tab selection, one `setViewControllers` for the stack (the screens it keeps, then the new ones: never a
        /// pop-to-root and a push in the same turn), then a presentation.
        public func go(to target: NavigationTarget, animated: Bool = true) {
            let before = state
            let plan = NavigationPlan(from: before, to: target)
            guard !plan.steps.isEmpty else { return }
            let after = plan.applied(to: before)
            let presents = plan.steps.contains { if case .present = $0 { true } else { false } }
            if plan.steps.contains(.dismissAll) {
                // A dismissal still animating would refuse the presentation that follows it.
                window.rootViewController?.dismiss(animated: animated && !presents)
            }
            for case .selectTab(let id) in plan.steps {
                guard let tabs = window.rootViewController as? UITabBarController,
                    let tab = tabs.viewControllers?.first(where: { $0.restorationIdentifier == id })
                else { continue }
                tabs.selectedViewController = tab
            }
            if let stack = currentStack {
                let wanted = after.stacks[after.selectedTab ?? ""] ?? []
                let shown = Array(stack.viewControllers.dropFirst())
                let kept = zip(shown, wanted).prefix { $0.restorationIdentifier == $1 }.count
                if kept < shown.count || kept < wanted.count {
                    let controllers = Array(stack.viewControllers.prefix(1 + kept)) + wanted.dropFirst(kept).map(screen)
                    stack.setViewControllers(controllers, animated: animated)
                }
            }
            for case .present(let id) in plan.steps {
                var top = window.rootViewController
                while let next = top?.presentedViewController { top = next }
                top?.present(screen(id), animated: animated)
            }
        }

        /// The screens pushed over a stack's root (the root is the tab itself).
        private static func screens(in controller: UIViewController) -> [String] {
            guard let stack = controller as? UINavigationController else { return [] }
            return stack.viewControllers.dropFirst().map { $0.restorationIdentifier ?? "" }
        }

        private var currentStack: UINavigationController? {
            let root = window.rootViewController
            return ((root as? UITabBarController)?.selectedViewController ?? root) as? UINavigationController
        }

        private func screen(_ id: String) -> UIViewController {
            let controller = makeScreen(id)
            controller.restorationIdentifier = id
            return controller
        }
    }
#endif
