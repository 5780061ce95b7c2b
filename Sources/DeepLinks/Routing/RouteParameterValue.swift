#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A type a route parameter can hold. `String`, `Int`, `Bool` and `UUID` conform; conform your own
/// (an ID wrapper, an enum of tabs) to use it in a route, and it is checked when a URL is matched.
public protocol RouteParameterValue: Sendable {
    /// The value a decoded parameter stands for, or nil when the text is not one.
    init?(routeParameter: String)
    /// The text that prints this value (before percent-encoding).
    var routeParameter: String { get }
    /// The kind recorded in the route manifest.
    static var parameterKind: ParameterKind { get }
}

extension RouteParameterValue {
    public static var parameterKind: ParameterKind { .custom(String(describing: Self.self)) }
}

extension String: RouteParameterValue {
    public init?(routeParameter: String) { self = routeParameter }
    public var routeParameter: String { self }
    public static var parameterKind: ParameterKind { .string }
}

extension Int: RouteParameterValue {
    /// Decimal digits with an optional leading `-`; no `+`, spaces or leading zeros beyond `0` itself,
    /// so every accepted text prints back identically.
    public init?(routeParameter text: String) {
        var text = text
        guard let value = text.withUTF8(Self.parseDecimal) else { return nil }
        self = value
    }

    private static func parseDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let negative = bytes.first == UInt8(ascii: "-")
        let digits = UnsafeBufferPointer(rebasing: bytes[(negative ? 1 : 0)...])
        guard let first = digits.first, first != UInt8(ascii: "0") || (digits.count == 1 && !negative) else {
            return nil
        }
        // Accumulated negatively, so Int.min fits.
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowAgain) = times.subtractingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflow, !overflowAgain else { return nil }
            value = sum
        }
        if negative { return value }
        return value == .min ? nil : -value
    }
    public var routeParameter: String { String(self) }
    public static var parameterKind: ParameterKind { .int }
}

extension Bool: RouteParameterValue {
    public init?(routeParameter: String) {
        switch routeParameter {
        case "true": self = true
        case "false": self = false
        default: return nil
        }
    }
    public var routeParameter: String { self ? "true" : "false" }
    public static var parameterKind: ParameterKind { .bool }
}

extension UUID: RouteParameterValue {
    /// Accepts either case; prints lower-case, the form most servers issue.
    public init?(routeParameter: String) {
        guard routeParameter.utf8.count == 36, let uuid = UUID(uuidString: routeParameter) else { return nil }
        self = uuid
    }
    public var routeParameter: String { uuidString.lowercased() }
    public static var parameterKind: ParameterKind { .uuid }
}

/// The kind of a parameter, as the route manifest records it.
public enum ParameterKind: Sendable, Hashable, Codable, CustomStringConvertible {
    case string, int, bool, uuid
    case custom(String)

    public var description: String {
        switch self {
        case .string: "string"
        case .int: "int"
        case .bool: "bool"
        case .uuid: "uuid"
        case .custom(let name): "custom:\(name)"
        }
    }

    init(parsing text: String) {
        switch text {
        case "string": self = .string
        case "int": self = .int
        case "bool": self = .bool
        case "uuid": self = .uuid
        default: self = .custom(text.hasPrefix("custom:") ? String(text.dropFirst(7)) : text)
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init(parsing: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Whether `text` is a value of this kind (custom kinds are checked by their type, not here).
    func accepts(_ text: String) -> Bool {
        switch self {
        case .string, .custom: true
        case .int: Int(routeParameter: text) != nil
        case .bool: Bool(routeParameter: text) != nil
        case .uuid: UUID(routeParameter: text) != nil
        }
    }
}
