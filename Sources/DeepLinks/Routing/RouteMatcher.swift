/// The non-generic heart of a ``RouteTable``: source checks, the trie walk and parameter extraction.
/// Kept free of the table's `Destination` type so it runs as specialized code from any module; only the
/// route's own `parse` closure is called through the generic table.
@usableFromInline
struct RouteMatcher: Sendable {
    /// A class, so that handing one to `extract` costs one retain, not one per field.
    final class Entry: Sendable {
        let name: String
        let pattern: RoutePattern
        let parameters: [ParameterSpec]
        let sources: RouteSources
        /// For each of `parameters`, the index of its captured path value, or -1 for query and fragment ones.
        let capturePositions: [Int]

        init(name: String, pattern: RoutePattern, parameters: [ParameterSpec], sources: RouteSources, capturePositions: [Int]) {
            self.name = name
            self.pattern = pattern
            self.parameters = parameters
            self.sources = sources
            self.capturePositions = capturePositions
        }
    }

    let schemes: [String]
    let hosts: [String]
    let entries: [Entry]
    let trie: RouteTrie

    init(schemes: [String], hosts: [String], entries: [Entry]) {
        self.schemes = schemes
        self.hosts = hosts
        self.entries = entries
        var trie = RouteTrie()
        for (index, entry) in entries.enumerated() {
            trie.insert(entry.pattern, route: index)
        }
        self.trie = trie
    }

    /// Walks the candidates for `url`, most specific first, and offers each one whose parameters are valid to
    /// `accept`, which returns nil to take it or a rejection to go on. Returns nil once a route is taken,
    /// otherwise the most useful rejection.
    @usableFromInline
    func match(_ url: LinkURL, accept: (Int, LinkSource, RouteParameters) -> LinkRejection?) -> LinkRejection? {
        let source: LinkSource
        if url.isWebURL {
            guard url.scheme == "https" else {
                return LinkRejection(.schemeNotAccepted, "universal links use https, not \(url.scheme)")
            }
            guard let host = url.host, hosts.contains(host) else {
                return LinkRejection(.hostNotAccepted, "the host is not one of this app's universal-link hosts (\(hosts.joined(separator: ", ")))")
            }
            source = .universalLink(host: host)
        } else {
            guard schemes.contains(url.scheme) else {
                return LinkRejection(.schemeNotAccepted, "the scheme '\(url.scheme)' is not one of this app's (\(schemes.joined(separator: ", ")))")
            }
            source = .customScheme(url.scheme)
        }
        var taken = false
        var firstRejection: LinkRejection?
        // Only what extraction reads, so the closure does not copy the whole URL at every candidate.
        let queryItems = url.queryItems
        let fragmentItems = url.fragmentItems
        trie.match(url.routeSegments) { index, captures in
            let rejection: LinkRejection?
            switch extract(entries[index], captures: captures, queryItems: queryItems, fragmentItems: fragmentItems, source: source) {
            case .success(let parameters): rejection = accept(index, source, parameters)
            case .failure(let failure): rejection = failure
            }
            guard let rejection else {
                taken = true
                return true
            }
            // A route that accepts this source explains better than one that does not.
            if firstRejection == nil || (firstRejection?.code == .sourceNotAccepted && rejection.code != .sourceNotAccepted) {
                firstRejection = rejection
            }
            return false
        }
        if taken { return nil }
        // The path is not repeated: it may hold a sensitive value.
        return firstRejection ?? LinkRejection(.noRoute, "no route has this path")
    }

    private func extract(
        _ route: Entry, captures: [String], queryItems: [QueryItem], fragmentItems: [QueryItem], source: LinkSource
    ) -> Result<RouteParameters, LinkRejection> {
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
                for item in queryItems where item.name == spec.name {
                    entries.append(.init(name: spec.name, value: item.value ?? ""))
                }
            case .fragment:
                for item in fragmentItems where item.name == spec.name {
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
        return .success(RouteParameters(entries: entries))
    }
}
