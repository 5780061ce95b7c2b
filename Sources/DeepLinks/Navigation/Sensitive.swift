/// A value that must never be printed: a reset token carried to its screen, an address. It compares and hashes
/// as its value (a screen with another token is another screen), and every description of it, `print`, string
/// interpolation, `dump` and a debugger's summary, is `<redacted>`. Read it with ``value``.
///
/// ```swift
/// enum Screen: Hashable, Sendable {
///     case post(id: Int)
///     case resetPassword(token: Sensitive<String>)
/// }
/// ```
public struct Sensitive<Value: Hashable & Sendable>: Hashable, Sendable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    public var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// A sensitive route parameter may be read into, and printed from, a `Sensitive` value.
extension Sensitive: RouteParameterValue where Value: RouteParameterValue {
    public init?(routeParameter: String) {
        guard let value = Value(routeParameter: routeParameter) else { return nil }
        self.init(value)
    }

    public var routeParameter: String { value.routeParameter }
    public static var parameterKind: ParameterKind { Value.parameterKind }
}

extension Sensitive: RouteValueConvertible where Value: RouteParameterValue {}
