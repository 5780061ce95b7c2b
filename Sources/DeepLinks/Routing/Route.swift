/// Where a route accepts links from.
public struct RouteSources: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The table's custom schemes (`yourapp://...`).
    public static let customScheme = RouteSources(rawValue: 1)
    /// The table's universal-link hosts (`https://example.com/...`).
    public static let universalLink = RouteSources(rawValue: 2)
    public static let all: RouteSources = [.customScheme, .universalLink]

    var names: [String] {
        (contains(.customScheme) ? ["customScheme"] : []) + (contains(.universalLink) ? ["universalLink"] : [])
    }
}

/// One destination of a ``RouteTable``: a pattern, its parameters, the sources it accepts, and the two
/// directions: `parse` builds the app's destination from the parameters, `print` gives the parameters of a
/// destination (nil when the destination is not this route's).
///
/// ```swift
/// Route<AppRoute>("post", "/post/:id", parameters: [.path("id", Int.self)], parse: { p in try .post(id: p("id")) })
/// ```
///
/// Without `print:`, a destination is printed by reading its enum case: the case named like the route
/// (`reset-password` is `resetPassword`; `caseName:` names another), its associated values by their labels,
/// which are the parameters' names. Give `print:` when they differ (`.comments(postID:)` for `:id`), for a
/// destination that is not an enum, or for a case without associated values in a type with a description of its
/// own. `RouteTableCheck.roundTripFailures` (DeepLinksTesting) proves either way that every destination prints
/// and parses back to itself.
public struct Route<Destination: Sendable>: Sendable {
    public let name: String
    public let pattern: RoutePattern
    public let parameters: [ParameterSpec]
    public let sources: RouteSources
    /// Whether the destination changes something (deletes, pays, signs out, accepts): a link only proposes it,
    /// and ``LinkCoordinator`` carries it out once the person confirms (its `confirm` hook), never on the link
    /// alone.
    public let requiresConfirmation: Bool
    /// The apps (bundle IDs) whose custom-scheme links this route takes, nil for any. Any app can register
    /// another's scheme, but iOS names the sending app only when it is of the same developer team, and only to
    /// the app and scene delegates (`sourceApplication`), never to SwiftUI's `onOpenURL`: ``LinkCoordinator``
    /// carries such a link out only from a delivery that names an allowed sender. Universal links are not
    /// concerned (the association file decides which app they open).
    public let sourceApplications: Set<String>?
    @usableFromInline let parse: @Sendable (RouteParameters) throws -> Destination
    let print: @Sendable (Destination) -> RouteValues?
    /// For each of `parameters`, the index of its captured path value, or -1 for query and fragment ones.
    let capturePositions: [Int]
    let sensitiveNames: Set<String>

    /// - Parameters:
    ///   - name: unique in the table; the manifest and diagnostics use it.
    ///   - pattern: `/literal/:parameter/*catchAll`. Path parameters not listed in `parameters` are strings.
    ///   - parameters: the typed path, query and fragment parameters, with their limits and sensitivity.
    ///   - sources: where the route takes links from: the custom scheme, universal links, or both.
    ///   - requiresConfirmation: the destination changes something, so a link alone must not carry it out.
    ///   - sourceApplications: the only apps whose custom-scheme links the route takes (nil: any).
    ///   - parse: builds the destination from the parameters (`p("id")`); it throws for a value it refuses.
    ///   - print: the parameters of a destination of this route, nil for any other destination.
    public init(
        _ name: String,
        _ pattern: String,
        parameters: [ParameterSpec] = [],
        sources: RouteSources = .all,
        requiresConfirmation: Bool = false,
        sourceApplications: Set<String>? = nil,
        parse: @escaping @Sendable (RouteParameters) throws -> Destination,
        print: @escaping @Sendable (Destination) -> RouteValues?
    ) {
        self.name = name
        self.pattern = RoutePattern(pattern)
        let declared = Set(parameters.filter { $0.location == .path }.map(\.name))
        let implicit = self.pattern.parameterNames.filter { !declared.contains($0) }.map { ParameterSpec.path($0) }
        self.parameters = implicit + parameters
        self.sources = sources
        self.requiresConfirmation = requiresConfirmation
        self.sourceApplications = sourceApplications
        self.parse = parse
        self.print = print
        let names = self.pattern.parameterNames
        capturePositions = self.parameters.map { $0.location == .path ? (names.firstIndex(of: $0.name) ?? -1) : -1 }
        sensitiveNames = Set(self.parameters.filter(\.isSensitive).map(\.name))
    }
}

extension Route {
    /// A route whose destinations print by their enum case (see the type's overview): the case `caseName`
    /// (default: the route's name in lower camel case), its associated values by label.
    public init(
        _ name: String,
        _ pattern: String,
        parameters: [ParameterSpec] = [],
        sources: RouteSources = .all,
        requiresConfirmation: Bool = false,
        sourceApplications: Set<String>? = nil,
        caseName: String? = nil,
        parse: @escaping @Sendable (RouteParameters) throws -> Destination
    ) {
        let caseName = caseName ?? Self.lowerCamelCase(name)
        let names = Set(RoutePattern(pattern).parameterNames + parameters.map(\.name))
        let single = names.count == 1 ? names.first : nil
        self.init(
            name,
            pattern,
            parameters: parameters,
            sources: sources,
            requiresConfirmation: requiresConfirmation,
            sourceApplications: sourceApplications,
            parse: parse,
            print: { Self.reflectedValues(of: $0, caseName: caseName, single: single) }
        )
    }

    /// `reset-password` and `reset_password` are `resetPassword`.
    static func lowerCamelCase(_ name: String) -> String {
        let words = name.split(whereSeparator: { $0 == "-" || $0 == "_" })
        return words.enumerated().map { index, word in
            index == 0 ? String(word) : word.prefix(1).uppercased() + word.dropFirst()
        }.joined()
    }

    /// The parameters of `destination` when it is the enum case `caseName`: each labelled associated value whose
    /// value prints (an absent optional is left out); a single unlabelled one is the route's one parameter.
    static func reflectedValues(of destination: Destination, caseName: String, single: String?) -> RouteValues? {
        let mirror = Mirror(reflecting: destination)
        guard mirror.displayStyle == .enum else { return nil }
        guard let payload = mirror.children.first else {
            return String(describing: destination) == caseName ? RouteValues(pairs: []) : nil
        }
        guard payload.label == caseName else { return nil }
        let fields = Mirror(reflecting: payload.value)
        guard fields.displayStyle == .tuple else {
            guard let single, let value = payload.value as? any RouteValueConvertible else {
                return RouteValues(pairs: [])
            }
            return RouteValues(pairs: [(single, value)])
        }
        return RouteValues(
            pairs: fields.children.compactMap { field in
                guard let label = field.label, let value = field.value as? any RouteValueConvertible else {
                    return nil
                }
                return (label, value)
            }
        )
    }
}
