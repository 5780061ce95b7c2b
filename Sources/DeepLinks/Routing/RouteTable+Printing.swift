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
}

/// A destination that names the route printing it, so that ``RouteTable/url(for:as:)`` finds that route by
/// name, in constant time, instead of asking each route's `print` in turn (linear in the table's size: 44 µs
/// at 1,000 routes, 440 µs at 10,000).
public protocol RouteNamedDestination {
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
    public func url(for destination: Destination, as form: LinkForm = .universalLink()) throws(PrintError) -> String {
        let wanted: RouteSources = if case .customScheme = form { .customScheme } else { .universalLink }
        if let name = routeName?(destination, form), let index = routeIndex[name] {
            let route = routes[index]
            if let values = route.print(destination) {
                guard route.sources.contains(wanted) else { throw Self.formRefused(route, wanted) }
                return try print(route, values, form: form)
            }
        }
        var claimed: Route<Destination>?
        for route in routes {
            guard let values = route.print(destination) else { continue }
            claimed = route
            guard route.sources.contains(wanted) else { continue }
            return try print(route, values, form: form)
        }
        if let claimed { throw Self.formRefused(claimed, wanted) }
        throw PrintError(reason: "no route prints this destination")
    }

    /// `routeName(for:)` of a `Destination` that is `Named`, which the caller has checked.
    static func routeNamer<Named: RouteNamedDestination>(_: Named.Type) -> @Sendable (Destination, LinkForm) -> String?
    {
        { destination, form in unsafeBitCast(destination, to: Named.self).routeName(for: form) }
    }

    private static func formRefused(_ route: Route<Destination>, _ wanted: RouteSources) -> PrintError {
        PrintError(
            reason:
                "route '\(route.name)' does not accept \(wanted == .customScheme ? "custom-scheme" : "universal") links"
        )
    }

    func print(_ route: Route<Destination>, _ values: RouteValues, form: LinkForm) throws(PrintError) -> String {
        func checked(_ spec: ParameterSpec) throws(PrintError) -> [String] {
            let given = values.values(of: spec.name)
            if given.isEmpty {
                if spec.presence == .required {
                    throw PrintError(reason: "route '\(route.name)': parameter '\(spec.name)' is missing")
                }
                return []
            }
            if given.count > 1, spec.presence != .list {
                throw PrintError(
                    reason: "route '\(route.name)': parameter '\(spec.name)' takes one value, got \(given.count)"
                )
            }
            for value in given {
                if let violation = spec.violation(value) {
                    throw PrintError(reason: "route '\(route.name)': parameter '\(spec.name)' \(violation)")
                }
            }
            return given
        }
        // One string, built in place: the path from the route's pre-encoded literals and its parameters' values.
        var path = ""
        path.reserveCapacity(64)
        for segment in route.printSegments {
            if !path.isEmpty { path += "/" }
            switch segment {
            case .literal(let encoded):
                path += encoded
            case .parameter(let index):
                let spec = route.parameters[index]
                let value = try checked(spec)[0]
                guard !value.isEmpty else {
                    throw PrintError(reason: "route '\(route.name)': path parameter '\(spec.name)' is empty")
                }
                PercentEncoding.append(value, to: &path)
            case .catchAll(let index):
                let spec = route.parameters[index]
                let pieces = try checked(spec)[0].split(separator: "/", omittingEmptySubsequences: false)
                guard !pieces.contains(where: \.isEmpty) else {
                    throw PrintError(reason: "route '\(route.name)': catch-all '\(spec.name)' has an empty segment")
                }
                for (position, piece) in pieces.enumerated() {
                    if position > 0 { path += "/" }
                    PercentEncoding.append(piece, to: &path)
                }
            }
        }
        var url: String
        switch form {
        case .customScheme(let scheme):
            guard let scheme = (scheme?.lowercased() ?? schemes.first), schemes.contains(scheme) else {
                throw PrintError(reason: "the table has no custom scheme \(scheme.map { "'\($0)'" } ?? "")")
            }
            // The host position is case-insensitive: use it only for a literal that survives lower-casing.
            url = scheme + (path.isEmpty || route.printsHostPosition ? "://" : ":///") + path
        case .universalLink(let host):
            guard let host = (host?.lowercased() ?? hosts.first), hosts.contains(host) else {
                throw PrintError(reason: "the table has no universal-link host \(host.map { "'\($0)'" } ?? "")")
            }
            url = "https://" + host + "/" + path
        }
        for (location, separator) in itemSections {
            var first = true
            for spec in route.parameters where spec.location == location {
                for value in try checked(spec) {
                    url += first ? separator : "&"
                    first = false
                    PercentEncoding.append(spec.name, to: &url)
                    url += "="
                    PercentEncoding.append(value, to: &url)
                }
            }
        }
        guard url.utf8.count <= limits.maxURLLength else {
            throw PrintError(
                reason:
                    "route '\(route.name)': the URL would be \(url.utf8.count) bytes, over the limit of \(limits.maxURLLength)"
            )
        }
        return url
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

/// Where a printed URL's items go, in order: built once, not on every print.
private let itemSections: [(ParameterSpec.Location, String)] = [(.query, "?"), (.fragment, "#")]
