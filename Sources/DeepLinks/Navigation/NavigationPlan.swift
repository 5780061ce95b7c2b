/// Where the app's navigation is: the selected tab (by identifier), each tab's stack of screens, and the modals
/// presented on top, innermost last.
///
/// `Screen` is the app's own type (an enum of its screens, say): SwiftUI's `NavigationStack(path:)` binds a
/// `[Screen]`, and a screen may carry its payload (a reset screen its token, wrapped in ``Sensitive`` so that no
/// description prints it). Two screens are the same when they are equal: a reset screen with another token is
/// another screen, so a second reset link re-presents the screen with the new token.
public struct NavigationState<Screen: Hashable & Sendable>: Sendable, Hashable {
    public var selectedTab: String?
    public var stacks: [String: [Screen]]
    public var presented: [Screen]

    public init(selectedTab: String? = nil, stacks: [String: [Screen]] = [:], presented: [Screen] = []) {
        self.selectedTab = selectedTab
        self.stacks = stacks
        self.presented = presented
    }
}

extension NavigationState {
    /// Whether this state shows `target`: its tab selected, exactly its path in that tab's stack, and its
    /// modal (or none) presented.
    public func isShowing(_ target: NavigationTarget<Screen>) -> Bool {
        if target.keepsPlace { return presented == (target.present.map { [$0] } ?? []) }
        let tab = target.tab ?? selectedTab
        return (target.tab == nil || selectedTab == target.tab)
            && (stacks[tab ?? ""] ?? []) == target.path
            && presented == (target.present.map { [$0] } ?? [])
    }
}

/// Where a destination lives: a tab (nil in an app without tabs), the screens to show in its stack from
/// the root, and optionally a modal to present over them; or (``over(present:)``) a modal over whatever is shown.
public struct NavigationTarget<Screen: Hashable & Sendable>: Sendable, Hashable {
    public var tab: String?
    public var path: [Screen]
    public var present: Screen?
    /// The modal goes over whatever is shown: no tab is selected, no screen popped or pushed.
    public var keepsPlace = false

    public init(tab: String? = nil, path: [Screen] = [], present: Screen? = nil) {
        self.tab = tab
        self.path = path
        self.present = present
    }

    /// A modal over whatever tab and screen are shown (a reset screen opened from a mail: the user came from
    /// outside the app, so nothing they were looking at is taken away).
    public static func over(present modal: Screen) -> NavigationTarget {
        var target = NavigationTarget(present: modal)
        target.keepsPlace = true
        return target
    }
}

/// One move an adapter carries out on UIKit controllers or a SwiftUI navigation model.
public enum NavigationStep<Screen: Hashable & Sendable>: Sendable, Hashable {
    /// Dismiss every presented modal.
    case dismissAll
    /// Select a tab by its identifier, never by index.
    case selectTab(String)
    case popToRoot
    /// Pop until the stack holds this many screens.
    case pop(toCount: Int)
    case push([Screen])
    case present(Screen)
}

/// The moves from one navigation state to a target, computed by a pure function: a plan that tests assert
/// without UIKit, and that an adapter carries out.
public struct NavigationPlan<Screen: Hashable & Sendable>: Sendable, Hashable {
    public var steps: [NavigationStep<Screen>]

    /// The fewest moves: dismiss what is presented (unless it is already the target's modal over the target),
    /// select the tab, pop to the longest common prefix of the stack and the target path, push the rest,
    /// then present. Already on the destination: no step at all.
    public init(from state: NavigationState<Screen>, to target: NavigationTarget<Screen>) {
        if target.keepsPlace {
            // Only the modals change: the one asked for, over the tab and stack as they are.
            let wanted = target.present.map { [$0] } ?? []
            guard state.presented != wanted else {
                steps = []
                return
            }
            steps = (state.presented.isEmpty ? [] : [.dismissAll]) + (target.present.map { [.present($0)] } ?? [])
            return
        }
        var steps: [NavigationStep<Screen>] = []
        let tab = target.tab ?? state.selectedTab
        let stack = tab.flatMap { state.stacks[$0] } ?? (target.tab == nil ? state.stacks[""] ?? [] : [])
        let common = zip(stack, target.path).prefix { $0 == $1 }.count
        let stackMoves = common < stack.count || common < target.path.count
        let tabMoves = target.tab != nil && target.tab != state.selectedTab
        let alreadyPresented = target.present.map { state.presented == [$0] } ?? false
        if !state.presented.isEmpty, !(alreadyPresented && !stackMoves && !tabMoves) {
            steps.append(.dismissAll)
        }
        if tabMoves, let tab = target.tab {
            steps.append(.selectTab(tab))
        }
        if common < stack.count {
            steps.append(common == 0 ? .popToRoot : .pop(toCount: common))
        }
        if common < target.path.count {
            steps.append(.push(Array(target.path[common...])))
        }
        if let modal = target.present, !(alreadyPresented && !stackMoves && !tabMoves) {
            steps.append(.present(modal))
        }
        self.steps = steps
    }

    /// The state after carrying out the plan on `state`: what an adapter should end up showing.
    public func applied(to state: NavigationState<Screen>) -> NavigationState<Screen> {
        var state = state
        for step in steps {
            let key = state.selectedTab ?? ""
            switch step {
            case .dismissAll: state.presented = []
            case .selectTab(let tab): state.selectedTab = tab
            case .popToRoot: state.stacks[key] = []
            case .pop(let count): state.stacks[key] = Array((state.stacks[key] ?? []).prefix(count))
            case .push(let screens): state.stacks[key, default: []] += screens
            case .present(let modal): state.presented.append(modal)
            }
        }
        return state
    }
}
