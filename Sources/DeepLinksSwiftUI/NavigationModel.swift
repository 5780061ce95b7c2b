#if canImport(SwiftUI)
import Combine  // ObservableObject and @Published: SwiftUI imports Combine without re-exporting it
import DeepLinks
import SwiftUI

/// The app's navigation as SwiftUI observes it, moved by `NavigationPlan`s, over the app's own `Screen` type:
/// bind a `TabView` to `$model.selectedTab`, each tab's stack to `NavigationStack(path: $model[stack: tab])` (a
/// `[Screen]`, so `NavigationLink(value:)` pushes a screen), and a sheet to `.sheet(item: $model.modal)`.
@MainActor
public final class NavigationModel<Screen: Hashable & Sendable>: ObservableObject {
    @Published public var state: NavigationState<Screen>

    public init(state: NavigationState<Screen> = NavigationState()) {
        self.state = state
    }

    /// Starts on `tab`.
    public convenience init(tab: String) {
        self.init(state: NavigationState(selectedTab: tab))
    }

    /// Moves to `target` by the fewest steps (see `NavigationPlan`). A modal equal in kind but not in payload (a
    /// reset screen with a newer token) is another modal: the sheet shows the new one.
    public func go(to target: NavigationTarget<Screen>) {
        state = NavigationPlan(from: state, to: target).applied(to: state)
    }

    /// The selected tab's identifier.
    public var selectedTab: String {
        get { state.selectedTab ?? "" }
        set { state.selectedTab = newValue }
    }

    /// A tab's stack of screens, empty when the tab has none yet: `NavigationStack(path: $model[stack: tab])`.
    /// (A binding to `state.stacks[tab, default: []]` does not compile: a key path cannot hold the autoclosure.)
    public subscript(stack tab: String) -> [Screen] {
        get { state.stacks[tab] ?? [] }
        set { state.stacks[tab] = newValue }
    }

    /// A presented screen, for `.sheet(item: $model.modal)`: its identity is the screen, payload included, so a
    /// newer payload replaces the sheet.
    public struct Modal: Identifiable, Hashable {
        public let screen: Screen
        public var id: Screen { screen }
        public init(_ screen: Screen) { self.screen = screen }
    }

    public var modal: Modal? {
        get { state.presented.last.map(Modal.init) }
        set { state.presented = newValue.map { [$0.screen] } ?? [] }
    }
}
#endif
