import AppSiteAssociation
import DeepLinks
import DeepLinksSecrets

/// Which route of the app's manifest opens its reset screen, and which of its parameters carry the token and
/// the address: the server prints every reset link from it (mail, the "not you?" notice, the web form's Smart
/// App Banner) and serves the web form at its path, for a phone without the app.
///
/// A configuration is refused when the route could leak the token or would not open the app: it must be a
/// route of the manifest, take universal links only, have a fixed path the association file claims, and carry
/// the token (and the address, if any) in the fragment, marked sensitive. A custom-scheme link is opt-in
/// (``customSchemeRoute``): any app can register a scheme, and the token would travel in its link.
public struct PasswordResetRoute: Sendable, Equatable {
    /// The universal-link route's name in the manifest.
    public var route: String
    /// The route's fixed path, as in `/reset-password`.
    public var path: String
    /// The fragment parameter that carries the token.
    public var tokenParameter: String
    /// The fragment parameter that carries the address, when the route has one.
    public var emailParameter: String?
    /// The custom-scheme route of the mail's second link; nil (the default) for no such link.
    public var customSchemeRoute: String?

    public init(
        route: String,
        path: String,
        tokenParameter: String = "token",
        emailParameter: String? = nil,
        customSchemeRoute: String? = nil
    ) {
        self.route = route
        self.path = path
        self.tokenParameter = tokenParameter
        self.emailParameter = emailParameter
        self.customSchemeRoute = customSchemeRoute
    }

    /// The first segments of the server's own paths: a reset path may not start with one.
    static let serverSegments: Set<String> = [
        "v1", "assets", "healthz", "metrics", "robots.txt", "favicon.ico", ".well-known", "apple-app-site-association",
    ]

    /// The section checked against the app's manifest; nil, with every problem recorded under `key`, when it
    /// cannot be used. Whether the association file claims the path is checked once the app is whole
    /// (``AppConfiguration/resetRouteProblems()``).
    static func validated(
        _ file: AppConfigurationFile.PasswordReset,
        key: String,
        app: AppConfiguration,
        problems: inout [String]
    ) -> PasswordResetRoute? {
        let before = problems.count
        guard let name = file.route, !name.isEmpty else {
            problems.append("\(key).route: is required (the name of the manifest's route that opens the reset screen)")
            return nil
        }
        guard let manifest = app.routes else {
            problems.append("\(key): the app names no route manifest ('routes'), so it has no reset route")
            return nil
        }
        func entry(_ name: String, field: String) -> RouteManifest.Entry? {
            if let entry = manifest.routes.first(where: { $0.name == name }) { return entry }
            problems.append(
                "\(key).\(field): '\(name)' is not a route of the manifest (\(manifest.routes.map(\.name).joined(separator: ", ")))"
            )
            return nil
        }
        let token = file.tokenParameter ?? "token"
        func secret(
            _ parameter: String,
            of entry: RouteManifest.Entry,
            field: String,
            where location: ParameterSpec.Location
        ) {
            guard let spec = entry.parameters.first(where: { $0.name == parameter }) else {
                problems.append("\(key).\(field): route '\(entry.name)' has no parameter '\(parameter)'")
                return
            }
            if spec.location != location {
                let reason =
                    location == .fragment
                    ? "a universal link carries secrets in the fragment, which browsers never send to a server"
                    : "a custom-scheme link carries them in the query"
                problems.append(
                    "\(key).\(field): '\(parameter)' of route '\(entry.name)' is in the \(spec.location.rawValue): \(reason)"
                )
            }
            if !spec.isSensitive {
                problems.append(
                    "\(key).\(field): '\(parameter)' of route '\(entry.name)' must be sensitive, so it never reaches a log line"
                )
            }
        }
        var path = ""
        if let universal = entry(name, field: "route") {
            let sources = Set(universal.sources)
            if !sources.contains("universalLink") {
                problems.append("\(key).route: '\(name)' does not accept universal links")
            }
            if sources.contains("customScheme") {
                problems.append(
                    "\(key).route: '\(name)' also accepts custom-scheme links, where the token would travel in a link any app can register the scheme of: make it universalLink only (customSchemeRoute opts in to a custom-scheme link)"
                )
            }
            let pattern = RoutePattern(universal.pattern)
            let segments = pattern.segments.compactMap { if case .literal(let text) = $0 { text } else { nil } }
            if segments.count < pattern.segments.count {
                problems.append(
                    "\(key).route: '\(universal.pattern)' has parameters in its path; the server serves the web form at the reset route's path, so it must be fixed"
                )
            } else if segments.isEmpty || serverSegments.contains(segments[0].lowercased()) {
                problems.append("\(key).route: '\(universal.pattern)' is one of the server's own paths")
            }
            path = "/" + segments.map(PercentEncoding.encode).joined(separator: "/")
            secret(token, of: universal, field: "tokenParameter", where: .fragment)
            if let email = file.emailParameter {
                secret(email, of: universal, field: "emailParameter", where: .fragment)
            }
        }
        if let scheme = file.customSchemeRoute, let custom = entry(scheme, field: "customSchemeRoute") {
            if !custom.sources.contains("customScheme") {
                problems.append("\(key).customSchemeRoute: '\(scheme)' does not accept custom-scheme links")
            }
            secret(token, of: custom, field: "tokenParameter", where: .query)
            if let email = file.emailParameter { secret(email, of: custom, field: "emailParameter", where: .query) }
        }
        guard problems.count == before else { return nil }
        let route = PasswordResetRoute(
            route: name,
            path: path,
            tokenParameter: token,
            emailParameter: file.emailParameter,
            customSchemeRoute: file.customSchemeRoute
        )
        // Printed once as the server will print every link, and matched back as the app will: a token of the
        // server's shape and an address with characters that need encoding must fit the parameters'
        // constraints, and reach the reset route with both intact (no earlier route shadowing it).
        let sample = SecretToken.generate()
        let email = "first.last+tag@example.com"
        do {
            let links = try ResetLinks(app: app, reset: route)
            let printed: [(route: String, url: String?)] = [
                (name, try links.universal(token: sample, email: email)),
                (file.customSchemeRoute ?? "", try links.customScheme(token: sample, email: email)),
            ]
            for (name, url) in printed {
                guard let url else { continue }
                guard case .success(let match) = links.table.match(url), match.destination.route == name,
                    match.destination.parameters[route.tokenParameter] == [sample]
                else {
                    problems.append(
                        "\(key): a reset link printed from route '\(name)' does not route back to it with its token (another route shadows it)"
                    )
                    return nil
                }
            }
        } catch {
            problems.append("\(key): a reset link cannot be printed from the manifest: \(error)")
            return nil
        }
        return route
    }
}
