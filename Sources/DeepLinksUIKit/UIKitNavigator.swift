#if canImport(UIKit) && !os(watchOS)
import DeepLinks
import UIKit

/// Carries a `NavigationPlan` out on a window's controllers: a tab bar controller (or none) whose tabs are
/// navigation controllers. Tabs are found by their `restorationIdentifier`, never by index; screens are the app's
/// own `Screen` values, each remembered with the controller ``init(window:makeScreen:)`` made for it (a controller
/// the app pushed itself is no screen, and a plan pops it).
@MainActor
public final class UIKitNavigator<Screen: Hashable & Sendable> {
    public let window: UIWindow
    private let makeScreen: (Screen) -> UIViewController
    /// The controllers made for screens, held weakly.
    private var made: [(controller: WeakController, screen: Screen)] = []

    private final class WeakController {
        weak var value: UIViewController?
        init(_ value: UIViewController) { self.value = value }
    }

    /// - Parameters:
    ///   - window: the window whose controllers it moves.
    ///   - makeScreen: builds the view controller for a screen of a `NavigationTarget` (a reset screen with its
    ///     token).
    public init(window: UIWindow, makeScreen: @escaping (Screen) -> UIViewController) {
        self.window = window
        self.makeScreen = makeScreen
    }

    /// What the controllers show now: nil for a controller that is not one of the navigator's screens.
    public var state: NavigationState<Screen?> {
        var state = NavigationState<Screen?>()
        let root = window.rootViewController
        if let tabs = root as? UITabBarController {
            state.selectedTab = tabs.selectedViewController?.restorationIdentifier
            for tab in tabs.viewControllers ?? [] {
                if let id = tab.restorationIdentifier { state.stacks[id] = screens(in: tab) }
            }
        } else if let root {
            state.stacks[""] = screens(in: root)
        }
        var presented = root?.presentedViewController
        while let modal = presented {
            state.presented.append(screen(of: modal))
            presented = modal.presentedViewController
        }
        return state
    }

    /// Moves the controllers to `target` by the fewest steps, with one animation per controller: a dismissal,
    /// a tab selection, one `setViewControllers` for the stack (the screens it keeps, then the new ones: never a
    /// pop-to-root and a push in the same turn), then a presentation. A screen equal in kind but not in payload (a
    /// reset screen with a newer token) is another screen: it is presented again.
    ///
    /// Throws, changing nothing, when the controllers cannot carry the plan out: `LinkDeliveryError.notReady`
    /// while the window has no root, or a root that is not the tab bar the target needs (a sign-in screen: the
    /// coordinator keeps the link until `setReady(true)`, which ``DeepLinksSceneDelegate/setRoot(_:)`` calls);
    /// `LinkDeliveryError.undeliverable` when the tab bar has no such tab, or the tab no navigation controller
    /// for a path.
    public func go(to target: NavigationTarget<Screen>, animated: Bool = true) throws(LinkDeliveryError) {
        let root = window.rootViewController
        guard let root else { throw .notReady("the window has no root view controller yet") }
        let tabs = root as? UITabBarController
        // The tab the target selects (found once, checked before anything moves), and the stack it pushes on.
        var selected: UIViewController?
        var stack = ((tabs?.selectedViewController ?? root) as? UINavigationController)
        if let tab = target.tab, !target.keepsPlace {
            guard let tabs else {
                throw .notReady("tab '\(tab)' needs a UITabBarController at the window's root (a sign-in screen?)")
            }
            guard let controller = tabs.viewControllers?.first(where: { $0.restorationIdentifier == tab }) else {
                throw .undeliverable("the tab bar has no tab whose restorationIdentifier is '\(tab)'")
            }
            selected = controller
            stack = controller as? UINavigationController
        }
        if !target.path.isEmpty, !target.keepsPlace, stack == nil {
            throw tabs == nil && target.tab == nil
                ? .notReady("a path needs a UINavigationController at the window's root (a sign-in screen?)")
                : .undeliverable("the tab '\(target.tab ?? "")' is not a UINavigationController")
        }
        made.removeAll { $0.controller.value == nil }

        let before = state
        var wanted = NavigationTarget<Screen?>(
            tab: target.tab,
            path: target.path.map(Optional.some),
            present: target.present.map(Optional.some)
        )
        wanted.keepsPlace = target.keepsPlace
        let plan = NavigationPlan(from: before, to: wanted)
        guard !plan.steps.isEmpty else { return }
        let after = plan.applied(to: before)
        let presents = plan.steps.contains { if case .present = $0 { true } else { false } }
        if plan.steps.contains(.dismissAll) {
            // A dismissal still animating would refuse the presentation that follows it.
            root.dismiss(animated: animated && !presents)
        }
        if plan.steps.contains(where: { if case .selectTab = $0 { true } else { false } }) {
            tabs?.selectedViewController = selected
        }
        if let stack, !target.keepsPlace {
            let wantedScreens = after.stacks[after.selectedTab ?? ""] ?? []
            let shown = Array(stack.viewControllers.dropFirst())
            let kept = zip(shown, wantedScreens).prefix { screen(of: $0) == $1 }.count
            if kept < shown.count || kept < wantedScreens.count {
                let controllers =
                    Array(stack.viewControllers.prefix(1 + kept))
                    + wantedScreens.dropFirst(kept).compactMap { $0.map(controller) }
                stack.setViewControllers(controllers, animated: animated)
            }
        }
        for case .present(let screen?) in plan.steps {
            var top: UIViewController = root
            while let next = top.presentedViewController { top = next }
            top.present(controller(for: screen), animated: animated)
        }
    }

    /// The screens pushed over a stack's root (the root is the tab itself).
    private func screens(in controller: UIViewController) -> [Screen?] {
        guard let stack = controller as? UINavigationController else { return [] }
        return stack.viewControllers.dropFirst().map(screen(of:))
    }

    private func screen(of controller: UIViewController) -> Screen? {
        made.first { $0.controller.value === controller }?.screen
    }

    private func controller(for screen: Screen) -> UIViewController {
        let controller = makeScreen(screen)
        made.append((WeakController(controller), screen))
        return controller
    }
}
#endif
