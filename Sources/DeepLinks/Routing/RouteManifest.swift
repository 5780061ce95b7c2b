/// A JSON description of a route table: its sources and, per route, the pattern, the parameters and the
/// sources it accepts. The app exports it (``RouteTable/manifest``); the server and the `deeplinks` command
/// load it (``RouteTable/init(manifest:limits:)``) to check and print links against the app's real routes.
public struct RouteManifest: Sendable, Hashable, Codable {
    public struct Entry: Sendable, Hashable, Codable {
        public var name: String
        public var pattern: String
        public var sources: [String]
        public var parameters: [ParameterSpec]
        /// ``Route/requiresConfirmation``; absent means false.
        public var confirm: Bool?
        /// ``Route/sourceApplications``, sorted; absent means any.
        public var sourceApplications: [String]?
    }

    public var version: Int
    public var schemes: [String]
    public var hosts: [String]
    public var routes: [Entry]

    public static let currentVersion = 1
}

/// A destination of a table loaded from a manifest: the route's name and its decoded parameters.
public struct ManifestDestination: Sendable, Hashable {
    public var route: String
    public var parameters: [String: [String]]

    public init(route: String, parameters: [String: [String]]) {
        self.route = route
        self.parameters = parameters
    }
}

extension RouteTable {
    /// This table as a manifest.
    public var manifest: RouteManifest {
        RouteManifest(
            version: RouteManifest.currentVersion,
            schemes: schemes,
            hosts: hosts,
            routes: routes.map {
                RouteManifest.Entry(
                    name: $0.name,
                    pattern: $0.pattern.description,
                    sources: $0.sources.names,
                    parameters: $0.parameters,
                    confirm: $0.requiresConfirmation ? true : nil,
                    sourceApplications: $0.sourceApplications?.sorted()
                )
            }
        )
    }
}

extension RouteTable where Destination == ManifestDestination {
    /// A table that matches and prints exactly as the app's, from its manifest.
    public init(manifest: RouteManifest, limits: URLLimits = .default) throws(RouteTableError) {
        var problems: [RouteTableDiagnostic] = []
        if manifest.version != RouteManifest.currentVersion {
            problems.append(
                .init(
                    code: .unsupportedManifestVersion,
                    severity: .error,
                    routes: [],
                    message:
                        "manifest version \(manifest.version) is not supported (expected \(RouteManifest.currentVersion))"
                )
            )
        }
        let routes = manifest.routes.map { entry in
            var sources: RouteSources = []
            for name in entry.sources {
                switch name {
                case "customScheme": sources.insert(.customScheme)
                case "universalLink": sources.insert(.universalLink)
                default:
                    problems.append(
                        .init(
                            code: .invalidSource,
                            severity: .error,
                            routes: [entry.name],
                            message: "unknown source '\(name)' (customScheme or universalLink)"
                        )
                    )
                }
            }
            let name = entry.name
            return Route<ManifestDestination>(
                name,
                entry.pattern,
                parameters: entry.parameters,
                sources: sources,
                requiresConfirmation: entry.confirm ?? false,
                sourceApplications: entry.sourceApplications.map(Set.init),
                parse: { ManifestDestination(route: name, parameters: $0.values) },
                print: { $0.route == name ? RouteValues($0.parameters) : nil }
            )
        }
        guard problems.isEmpty else { throw RouteTableError(diagnostics: problems) }
        try self.init(schemes: manifest.schemes, hosts: manifest.hosts, limits: limits, routes: routes)
    }
}
