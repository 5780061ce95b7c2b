/// One cell of the delivery table (specs/ios-delivery.md §2) with its knobs (§5.5).
public struct DeliveryScenario: Sendable, Hashable, CustomStringConvertible {
    public enum Lifecycle: String, Sendable, Hashable, CaseIterable {
        /// UIKit, app delegate only.
        case appDelegate = "A"
        /// UIKit with a scene delegate.
        case sceneDelegate = "B"
        /// SwiftUI `App`, no adaptor.
        case swiftUI = "C"
        /// SwiftUI `App` with `@UIApplicationDelegateAdaptor` and the app's own scene delegate.
        case swiftUIWithAdaptor = "D"
    }

    public enum AppState: String, Sendable, Hashable, CaseIterable {
        case notRunning = "NR"
        case background = "BG"
        /// Scene life cycles only: the process lives, its scene was disconnected.
        case backgroundDetached = "BG-D"
        case foreground = "FG"
    }

    public enum LinkKind: String, Sendable, Hashable, CaseIterable {
        case customScheme = "CS"
        case universalLink = "UL"
    }

    /// When the app declares itself ready (P6).
    public enum ReadyAt: Sendable, Hashable {
        case beforeFirstEvent
        /// After this many events of the trace.
        case afterEvents(Int)
        case afterLastEvent
    }

    /// Which SwiftUI channel carries a universal link (P11; the Camera-app report of C4).
    public enum UniversalLinkChannel: String, Sendable, Hashable, CaseIterable {
        case openURL, continueUserActivity, both
    }

    public var lifecycle: Lifecycle
    public var state: AppState
    public var kind: LinkKind
    /// How many URLs one delivery carries (a URL-context set of 2 for P7); SwiftUI publishes only the first.
    public var setSize: Int = 1
    /// Reverses the order of a set (sets have no order: F7, F9).
    public var reverseSet: Bool = false
    public var readyAt: ReadyAt = .afterLastEvent
    public var universalLinkChannel: UniversalLinkChannel = .openURL
    /// Ticks between SwiftUI's first render and its publish (§5.5 swiftUIDelay).
    public var swiftUIDelay: Int = 1
    /// The same link opened again as a second, genuine delivery (goal 5).
    public var repeatLink: Bool = false

    public init(lifecycle: Lifecycle, state: AppState, kind: LinkKind) {
        self.lifecycle = lifecycle
        self.state = state
        self.kind = kind
    }

    /// The cell name of the table, as `B3d` or `C2`.
    public var cell: String {
        let column: Int
        switch (state, kind) {
        case (.notRunning, .customScheme): column = 1
        case (.notRunning, .universalLink): column = 2
        case (.background, .customScheme), (.backgroundDetached, .customScheme): column = 3
        case (.background, .universalLink), (.backgroundDetached, .universalLink): column = 4
        case (.foreground, .customScheme): column = 5
        case (.foreground, .universalLink): column = 6
        }
        return lifecycle.rawValue + String(column) + (state == .backgroundDetached ? "d" : "")
    }

    /// Whether the cell exists: an app-delegate app has no detached scene.
    public var isValid: Bool {
        !(lifecycle == .appDelegate && state == .backgroundDetached)
    }

    public var description: String {
        "\(cell) set=\(setSize)\(reverseSet ? " reversed" : "") ready=\(readyAt) ul=\(universalLinkChannel.rawValue) delay=\(swiftUIDelay)\(repeatLink ? " repeat" : "")"
    }

    /// Every valid cell with default knobs.
    public static var allCells: [DeliveryScenario] {
        Lifecycle.allCases.flatMap { lifecycle in
            AppState.allCases.flatMap { state in
                LinkKind.allCases.map { DeliveryScenario(lifecycle: lifecycle, state: state, kind: $0) }
            }
        }.filter(\.isValid)
    }
}
