import AppSiteAssociation
import DeepLinks
import DeepLinksSupport
import Foundation

/// The validated description of the app the server links to: who it is (team and bundle ID), how
/// links reach it (custom scheme, universal-link domains) and where to send users without it (App Store).
///
/// Built from ``AppConfigurationFile`` (the on-disk JSON) by ``init(file:)``, which reports every
/// problem at once (`Server/Examples/demo-app.json` describes the demo app).
public struct AppConfiguration: Sendable, Equatable {
    /// The Apple Developer Team ID: ten upper-case letters or digits.
    public var teamID: String
    /// The app's bundle identifier, as in `com.example.demo`.
    public var bundleID: String
    /// The custom URL scheme the app registers, lower-cased (`demoapp` for `demoapp://...`).
    public var customScheme: String
    /// Universal-link hosts, lower-cased: the app's `applinks:` entitlement entries, without the service prefix.
    public var domains: [String]
    /// The numeric App Store identifier (the digits of `id1234567890`), when the app is published.
    public var appStoreID: String?
    /// App Store Connect's provider token (the `pt` of a campaign link, digits): with it, every App Store address
    /// the server gives carries `pt` and a campaign token (``appStoreURL(campaign:)``).
    public var appStoreProviderToken: String?
    /// The app's display name, used on web pages and in mail.
    public var displayName: String
    /// The app's routes; the association file lists the paths of those that accept universal links.
    /// Without them, the file lets the app open every path of its domains.
    public var routes: RouteManifest?
    /// Paths excluded from universal links, checked before every route.
    public var excludedPaths: [String] = []
    /// The app's website, on a host that is none of its domains: a universal-link path of the app opened
    /// without the app (in Safari, a desktop browser) is sent there, path and query kept. Without it, the
    /// server answers a page with the App Store and the Smart App Banner.
    public var webURL: String?
    /// The Android app that opens the same links (App Links), served in assetlinks.json.
    public var android: AndroidApp?
    /// The file's `links` section: smart-link domains and the destination allowlist (flags and the
    /// environment override them).
    public var links = SmartLinkSettings()
    /// The route that opens the reset screen, and the parameters that carry its secrets: every reset link
    /// the server prints comes from it. Nil turns the reset journey off (only the primary app has one).
    public var passwordReset: PasswordResetRoute?
    /// The team's backend, when the accounts live there (the file's `accounts` in `external` mode); nil for
    /// the server's own accounts.
    public var externalAccounts: ExternalAccounts?
    /// The configuration's other apps (its `apps` after the first). Each has its own routes, association
    /// entries and store listings; a smart link names the one it opens.
    public var additionalApps: [AppConfiguration] = []

    /// Every app, this (the primary) one first.
    public var apps: [AppConfiguration] {
        var primary = self
        primary.additionalApps = []
        return [primary] + additionalApps
    }

    /// The app with this bundle ID.
    public func app(bundleID: String) -> AppConfiguration? {
        apps.first { $0.bundleID == bundleID }
    }

    public struct AndroidApp: Sendable, Equatable {
        public var packageName: String
        public var sha256CertFingerprints: [String]
        /// Where Android users without the app go.
        public var playStoreURL: String

        public init(packageName: String, sha256CertFingerprints: [String], playStoreURL: String? = nil) {
            self.packageName = packageName
            self.sha256CertFingerprints = sha256CertFingerprints
            self.playStoreURL = playStoreURL ?? "https://play.google.com/store/apps/details?id=\(packageName)"
        }
    }

    /// The app's route manifest as a table over the app's own scheme and domains (the manifest's may be the
    /// demo's or none): what the server prints links with and matches paths against. Nil without a manifest.
    public func routeTable() throws(RouteTableError) -> RouteTable<ManifestDestination>? {
        guard var manifest = routes else { return nil }
        manifest.schemes = [customScheme]
        manifest.hosts = domains
        return try RouteTable(manifest: manifest)
    }

    /// `TEAMID.bundle.id`, as in an apple-app-site-association file.
    public var appID: String { "\(teamID).\(bundleID)" }

    public init(
        teamID: String,
        bundleID: String,
        customScheme: String,
        domains: [String],
        appStoreID: String?,
        displayName: String
    ) {
        self.teamID = teamID
        self.bundleID = bundleID
        self.customScheme = customScheme
        self.domains = domains
        self.appStoreID = appStoreID
        self.displayName = displayName
    }

    /// Validates a decoded file. Throws ``ConfigurationError`` listing every problem.
    /// - Parameter routes: the route manifest of each app the file names, in order, already read (see
    ///   ``load(path:)``).
    public init(file: AppConfigurationFile, source: String = "configuration", routes: [RouteManifest?] = [])
        throws(ConfigurationError)
    {
        var problems: [String] = []
        let entries = Self.appEntries(file, problems: &problems)
        var apps: [AppConfiguration] = []
        for (index, entry) in entries.enumerated() {
            let manifest = index < routes.count ? routes[index] : nil
            if let app = Self.app(entry.app, key: entry.key, routes: manifest, problems: &problems) { apps.append(app) }
        }
        // Two apps may share a domain (the association file lists both), not an identity or a scheme: iOS
        // gives a scheme claimed twice to either app.
        for (label, key) in [("bundle ID", \AppConfiguration.appID), ("custom scheme", \.customScheme)] {
            let values = apps.map { $0[keyPath: key] }
            for value in Set(values) where values.filter({ $0 == value }).count > 1 {
                problems.append("apps: two apps have the \(label) '\(value)'")
            }
        }
        let packages = apps.compactMap(\.android?.packageName)
        for package in Set(packages) where packages.filter({ $0 == package }).count > 1 {
            problems.append("apps: two apps have the Android package '\(package)'")
        }
        var links = SmartLinkSettings()
        func host(_ value: String?, _ key: String) -> String? {
            guard let value else { return nil }
            if let reason = Self.hostProblem(value) {
                problems.append("\(key): '\(value)' \(reason)")
                return nil
            }
            return value.lowercased()
        }
        links.linkDomain = host(file.links?.linkDomain, "links.linkDomain")
        links.landingDomain = host(file.links?.landingDomain, "links.landingDomain")
        links.otherLinkDomains = (file.links?.otherLinkDomains ?? []).enumerated().compactMap {
            host($1, "links.otherLinkDomains[\($0)]")
        }
        links.allowedHosts = (file.links?.allowedDestinationHosts ?? []).enumerated().compactMap {
            host($1, "links.allowedDestinationHosts[\($0)]")
        }
        if let landing = links.landingDomain, landing == (links.linkDomain ?? apps.first?.domains.first) {
            problems.append(
                "links.landingDomain: '\(landing)' is the link domain; universal links do not fire on a same-domain tap"
            )
        }
        let external = Self.externalAccounts(file.accounts, problems: &problems)
        for entry in entries.dropFirst() where entry.app.passwordReset != nil {
            problems.append("\(entry.key).passwordReset: only the first app has the reset journey")
        }
        guard problems.isEmpty, let primary = apps.first else {
            throw ConfigurationError(setting: source, problems: problems)
        }
        self = primary
        self.links = links
        self.externalAccounts = external
        self.additionalApps = Array(apps.dropFirst())
        problems = resetRouteProblems()
        guard problems.isEmpty else { throw ConfigurationError(setting: source, problems: problems) }
    }

    /// The file's `accounts` section: nil for the built-in accounts.
    static func externalAccounts(_ section: AppConfigurationFile.Accounts?, problems: inout [String])
        -> ExternalAccounts?
    {
        guard let section else { return nil }
        switch section.mode {
        case nil, "builtin":
            if section.backend != nil { problems.append("accounts.backend: only external accounts have a backend") }
            return nil
        case "external":
            guard let backend = section.backend else {
                problems.append("accounts.backend: is required for external accounts (https://api.example.com)")
                return nil
            }
            if let reason = ExternalAccounts.backendProblem(backend) {
                problems.append("accounts.backend: '\(backend)' \(reason)")
            }
            let timeout = section.timeoutSeconds ?? 5
            if !(1...60).contains(timeout) { problems.append("accounts.timeoutSeconds: use 1 to 60 seconds") }
            return ExternalAccounts(backend: backend, timeoutSeconds: timeout)
        case let mode?:
            problems.append("accounts.mode: '\(mode)' is neither 'builtin' nor 'external'")
            return nil
        }
    }

    /// The file's apps with the key each is reported under: `app`, or `apps[i]`.
    static func appEntries(_ file: AppConfigurationFile, problems: inout [String]) -> [(
        app: AppConfigurationFile.App, key: String
    )] {
        switch (file.app, file.apps) {
        case (let app?, nil): return [(app, "app")]
        case (nil, let apps?) where !apps.isEmpty: return apps.enumerated().map { ($1, "apps[\($0)]") }
        case (nil, _?): problems.append("apps: list at least one app")
        case (_?, _?): problems.append("app, apps: give one app as app, or several as apps, not both")
        case (nil, nil): problems.append("app: is required")
        }
        return []
    }

    /// One app of the file, validated; nil (with its problems recorded) when it cannot be used.
    static func app(_ app: AppConfigurationFile.App, key: String, routes: RouteManifest?, problems: inout [String])
        -> AppConfiguration?
    {
        let before = problems.count
        func required(_ value: String?, _ field: String) -> String {
            guard let value, !value.isEmpty else {
                problems.append("\(key).\(field): is required")
                return ""
            }
            return value
        }
        let teamID = required(app.teamID, "teamID")
        if !teamID.isEmpty, !isTeamID(teamID) {
            problems.append("\(key).teamID: '\(teamID)' is not ten upper-case letters or digits")
        }
        let bundleID = required(app.bundleID, "bundleID")
        if !bundleID.isEmpty, !isBundleID(bundleID) {
            problems.append(
                "\(key).bundleID: '\(bundleID)' is not a reverse-DNS identifier (letters, digits, '-' and '.')"
            )
        }
        let scheme = required(app.customScheme, "customScheme")
        if !scheme.isEmpty, !isScheme(scheme) {
            problems.append(
                "\(key).customScheme: '\(scheme)' is not a URL scheme (a letter, then letters, digits, '+', '-' or '.')"
            )
        } else if ["http", "https", "file", "ftp", "mailto", "tel", "sms", "javascript", "data"].contains(
            scheme.lowercased()
        ) {
            problems.append("\(key).customScheme: '\(scheme)' is reserved; choose a scheme of the app's own")
        }
        var domains: [String] = []
        for (index, domain) in (app.domains ?? []).enumerated() {
            if let reason = hostProblem(domain) {
                problems.append("\(key).domains[\(index)]: '\(domain)' \(reason)")
            } else {
                domains.append(domain.lowercased())
            }
        }
        if app.domains?.isEmpty ?? true {
            problems.append("\(key).domains: list at least one universal-link domain")
        }
        if let storeID = app.appStoreID,
            !(storeID.allSatisfy({ $0.isASCII && $0.isNumber }) && (1...12).contains(storeID.count))
        {
            problems.append(
                "\(key).appStoreID: '\(storeID)' is not the numeric App Store ID (digits only, without 'id')"
            )
        }
        if let token = app.appStoreProviderToken,
            !(token.allSatisfy({ $0.isASCII && $0.isNumber }) && (1...20).contains(token.count))
        {
            problems.append(
                "\(key).appStoreProviderToken: '\(token)' is not App Store Connect's provider token (digits, the pt= of a campaign link)"
            )
        }
        var android: AndroidApp?
        if let file = app.android {
            let candidate = AndroidApp(
                packageName: file.packageName ?? "",
                sha256CertFingerprints: file.sha256CertFingerprints ?? [],
                playStoreURL: file.playStoreURL
            )
            let statement = AssetLinksStatement.appLinks(
                packageName: candidate.packageName,
                fingerprints: candidate.sha256CertFingerprints
            )
            let document = (try? JSONEncoder().encode([statement])) ?? Data()
            for diagnostic in AssetLinksValidator.validate(data: document) where diagnostic.severity == .error {
                problems.append("\(key).android: \(diagnostic.message)")
            }
            if let store = file.playStoreURL,
                (try? URLParts(parsing: store, limits: URLLimits.webDestination)).map({
                    $0.scheme == "https" && $0.host.map { hostProblem($0) == nil } == true
                }) != true
            {
                problems.append("\(key).android.playStoreURL: '\(store)' is not an https URL")
            }
            android = candidate
        }
        guard problems.count == before else { return nil }
        var configuration = AppConfiguration(
            teamID: teamID,
            bundleID: bundleID,
            customScheme: scheme.lowercased(),
            domains: domains,
            appStoreID: app.appStoreID,
            displayName: app.displayName ?? bundleID
        )
        configuration.routes = routes
        configuration.appStoreProviderToken = app.appStoreProviderToken
        configuration.excludedPaths = app.excludedPaths ?? []
        if let web = app.webURL {
            let parts = try? URLParts(parsing: web, limits: URLLimits.webDestination)
            if parts?.scheme != "https" || parts?.host.map({ hostProblem($0) == nil }) != true
                || parts?.query != nil || parts?.fragment != nil
            {
                problems.append("\(key).webURL: '\(web)' is not an https address without query or fragment")
            } else if let host = parts?.host, domains.contains(host) {
                problems.append(
                    "\(key).webURL: '\(web)' is on \(host), one of the app's domains: a path would come back here"
                )
            } else {
                configuration.webURL = web.hasSuffix("/") ? String(web.dropLast()) : web
            }
        }
        configuration.android = android
        if let reset = app.passwordReset {
            configuration.passwordReset = PasswordResetRoute.validated(
                reset,
                key: "\(key).passwordReset",
                app: configuration,
                problems: &problems
            )
        }
        guard problems.count == before else { return nil }
        return configuration
    }

    /// Reads and validates a JSON configuration file.
    public static func load(path: String) throws(ConfigurationError) -> AppConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationError(setting: path, problems: ["cannot be read (\(error.localizedDescription))"])
        }
        return try decode(data, source: path, folder: URL(fileURLWithPath: path).deletingLastPathComponent())
    }

    /// Decodes and validates JSON configuration bytes.
    /// - Parameter folder: where a relative `routes` path is read from.
    public static func decode(_ data: Data, source: String, folder: URL? = nil) throws(ConfigurationError)
        -> AppConfiguration
    {
        guard data.count <= 1 << 20 else {
            throw ConfigurationError(setting: source, problems: ["is larger than 1 MiB"])
        }
        let file: AppConfigurationFile
        do {
            file = try JSONDecoder().decode(AppConfigurationFile.self, from: data)
        } catch let error as DecodingError {
            throw ConfigurationError(setting: source, problems: [error.readableDescription])
        } catch {
            throw ConfigurationError(setting: source, problems: ["is not valid JSON"])
        }
        var discarded: [String] = []
        var routes: [RouteManifest?] = []
        for entry in appEntries(file, problems: &discarded) {
            guard let path = entry.app.routes else {
                routes.append(nil)
                continue
            }
            let url =
                path.hasPrefix("/")
                ? URL(fileURLWithPath: path) : (folder ?? URL(fileURLWithPath: ".")).appendingPathComponent(path)
            guard let manifestData = try? Data(contentsOf: url) else {
                throw ConfigurationError(setting: source, problems: ["\(entry.key).routes: \(url.path) cannot be read"])
            }
            do {
                let manifest = try JSONDecoder().decode(RouteManifest.self, from: manifestData)
                _ = try RouteTable<ManifestDestination>(manifest: manifest)
                routes.append(manifest)
            } catch let error as DecodingError {
                throw ConfigurationError(
                    setting: source,
                    problems: ["\(entry.key).routes: \(url.path) is not a route manifest: \(error.readableDescription)"]
                )
            } catch {
                throw ConfigurationError(
                    setting: source,
                    problems: ["\(entry.key).routes: \(url.path) is not a valid route table: \(error)"]
                )
            }
        }
        return try AppConfiguration(file: file, source: source, routes: routes)
    }

    static func isTeamID(_ value: String) -> Bool {
        value.count == 10 && value.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }

    static func isBundleID(_ value: String) -> Bool {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 && value.count <= 155
            && parts.allSatisfy { part in
                !part.isEmpty && part.unicodeScalars.allSatisfy { $0.isASCIIAlphanumeric || $0 == "-" }
            }
    }

    static func isScheme(_ value: String) -> Bool {
        guard let first = value.unicodeScalars.first, first.isASCIILetter, value.count <= 64 else { return false }
        return value.unicodeScalars.allSatisfy { $0.isASCIIAlphanumeric || $0 == "+" || $0 == "-" || $0 == "." }
    }

    /// Why `value` is not a host name a link can name (scheme, path, port, wildcard, bad label), or nil.
    public static func hostProblem(_ value: String) -> String? { HostName.problem(value) }
}

extension DecodingError {
    /// A one-line description with the JSON path, for people.
    public var readableDescription: String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "the top level" : String(text.drop(while: { $0 == "." }))
        }
        switch self {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(Self.typeName(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(Self.typeName(type)), found null"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): is required"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "is not valid JSON" }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "is not a valid configuration"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [Any].Type: "an array"
        default: "an object"
        }
    }
}

extension AppConfiguration {
    /// The most characters App Store Connect takes in a campaign token.
    static let campaignTokenLength = 30

    /// The app's App Store address, nil when it has no App Store ID. With a provider token, a campaign link App
    /// Analytics attributes (`?pt=PROVIDER&ct=CAMPAIGN&mt=8`): `campaign` as App Store Connect allows it (letters,
    /// digits, spaces and its punctuation, at most 30 characters, no space at either end; anything else becomes
    /// `-`).
    func appStoreURL(campaign: String) -> String? {
        guard let id = appStoreID else { return nil }
        let base = "https://apps.apple.com/app/id\(id)"
        guard let provider = appStoreProviderToken else { return base }
        guard let token = Self.campaignToken(campaign) else { return base + "?pt=\(provider)&mt=8" }
        return base + "?pt=\(provider)&ct=\(PercentEncoding.encode(token))&mt=8"
    }

    /// `campaign` as a campaign token App Store Connect takes; nil when nothing is left.
    static func campaignToken(_ campaign: String) -> String? {
        let allowed = Set("[]/\\-~+=<>:;,._'\"*&$%#@?!|{}() ")
        let mapped = campaign.prefix(campaignTokenLength).map { character -> Character in
            (character.isASCII && (character.isLetter || character.isNumber)) || allowed.contains(character)
                ? character : "-"
        }
        let token = String(mapped).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// What the Smart App Banner's `affiliate-data` carries for the same attribution (`ct=...&pt=...`), or nil.
    func bannerCampaign(_ campaign: String) -> String? {
        guard let provider = appStoreProviderToken, let token = Self.campaignToken(campaign) else { return nil }
        return "ct=\(PercentEncoding.encode(token))&pt=\(provider)"
    }
}
