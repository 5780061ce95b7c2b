/// An app's routes, declared once, compiled to a trie, used both ways: ``match(_:)-(String)`` turns a URL into the
/// app's destination (or a ``LinkRejection`` with a reason), ``url(for:as:)`` prints a destination's URL.
///
/// Immutable and `Sendable`: build it once at start, share it everywhere. Building reports every conflict
/// (``RouteTableDiagnostic``): errors throw, warnings stay in ``diagnostics``.
public struct RouteTable<Destination: Sendable>: Sendable {
    /// Custom schemes the table accepts, lower-cased (`yourapp`).
    public let schemes: [String]
    /// Universal-link hosts the table accepts, lower-cased (`example.com`).
    public let hosts: [String]
    public let limits: URLLimits
    public let routes: [Route<Destination>]
    /// Warnings found while building (errors throw instead).
    public let diagnostics: [RouteTableDiagnostic]
    @usableFromInline let matcher: RouteMatcher
    /// Each route's `parse`, side by side: a match reads 16 bytes, not a whole ``Route``.
    @usableFromInline let parsers: [Parser]

    /// A route's `parse` as its ``Route`` holds it (an array of bare closures would wrap each in a thunk).
    @usableFromInline
    struct Parser: Sendable {
        @usableFromInline let parse: @Sendable (RouteParameters) throws -> Destination
    }
    /// Names of parameters any route marks sensitive: redacted in every description.
    public let sensitiveNames: Set<String>
    /// Each route's `print`, side by side, and what printing needs of each route (``URLPrinter``).
    @usableFromInline let printers: [Printer]
    @usableFromInline let printer: URLPrinter

    /// A route's `print` as its ``Route`` holds it.
    @usableFromInline
    struct Printer: Sendable {
        @usableFromInline let print: @Sendable (Destination) -> RouteValues?
    }
    /// Each route's index by name, for printing a ``RouteNamedDestination``.
    @usableFromInline let routeIndex: [String: Int]
    /// `routeName(for:)` when `Destination` is a ``RouteNamedDestination``: the conformance is looked up
    /// once, here, not by a dynamic cast on every print. In a struct, as `parsers` are, so that calling it needs
    /// no reabstraction thunk.
    @usableFromInline let routeNamer: RouteNamer?

    @usableFromInline
    struct RouteNamer: Sendable {
        @usableFromInline let name: @Sendable (Destination, LinkForm) -> String?
    }

    public init(
        schemes: [String],
        hosts: [String] = [],
        limits: URLLimits = .default,
        routes: [Route<Destination>]
    ) throws(RouteTableError) {
        self.schemes = schemes.map { $0.lowercased() }
        self.hosts = hosts.map { $0.lowercased() }
        self.limits = limits
        self.routes = routes
        var available: RouteSources = []
        if !schemes.isEmpty { available.insert(.customScheme) }
        if !hosts.isEmpty { available.insert(.universalLink) }
        let found = RouteTableChecker(schemes: self.schemes, hosts: self.hosts, available: available, routes: routes)
            .check()
        let errors = found.filter { $0.severity == .error }
        guard errors.isEmpty else { throw RouteTableError(diagnostics: errors) }
        diagnostics = found
        matcher = RouteMatcher(schemes: self.schemes, hosts: self.hosts, routes: routes)
        parsers = routes.map { Parser(parse: $0.parse) }
        printers = routes.map { Printer(print: $0.print) }
        printer = URLPrinter(
            schemes: self.schemes,
            hosts: self.hosts,
            maxURLLength: limits.maxURLLength,
            shapes: routes.map {
                URLPrinter.Shape(name: $0.name, pattern: $0.pattern, parameters: $0.parameters, sources: $0.sources)
            }
        )
        sensitiveNames = routes.reduce(into: []) { $0.formUnion($1.sensitiveNames) }
        routeNamer = (Destination.self as? any RouteNamedDestination.Type).map { Self.routeNamer($0) }
        routeIndex = Dictionary(routes.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    // MARK: Matching

    /// The destination of `string`, with the route and parameters that produced it, or why there is none.
    /// The URL policy and the match run in one pass over the string's bytes. Inlinable, so the app's module
    /// specializes it for its own `Destination` type.
    @inlinable
    public func match(_ string: String) -> Result<RouteMatch<Destination>, LinkRejection> {
        resolve { matcher.match(string, limits: limits, accept: $0) }
    }

    /// The destination of an already parsed URL: matched as its ``LinkURL/string``, by the one match path, under
    /// the table's limits but the length (the text may be longer than the one it was parsed from: `+` is
    /// written `%2B`).
    @inlinable
    public func match(_ url: LinkURL) -> Result<RouteMatch<Destination>, LinkRejection> {
        var relaxed = limits
        relaxed.maxURLLength = .max
        return resolve { matcher.match(url.string, limits: relaxed, accept: $0) }
    }

    /// Runs `matching` with the step that builds the destination of a candidate route through its `parse`.
    @inlinable
    func resolve(_ matching: (RouteMatcher.Accept) -> LinkRejection?) -> Result<RouteMatch<Destination>, LinkRejection>
    {
        var matched: RouteMatch<Destination>?
        let rejection = matching { index, source, parameters in
            do {
                matched = RouteMatch(
                    destination: try parsers[index].parse(parameters),
                    matcher: matcher,
                    index: Int32(index),
                    source: source,
                    parameters: parameters
                )
                return nil
            } catch {
                return matcher.refusal(index, error)
            }
        }
        if let matched { return .success(matched) }
        return .failure(rejection ?? LinkRejection(.noRoute, "no route has this path"))
    }

    /// The destination of `string`, or the rejection thrown.
    @inlinable
    public func destination(for string: String) throws(LinkRejection) -> Destination {
        try match(string).get().destination
    }
}

/// Where a matched link came from.
public enum LinkSource: Sendable, Hashable {
    case customScheme(String)
    case universalLink(host: String)
}

/// A URL matched to a destination, with what produced it.
///
/// Small on purpose: the route and the source are kept as the table's matcher and two indices there, looked up
/// only when asked for, so that a match (and the `Result` holding it) is copied and destroyed inline.
public struct RouteMatch<Destination: Sendable>: Sendable, CustomStringConvertible {
    public let destination: Destination
    public let parameters: RouteParameters
    @usableFromInline let matcher: RouteMatcher
    @usableFromInline let index: Int32
    @usableFromInline let sourceID: Int32

    public var source: LinkSource { matcher.source(sourceID) }
    public var routeName: String { matcher.entries[Int(index)].name }
    /// The route's pattern, as `/post/:id`.
    public var pattern: String { matcher.entries[Int(index)].pattern }
    /// Names of the route's sensitive parameters.
    public var sensitiveNames: Set<String> { matcher.entries[Int(index)].sensitiveNames }
    /// Whether the route's destination waits for the person's confirmation (``Route/requiresConfirmation``).
    public var requiresConfirmation: Bool { matcher.entries[Int(index)].requiresConfirmation }
    /// The apps whose custom-scheme links the route takes, nil for any (``Route/sourceApplications``).
    public var sourceApplications: Set<String>? { matcher.entries[Int(index)].sourceApplications }

    @usableFromInline
    init(destination: Destination, matcher: RouteMatcher, index: Int32, source: Int32, parameters: RouteParameters) {
        self.destination = destination
        self.matcher = matcher
        self.index = index
        self.sourceID = source
        self.parameters = parameters
    }

    /// The parameters with sensitive values replaced by `<redacted>`, sorted by name.
    public var redactedParameters: [String: [String]] {
        parameters.values.reduce(into: [:]) { result, entry in
            result[entry.key] = sensitiveNames.contains(entry.key) ? entry.value.map { _ in "<redacted>" } : entry.value
        }
    }

    /// `route-name pattern name=value ...`, sensitive values redacted. Safe to log.
    public var description: String {
        let parts = redactedParameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.joined(separator: ","))" }
        return ([routeName, pattern] + parts).joined(separator: " ")
    }
}
