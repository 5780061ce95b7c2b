#if canImport(UIKit) && !os(watchOS)
import DeepLinks
import UIKit

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
