#if canImport(SwiftUI)
import Combine  // ObservableObject and @Published: SwiftUI imports Combine without re-exporting it
import DeepLinks
import SwiftUI

/// The app's navigation as SwiftUI observes it, moved by ``NavigationPlan``s: bind a `TabView` to
/// `$model.selectedTab`, each tab's stack to `NavigationStack(path: $model[stack: tab])` (a path of screen
/// identifiers), and a sheet to `.sheet(item: $model.modal)`.
@MainActor
public final class NavigationModel: ObservableObject {
    @Published public var state: NavigationState

    public init(state: NavigationState = NavigationState()) {
        self.state = state
    }

    /// Moves to `target` by the fewest steps (see ``NavigationPlan``).
    public func go(to target: NavigationTarget) {
        state = NavigationPlan(from: state, to: target).applied(to: state)
    }

    /// The selected tab's identifier.
    public var selectedTab: String {
        get { state.selectedTab ?? "" }
        set { state.selectedTab = newValue }
    }

    /// A tab's stack of screen identifiers, empty when the tab has none yet: `NavigationStack(path: $model[stack: tab])`.
    /// (A binding to `state.stacks[tab, default: []]` does not compile: a key path cannot hold the autoclosure.)
    public subscript(stack tab: String) -> [String] {
        get { state.stacks[tab] ?? [] }
        set { state.stacks[tab] = newValue }
    }

    /// A presented screen, for `.sheet(item: $model.modal)`.
    public struct Modal: Identifiable, Hashable {
        public let id: String
        public init(id: String) { self.id = id }
    }

    public var modal: Modal? {
        get { state.presented.last.map(Modal.init) }
        set { state.presented = newValue.map { [$0.id] } ?? [] }
    }
}
#endif
