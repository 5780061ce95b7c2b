/// Finds every problem of a route table before it is built: invalid patterns and parameters,
/// duplicate names and routes, unreachable routes (errors), and overlapping routes (warnings).
struct RouteTableChecker<Destination: Sendable> {
    let schemes: [String]
    let hosts: [String]
    let available: RouteSources
    let routes: [Route<Destination>]

    func check() -> [RouteTableDiagnostic] {
        var found: [RouteTableDiagnostic] = []
        func report(
            _ code: RouteTableDiagnostic.Code,
            _ severity: RouteTableDiagnostic.Severity,
            _ names: [String],
            _ message: String
        ) {
            found.append(RouteTableDiagnostic(code: code, severity: severity, routes: names, message: message))
        }
        for scheme in schemes where !Self.isCustomScheme(scheme) {
            report(
                .invalidSource,
                .error,
                [],
                "'\(scheme)' is not a custom URL scheme (a letter, then letters, digits, '+', '-' or '.'; not http or https)"
            )
        }
        for host in hosts where host.isEmpty || host.contains(where: { "/:@?#% ".contains($0) }) {
            report(.invalidSource, .error, [], "'\(host)' is not a host name")
        }

        var byName: [String: Int] = [:]
        for route in routes {
            byName[route.name, default: 0] += 1
            let name = [route.name]
            for problem in route.pattern.problems {
                report(.invalidPattern, .error, name, "pattern '\(route.pattern.text)': \(problem)")
            }
            var seen: Set<String> = []
            for parameter in route.pattern.parameterNames
                + route.parameters.filter({ $0.location != .path }).map(\.name)
            {
                if !seen.insert(parameter).inserted {
                    report(.duplicateParameter, .error, name, "the parameter name '\(parameter)' is used twice")
                }
            }
            let pathNames = Set(route.pattern.parameterNames)
            for spec in route.parameters {
                if spec.location == .path {
                    if !pathNames.contains(spec.name) {
                        report(
                            .invalidPattern,
                            .error,
                            name,
                            "declares the path parameter '\(spec.name)' that pattern '\(route.pattern.text)' lacks"
                        )
                    }
                    if spec.presence != .required {
                        report(.invalidParameter, .error, name, "path parameter '\(spec.name)' must be required")
                    }
                }
                if let min = spec.minLength, let max = spec.maxLength, min > max {
                    report(
                        .unreachableRoute,
                        .error,
                        name,
                        "parameter '\(spec.name)' needs at least \(min) and at most \(max) characters"
                    )
                }
                if case .defaultValue(let value) = spec.presence, let violation = spec.violation(value) {
                    report(.invalidParameter, .error, name, "the default of parameter '\(spec.name)' \(violation)")
                }
            }
            if route.sources.intersection(available).isEmpty {
                let missing = route.sources.contains(.universalLink) ? "universal-link hosts" : "custom schemes"
                report(
                    .unreachableRoute,
                    .error,
                    name,
                    "accepts only \(route.sources.names.joined(separator: " and ")) links, and the table has no \(missing)"
                )
            }
        }
        for (name, count) in byName.sorted(by: { $0.key < $1.key }) where count > 1 {
            report(.duplicateName, .error, [name], "\(count) routes are named '\(name)'")
        }

        // Same shape, common source: the second can never be reached.
        var byShape: [[String]: [Int]] = [:]
        for (index, route) in routes.enumerated() {
            byShape[route.pattern.shape, default: []].append(index)
        }
        for indexes in byShape.values where indexes.count > 1 {
            for (offset, first) in indexes.enumerated() {
                for second in indexes[(offset + 1)...]
                where !routes[first].sources.intersection(routes[second].sources).isEmpty {
                    report(
                        .duplicateRoute,
                        .error,
                        [routes[first].name, routes[second].name],
                        "'\(routes[first].pattern)' and '\(routes[second].pattern)' match the same URLs; '\(routes[second].name)' is unreachable"
                    )
                }
            }
        }
        found += overlaps()
        return found
    }

    /// Pairs of routes of the same length whose segments unify but differ (a literal facing a parameter).
    /// Routes are bucketed by first segment, so a table of distinct prefixes costs O(n).
    private func overlaps() -> [RouteTableDiagnostic] {
        var buckets: [String: [Int]] = [:]
        var wild: [Int] = []
        for (index, route) in routes.enumerated() {
            guard !route.pattern.segments.contains(where: { if case .catchAll = $0 { true } else { false } }) else {
                continue
            }
            if case .literal(let text) = route.pattern.segments.first {
                buckets[text, default: []].append(index)
            } else {
                wild.append(index)
            }
        }
        var pairs: [(Int, Int)] = []
        for bucket in buckets.values {
            for (offset, first) in bucket.enumerated() {
                for second in bucket[(offset + 1)...] { pairs.append((first, second)) }
                for second in wild { pairs.append((first, second)) }
            }
        }
        for (offset, first) in wild.enumerated() {
            for second in wild[(offset + 1)...] { pairs.append((first, second)) }
        }
        var found: [RouteTableDiagnostic] = []
        for (first, second) in pairs.sorted(by: { ($0.0, $0.1) < ($1.0, $1.1) }) {
            let a = routes[first].pattern.segments
            let b = routes[second].pattern.segments
            guard a.count == b.count, a != b, routes[first].pattern.shape != routes[second].pattern.shape else {
                continue
            }
            var unify = true
            for (x, y) in zip(a, b) {
                if case .literal(let p) = x, case .literal(let q) = y, p != q {
                    unify = false
                    break
                }
            }
            guard unify else { continue }
            found.append(
                RouteTableDiagnostic(
                    code: .overlap,
                    severity: .warning,
                    routes: [routes[first].name, routes[second].name],
                    message:
                        "'\(routes[first].pattern)' and '\(routes[second].pattern)' overlap; a literal segment wins over a parameter, and a URL the literal route refuses falls back to the other"
                )
            )
        }
        return found
    }

    static func isCustomScheme(_ scheme: String) -> Bool {
        guard let first = scheme.unicodeScalars.first, ("a"..."z").contains(first), scheme != "http", scheme != "https"
        else { return false }
        return scheme.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)
        }
    }
}
