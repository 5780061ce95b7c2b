import DeepLinks

/// A screen of any app's own type, for the simulator's oracles: it compares and hashes as the screen it wraps.
public struct AnyScreen: Hashable, Sendable, CustomStringConvertible {
    public let base: any Hashable & Sendable

    public init(_ screen: some Hashable & Sendable) {
        base = (screen as? AnyScreen)?.base ?? screen
    }

    public static func == (lhs: AnyScreen, rhs: AnyScreen) -> Bool {
        AnyHashable(lhs.base) == AnyHashable(rhs.base)
    }

    public func hash(into hasher: inout Hasher) {
        AnyHashable(base).hash(into: &hasher)
    }

    public var description: String { "\(base)" }

    /// An app's target with its screens wrapped.
    public static func erase<Screen>(_ target: NavigationTarget<Screen>) -> NavigationTarget<AnyScreen> {
        var erased = NavigationTarget(
            tab: target.tab,
            path: target.path.map(AnyScreen.init),
            present: target.present.map(AnyScreen.init)
        )
        erased.keepsPlace = target.keepsPlace
        return erased
    }
}
