import DeepLinks
import DeepLinksSupport
import Foundation

/// Checks a link document sent to the API: every problem at once, each naming its field.
struct SmartLinkValidator: Sendable {
    /// Each app's route table (nil without a manifest) and the host its routes are matched on, by bundle ID.
    let manifests: [String: (table: RouteTable<ManifestDestination>?, host: String)]
    /// The bundle IDs of the apps with a store listing (App Store or Google Play), for a rule's `store`.
    let stores: Set<String>
    /// The bundle ID of a link that names no app.
    let primary: String
    let allowedHosts: Set<String>
    /// The hosts that serve short links only: the link domain when it is no app's domain, earlier link domains, the
    /// landing domain. Any one-segment path there is a short link: a destination there would be a redirect to a
    /// redirect, and a loop when it comes back (every hop counted as a click).
    let shortLinkHosts: Set<String>
    /// The link domain when it is also an app's domain (where the team's site may answer other paths): there only
    /// the link's own code is refused.
    let sharedLinkHost: String?

    init(
        apps: [AppConfiguration],
        allowedHosts: Set<String>,
        shortLinkHosts: Set<String> = [],
        sharedLinkHost: String? = nil
    ) throws {
        var manifests: [String: (table: RouteTable<ManifestDestination>?, host: String)] = [:]
        for app in apps {
            manifests[app.bundleID] = (
                try app.routes.map { try RouteTable<ManifestDestination>(manifest: $0) },
                app.routes?.hosts.first ?? app.domains[0]
            )
        }
        self.manifests = manifests
        stores = Set(apps.filter { $0.appStoreID != nil || $0.android != nil }.map(\.bundleID))
        primary = apps[0].bundleID
        self.allowedHosts = allowedHosts
        self.shortLinkHosts = shortLinkHosts
        self.sharedLinkHost = sharedLinkHost
        // A one-segment reset path (`/reset-password`) is served by the server: no code may take it.
        let resetSegments = apps[0].passwordReset?.path.split(separator: "/") ?? []
        resetCode = resetSegments.count == 1 ? resetSegments[0].lowercased() : nil
    }

    /// The reset page's path when it is one segment, lower-cased.
    let resetCode: String?

    /// Paths the server answers itself: no code may take them.
    static let reservedCodes: Set<String> = [
        "healthz", "metrics", "v1", "assets", "console", "openapi.json", ".well-known", "apple-app-site-association",
        "favicon.ico", "robots.txt",
    ]

    /// Runs on every redirect: ASCII bytes only, no Unicode property lookups.
    static func isCode(_ code: String) -> Bool {
        (3...64).contains(code.utf8.count) && CharacterRule.base64URL.allows(code)
            && !reservedCodes.contains(code.lowercased())
    }

    /// An unguessable short code: 8 characters of base64url (48 bits).
    static func generateCode() -> String { Base64URL.encode(SecureBytes.random(count: 6)) }

    func problems(_ link: SmartLink) -> [String] {
        var problems: [String] = []
        if !Self.isCode(link.code) || link.code.lowercased() == resetCode {
            problems.append("code: 3 to 64 letters, digits, '-' or '_', and not one of the server's own paths")
        } else if let app = appRouting("/\(link.code)") {
            // On the app's domain the same path would mean two things: iOS opens the app's screen, a browser gets
            // the short link's redirect.
            problems.append("code: /\(link.code) is a path of \(app)'s routes; choose another code")
        }
        if let route = link.route {
            if let problem = routeProblem(route, app: link.app) { problems.append("route: \(problem)") }
        } else if let fallback = link.destinations.fallback, let problem = deadAppPath(fallback) {
            problems.append("destinations.fallback: \(problem)")
        } else if link.destinations.fallback == nil, link.rules == nil {
            problems.append(
                "route: a path starting with '/' (the app's destination, as /post/10), or no route and a destinations.fallback (a web link)"
            )
        }
        if let campaign = link.campaign, AppConfiguration.campaignToken(campaign) != campaign {
            problems.append(
                "campaign: at most \(AppConfiguration.campaignTokenLength) letters, digits, spaces (not first or last) and App Store Connect's punctuation ([]/\\-~+=<>:;,._'\"*&$%#@?!|{}())"
            )
        }
        if let app = link.app, manifests[app] == nil {
            problems.append(
                "app: '\(app)' is not the bundle ID of a configured app (\(manifests.keys.sorted().joined(separator: ", ")))"
            )
        }
        let destinations: [(String, String?)] = [
            ("destinations.ios", link.destinations.ios), ("destinations.ipad", link.destinations.ipad),
            ("destinations.android", link.destinations.android), ("destinations.desktop", link.destinations.desktop),
            ("destinations.fallback", link.destinations.fallback), ("expiredURL", link.expiredURL),
            ("preview.image", link.preview.image),
        ]
        for (field, value) in destinations {
            guard let value else { continue }
            let problem =
                destinationProblem(value) ?? (field == "preview.image" ? nil : shortLinkProblem(value, of: link.code))
            if let problem { problems.append("\(field): \(problem)") }
        }
        for (field, value) in [
            ("preview.title", link.preview.title), ("preview.description", link.preview.description),
        ] {
            if let value,
                value.count > 300 || value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            {
                problems.append("\(field): at most 300 characters, no control characters")
            }
        }
        return problems + ruleProblems(link)
    }

    /// The bundle ID of the app one of whose routes has `path` on its host (whatever its parameters: a route
    /// that needs a token in the fragment has the path all the same), if one does.
    func appRouting(_ path: String) -> String? {
        manifests.first { _, manifest in
            guard let table = manifest.table else { return false }
            switch table.match("https://\(manifest.host)\(path)") {
            case .success: return true
            case .failure(let rejection):
                return ![.noRoute, .hostNotAccepted, .schemeNotAccepted].contains(rejection.code)
                    && rejection.urlDiagnostic == nil
            }
        }?.key
    }

    /// Why a web link's address is a dead end (or nil): a path on an app's domain that no route of the app takes
    /// (nor a short link's code, nor the root), which this server answers with 404. A Firebase row whose deep link
    /// matches no route (`/promo/summer`, `/post/abc`) is one: refused with the reason, never imported as a link
    /// that leads nowhere.
    func deadAppPath(_ url: String) -> String? {
        guard let parts = try? URLParts(parsing: url, limits: Self.destinationLimits), let host = parts.host,
            let (bundleID, manifest) = manifests.first(where: { $0.value.host == host }), let table = manifest.table
        else { return nil }
        let segments = parts.path.split(separator: "/", omittingEmptySubsequences: true)
        if segments.isEmpty || (segments.count == 1 && Self.isCode(String(segments[0]))) { return nil }
        guard case .failure(let rejection) = table.match(url) else { return nil }
        return
            "\(url) is on \(bundleID)'s domain, but no route of the app takes it (\(rejection)), and this server answers it with 404: add the route to the app's manifest, or give a web page"
    }

    /// Why `route` is no route of the app (`app`, nil: the primary one), or nil.
    func routeProblem(_ route: String, app: String?) -> String? {
        guard route.hasPrefix("/"), !route.hasPrefix("//") else {
            return "a path starting with '/' (the app's destination, as /post/10)"
        }
        guard let (manifest, host) = manifests[app ?? primary] else { return nil }
        if let manifest {
            if case .failure(let rejection) = manifest.match("https://\(host)\(route)") {
                return "the app has no route for \(route) (\(rejection))"
            }
            return nil
        }
        // Without a manifest, any path the URL policy reads: no control characters, no invalid escapes.
        do {
            _ = try URLParts(parsing: "https://\(host)\(route)", limits: Self.destinationLimits)
            return nil
        } catch {
            return "a path and query as a URL holds them (\(error.reason))"
        }
    }

    /// Why `destination` is one of this server's own short links (or nil): a one-segment path that is no route of
    /// an app, on a host that serves short links only; on a link domain shared with the app's site, the link's own
    /// code. Refused whether or not a link has that code yet: it may have one tomorrow.
    func shortLinkProblem(_ destination: String, of code: String) -> String? {
        guard let parts = try? URLParts(parsing: destination, limits: Self.destinationLimits), let host = parts.host
        else { return nil }
        let segments = parts.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard segments.count == 1, let target = segments.first.map(String.init), Self.isCode(target) else {
            return nil
        }
        let isShortLink =
            shortLinkHosts.contains(host)
            ? appRouting("/\(target)") == nil : host == sharedLinkHost && target.lowercased() == code.lowercased()
        return isShortLink
            ? "\(destination) is a short link of this server: a redirect to a redirect, a loop if it leads back; give its destination instead"
            : nil
    }

    /// What a destination may hold: 2048 bytes, a port, and as many `utm_*` items as a campaign adds.
    static let destinationLimits = URLLimits.webDestination

    /// An https URL on an allowed host, split and checked by the URL policy: no link may become an open
    /// redirect, nor carry credentials.
    func destinationProblem(_ value: String) -> String? {
        let parts: URLParts
        do {
            parts = try URLParts(parsing: value, limits: Self.destinationLimits)
        } catch {
            return "an https URL without credentials, at most 2048 bytes (\(error.reason))"
        }
        guard parts.scheme == "https", let host = parts.host, !host.isEmpty else {
            return "an https URL without credentials, at most 2048 bytes (the scheme is \(parts.scheme))"
        }
        guard allowedHosts.contains(host) else {
            return "\(host) is not on the destination allowlist (\(allowedHosts.sorted().joined(separator: ", ")))"
        }
        return nil
    }
}
