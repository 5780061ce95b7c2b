/// An app's routes, declared once, compiled to a trie, used both ways: ``match(_:)`` turns a URL into the
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
    let trie: RouteTrie
    /// Names of parameters any route marks sensitive: redacted in every description.
    public let sensitiveNames: Set<String>

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
        let found = RouteTableChecker(schemes: self.schemes, hosts: self.hosts, available: available, routes: routes).check()
        let errors = found.filter { $0.severity == .error }
        guard errors.isEmpty else { throw RouteTableError(diagnostics: errors) }
        diagnostics = found
        var trie = RouteTrie()
        for (index, route) in routes.enumerated() {
            trie.insert(route.pattern, route: index)
        }
        self.trie = trie
        sensitiveNames = routes.reduce(into: []) { $0.formUnion($1.sensitiveNames) }
    }

    // MARK: Matching

    /// The destination of `string`, with the route and parameters that produced it, or why there is none.
    public func match(_ string: String) -> Result<RouteMatch<Destination>, LinkRejection> {
        let url: LinkURL
        do {
            url = try LinkURL(parsing: string, limits: limits)
        } catch {
            return .failure(LinkRejection(error))
        }
        return match(url)
    }

    /// The destination of an already parsed URL.
    public func match(_ url: LinkURL) -> Result<RouteMatch<Destination>, LinkRejection> {
        let source: LinkSource
        if url.isWebURL {
            guard url.scheme == "https" else {
                return .failure(LinkRejection(.schemeNotAccepted, "universal links use https, not \(url.scheme)"))
            }
            guard let host = url.host, hosts.contains(host) else {
                return .failure(LinkRejection(.hostNotAccepted, "the host is not one of this app's universal-link hosts (\(hosts.joined(separator: ", ")))"))
            }
            source = .universalLink(host: host)
        } else {
            guard schemes.contains(url.scheme) else {
                return .failure(LinkRejection(.schemeNotAccepted, "the scheme '\(url.scheme)' is not one of this app's (\(schemes.joined(separator: ", ")))"))
            }
            source = .customScheme(url.scheme)
        }
        var result: Result<RouteMatch<Destination>, LinkRejection>?
        var firstRejection: LinkRejection?
        trie.match(url.routeSegments) { index, captures in
            switch attempt(routes[index], captures: captures, url: url, source: source) {
            case .success(let match):
                result = .success(match)
                return true
            case .failure(let rejection):
                // A route that accepts this source explains better than one that does not.
                if firstRejection == nil || (firstRejection?.code == .sourceNotAccepted && rejection.code != .sourceNotAccepted) {
                    firstRejection = rejection
                }
                return false
            }
        }
        if let result { return result }
        // The path is not repeated: it may hold a sensitive value.
        return .failure(firstRejection ?? LinkRejection(.noRoute, "no route has this path"))
    }

    /// The destination of `string`, or the rejection thrown.
    public func destination(for string: String) throws(LinkRejection) -> Destination {
        try match(string).get().destination
    }

    private func attempt(_ route: Route<Destination>, captures: [String], url: LinkURL, source: LinkSource) -> Result<RouteMatch<Destination>, LinkRejection> {
        guard route.sources.contains(source.kind) else {
            return .failure(LinkRejection(.sourceNotAccepted, "route '\(route.name)' does not accept \(source.kind == .customScheme ? "custom-scheme links" : "universal links")"))
        }
        var entries: [RouteParameters.Entry] = []
        entries.reserveCapacity(route.parameters.count)
        for (offset, spec) in route.parameters.enumerated() {
            let start = entries.count
            switch spec.location {
            case .path:
                let position = route.capturePositions[offset]
                guard position >= 0, position < captures.count else { continue }
                entries.append(.init(name: spec.name, value: captures[position]))
            case .query:
                for item in url.queryItems where item.name == spec.name {
                    entries.append(.init(name: spec.name, value: item.value ?? ""))
                }
            case .fragment:
                for item in url.fragmentItems where item.name == spec.name {
                    entries.append(.init(name: spec.name, value: item.value ?? ""))
                }
            }
            let found = entries.count - start
            if found == 0 {
                switch spec.presence {
                case .required:
                    return .failure(LinkRejection(.missingParameter, "route '\(route.name)' needs the \(spec.location) parameter '\(spec.name)'"))
                case .optional, .list: continue
                case .defaultValue(let value): entries.append(.init(name: spec.name, value: value))
                }
            } else if found > 1, spec.presence != .list {
                return .failure(LinkRejection(.invalidParameter, "route '\(route.name)': parameter '\(spec.name)' appears \(found) times but takes one value"))
            }
            for entry in entries[start...] {
                if let violation = spec.violation(entry.value) {
                    return .failure(LinkRejection(.invalidParameter, "route '\(route.name)': parameter '\(spec.name)' \(violation)"))
                }
            }
        }
        let parameters = RouteParameters(entries: entries)
        do {
            let destination = try route.parse(parameters)
            return .success(RouteMatch(destination: destination, route: route, source: source, parameters: parameters))
        } catch let error as ParameterError {
            return .failure(LinkRejection(.invalidParameter, "route '\(route.name)': \(error)"))
        } catch {
            return .failure(LinkRejection(.invalidParameter, "route '\(route.name)' refused its parameters (\(type(of: error)))"))
        }
    }
}

/// Where a matched link came from.
public enum LinkSource: Sendable, Hashable {
    case customScheme(String)
    case universalLink(host: String)

    var kind: RouteSources {
        switch self {
        case .customScheme: .customScheme
        case .universalLink: .universalLink
        }
    }
}

/// A URL matched to a destination, with what produced it.
public struct RouteMatch<Destination: Sendable>: Sendable, CustomStringConvertible {
    public let destination: Destination
    public let routeName: String
    public let pattern: String
    public let source: LinkSource
    public let parameters: RouteParameters
    /// Names of the route's sensitive parameters.
    public let sensitiveNames: Set<String>

    init(destination: Destination, route: Route<Destination>, source: LinkSource, parameters: RouteParameters) {
        self.destination = destination
        self.routeName = route.name
        self.pattern = route.pattern.description
        self.source = source
        self.parameters = parameters
        self.sensitiveNames = route.sensitiveNames
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
