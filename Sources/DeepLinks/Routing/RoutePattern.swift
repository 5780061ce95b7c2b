/// A route's path: literal segments, `:name` parameters, and an optional trailing `*name` catch-all.
/// `"/post/:id/comments"`, `"/files/*path"`. Leading and trailing slashes are optional.
public struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    public enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
        case catchAll(String)
    }

    public let segments: [Segment]
    public let text: String
    /// The pattern as `/a/:b/*c`, computed once.
    public let description: String
    /// Path parameter names, in order: the i-th captured value belongs to the i-th name.
    let parameterNames: [String]

    /// Parses a pattern; problems (an empty name, a catch-all that is not last) become table diagnostics.
    /// Public so that tools read a manifest's patterns with the grammar the table uses.
    public init(_ text: String) {
        self.text = text
        segments = text.split(separator: "/", omittingEmptySubsequences: true).map { part in
            if part.hasPrefix(":") { return .parameter(String(part.dropFirst())) }
            if part.hasPrefix("*") { return .catchAll(String(part.dropFirst())) }
            return .literal(String(part))
        }
        description = "/" + segments.map(\.text).joined(separator: "/")
        parameterNames = segments.compactMap {
            switch $0 {
            case .literal: nil
            case .parameter(let name), .catchAll(let name): name
            }
        }
    }

    /// The pattern with parameter names erased: two routes with the same shape match the same URLs.
    var shape: [String] {
        segments.map {
            switch $0 {
            case .literal(let text): "=" + text
            case .parameter: ":"
            case .catchAll: "*"
            }
        }
    }

    var problems: [String] {
        var problems: [String] = []
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .parameter(let name) where name.isEmpty, .catchAll(let name) where name.isEmpty:
                problems.append("segment \(index + 1) is a parameter without a name")
            case .catchAll where index != segments.count - 1:
                problems.append("the catch-all '\(segment.text)' must be the last segment")
            default: break
            }
        }
        return problems
    }
}

extension RoutePattern.Segment {
    var text: String {
        switch self {
        case .literal(let text): text
        case .parameter(let name): ":" + name
        case .catchAll(let name): "*" + name
        }
    }
}
