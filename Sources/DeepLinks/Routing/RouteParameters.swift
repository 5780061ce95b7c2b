#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The decoded parameters of a matched URL, read by a route's `parse` closure with typed getters:
/// `try p("id")` for a required value, `p("email")` as an optional, `p("tag")` as a list.
public struct RouteParameters: Sendable, Hashable {
    @usableFromInline
    struct Entry: Sendable, Hashable {
        @usableFromInline var name: String
        @usableFromInline var value: String
    }

    /// One entry per value, in declaration order (a list has one entry per element): one allocation per match.
    @usableFromInline let entries: [Entry]

    init(entries: [Entry]) {
        self.entries = entries
    }

    public init(_ values: [String: [String]]) {
        entries = values.sorted { $0.key < $1.key }.flatMap { name, list in list.map { Entry(name: name, value: $0) } }
    }

    /// Values by parameter name; a single value is a one-element list.
    public var values: [String: [String]] {
        entries.reduce(into: [:]) { $0[$1.name, default: []].append($1.value) }
    }

    @usableFromInline
    func first(_ name: String) -> String? {
        for entry in entries where entry.name == name { return entry.value }
        return nil
    }

    // The getters are inlinable, so a route's `parse` closure reads its values through code specialized for
    // their types.

    /// A required value of type `T`.
    @inlinable
    public func callAsFunction<T: RouteParameterValue>(_ name: String) throws(ParameterError) -> T {
        guard let text = first(name) else { throw ParameterError(name: name, reason: "is missing") }
        guard let value = T(routeParameter: text) else {
            throw ParameterError(name: name, reason: "is not a valid \(T.parameterKind)")
        }
        return value
    }

    /// An optional value: nil when absent.
    @inlinable
    public func callAsFunction<T: RouteParameterValue>(_ name: String) throws(ParameterError) -> T? {
        guard let text = first(name) else { return nil }
        guard let value = T(routeParameter: text) else {
            throw ParameterError(name: name, reason: "is not a valid \(T.parameterKind)")
        }
        return value
    }

    /// Every value of a repeated parameter, in order.
    @inlinable
    public func callAsFunction<T: RouteParameterValue>(_ name: String) throws(ParameterError) -> [T] {
        var result: [T] = []
        for entry in entries where entry.name == name {
            let text = entry.value
            guard let value = T(routeParameter: text) else {
                throw ParameterError(name: name, reason: "is not a valid \(T.parameterKind)")
            }
            result.append(value)
        }
        return result
    }
}

/// A parameter a route's closure could not read. Names the parameter, never its value.
public struct ParameterError: Error, Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var reason: String

    public init(name: String, reason: String) {
        self.name = name
        self.reason = reason
    }

    public var description: String { "parameter '\(name)' \(reason)" }
}

/// The parameters of a destination, given by a route's `print` closure:
/// `["id": id, "email": email, "tag": tags]`. nil values (an absent optional) are left out.
public struct RouteValues: Sendable, ExpressibleByDictionaryLiteral {
    /// A parameter's texts: one for a value, any number for a list. One value is kept as it is, without an array
    /// around it (printing a link makes one of these per parameter).
    enum Texts: Sendable {
        case one(String)
        case many([String])

        static let none = Texts.many([])

        var count: Int {
            switch self {
            case .one: 1
            case .many(let texts): texts.count
            }
        }

        subscript(index: Int) -> String {
            switch self {
            case .one(let text): text
            case .many(let texts): texts[index]
            }
        }

        var array: [String] {
            switch self {
            case .one(let text): [text]
            case .many(let texts): texts
            }
        }
    }

    /// In the order given (a later entry for the same name wins): a route has a few parameters, so the printer
    /// finds one by comparing names, without building or hashing into a dictionary on every print.
    private var entries: [(name: String, texts: Texts)] = []

    public var values: [String: [String]] {
        Dictionary(entries.map { ($0.name, $0.texts.array) }, uniquingKeysWith: { _, last in last })
    }

    public init(dictionaryLiteral elements: (String, (any RouteValueConvertible)?)...) {
        entries.reserveCapacity(elements.count)
        for (name, value) in elements {
            guard let value else { continue }
            entries.append((name, value.singleRouteValue.map(Texts.one) ?? .many(value.routeValues)))
        }
    }

    init(pairs: [(String, any RouteValueConvertible)]) {
        entries = pairs.map { name, value in (name, value.singleRouteValue.map(Texts.one) ?? .many(value.routeValues)) }
    }

    public init(_ values: [String: [String]]) {
        entries = values.map { ($0.key, .many($0.value)) }
    }

    /// The texts given for `name`, none when none.
    func texts(of name: String) -> Texts {
        entries.last { $0.name == name }?.texts ?? .none
    }
}

/// What a ``RouteValues`` entry accepts: a parameter value, or an array of them.
public protocol RouteValueConvertible: Sendable {
    var routeValues: [String] { get }
    /// The one text of a single value (a ``RouteParameterValue``), so that printing builds no array for it; nil
    /// for a list.
    var singleRouteValue: String? { get }
}

extension RouteValueConvertible {
    public var singleRouteValue: String? { nil }
}

extension RouteValueConvertible where Self: RouteParameterValue {
    public var singleRouteValue: String? { routeParameter }
}

extension RouteParameterValue {
    public var routeValues: [String] { [routeParameter] }
}

extension String: RouteValueConvertible {}
extension Int: RouteValueConvertible {}
extension Bool: RouteValueConvertible {}
extension UUID: RouteValueConvertible {}

extension Array: RouteValueConvertible where Element: RouteParameterValue {
    public var routeValues: [String] { map(\.routeParameter) }
}
