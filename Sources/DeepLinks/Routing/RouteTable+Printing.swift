/// The form of a printed link.
public enum LinkForm: Sendable, Hashable {
    /// `yourapp://post/10`, with the table's first custom scheme, or the one given.
    case customScheme(String? = nil)
    /// `https://example.com/post/10`, with the table's first host, or the one given.
    case universalLink(host: String? = nil)
}

/// Why a destination could not be printed. Names the route and parameter, never a value.
public struct PrintError: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }

    @usableFromInline
    init(reason: String) { self.reason = reason }
}

/// A destination that names the route printing it, so that ``RouteTable/url(for:as:)`` finds that route by
/// name, in constant time, instead of asking each route's `print` in turn (linear in the table's size: 44 µs
/// at 1,000 routes, 440 µs at 10,000).
public protocol RouteNamedDestination: Sendable {
    /// The name of the route that prints this destination in `form`. A destination printed by two routes (the
    /// universal link with its token in the fragment, a custom-scheme twin with it in the query) names the one
    /// of that form. Nil, or a route whose `print` refuses the destination, falls back to asking every route.
    func routeName(for form: LinkForm) -> String?
}

extension ManifestDestination: RouteNamedDestination {
    public func routeName(for form: LinkForm) -> String? { route }
}

extension RouteTable {
    /// The URL of `destination` in the given form, printed from the route that claims it: the one it names when
    /// it is a ``RouteNamedDestination``, otherwise the first route whose `print` accepts it.
    ///
    /// Every value is checked against its parameter's constraints, and everything outside RFC 3986's
    /// unreserved set is percent-encoded (`+` as `%2B`, `@` as `%40`). That a printed URL routes back to the
    /// same destination (`parse` and `print` agree, no earlier route shadows it) is a property of the table,
    /// checked once in tests by `RouteTableCheck.roundTripFailures` of DeepLinksTesting, not on every print.
    ///
    /// Inlinable, so the app's module specializes it for its own `Destination` type; the printing itself is
    /// the table's printer's, which is not generic.
    @inlinable
    public func url(for destination: Destination, as form: LinkForm = .universalLink()) throws(PrintError) -> String {
        let wanted: RouteSources = if case .customScheme = form { .customScheme } else { .universalLink }
        if let name = routeNamer?.name(destination, form), let index = routeIndex[name],
            let values = printers[index].print(destination)
        {
            guard printer.shapes[index].sources.contains(wanted) else { throw formRefused(index, wanted) }
            return try printer.url(route: index, values, form: form)
        }
        var claimed: Int?
        for index in printers.indices {
            guard let values = printers[index].print(destination) else { continue }
            claimed = claimed ?? index
            guard printer.shapes[index].sources.contains(wanted) else { continue }
            return try printer.url(route: index, values, form: form)
        }
        if let claimed { throw formRefused(claimed, wanted) }
        throw PrintError(reason: "no route prints this destination")
    }

    /// `routeName(for:)` of a `Destination` that is `Named`, which the caller has checked.
    static func routeNamer<Named: RouteNamedDestination>(_: Named.Type) -> RouteNamer {
        RouteNamer { destination, form in unsafeBitCast(destination, to: Named.self).routeName(for: form) }
    }

    @usableFromInline
    func formRefused(_ index: Int, _ wanted: RouteSources) -> PrintError {
        PrintError(
            reason:
                "route '\(printer.shapes[index].name)' does not accept \(wanted == .customScheme ? "custom-scheme" : "universal") links"
        )
    }

    /// `string` with the values of sensitive query and fragment parameters replaced by `REDACTED`, for logs.
    /// A fragment that is not `name=value` items is redacted whole when any route has a sensitive fragment
    /// parameter, and so is everything after the `?` or `#` of a URL that does not pass the URL policy (it
    /// cannot be read as items, and it may be a rejected link's secret).
    public func redact(_ string: String) -> String {
        guard !sensitiveNames.isEmpty else { return string }
        guard var parts = try? URLParts(parsing: string, limits: limits) else {
            guard let mark = string.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return string }
            return string[...mark] + "REDACTED"
        }
        func redacted(_ items: String) -> String {
            URLParts.rewritingItems(items) { name, pair in
                guard let equals = pair.firstIndex(of: "="), name.map(sensitiveNames.contains) != false else {
                    return String(pair)
                }
                return pair[..<equals] + "=REDACTED"
            }
        }
        parts.query = parts.query.map(redacted)
        parts.fragment = parts.fragment.map { $0.contains("=") ? redacted($0) : ($0.isEmpty ? "" : "REDACTED") }
        return parts.string
    }
}
