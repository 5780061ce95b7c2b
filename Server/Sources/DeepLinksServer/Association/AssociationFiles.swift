import AppSiteAssociation
import Crypto
import DeepLinks
import DeepLinksJSON
import DeepLinksSupport
import Foundation

/// The association files the server hosts, generated once at start from the configuration and the app's
/// route manifest, and validated: a file iOS or Android would misread stops the start.
public struct AssociationFiles: Sendable {
    public struct File: Sendable {
        public let body: Data
        /// A strong ETag: the body's SHA-256, quoted.
        public let etag: String
        /// When the file was generated (the server's start), as an HTTP date for `Last-Modified`.
        public let lastModified: Date
        /// ``lastModified`` as the header says it, printed once.
        let lastModifiedHeader: String

        init(_ text: String) {
            body = Data(text.utf8)
            etag = "\"" + Hex.encode(SHA256.hash(data: body).prefix(16)) + "\""
            // Whole seconds: HTTP dates have no fraction, and If-Modified-Since compares against this.
            lastModified = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            lastModifiedHeader = HTTPDate.format(lastModified)
        }

        /// An apple-app-site-association file and its matcher, from one validated document (never re-parsed).
        static func association(_ configuration: AASAConfiguration) throws(AASAGenerator.GenerationError) -> (
            File, AASAMatcher
        ) {
            let document = try AASAGenerator.validatedDocument(configuration)
            return (File(document.prettyPrinted() + "\n"), AASAMatcher(document: document))
        }
    }

    /// Served at `/.well-known/apple-app-site-association` and at the root path (H2).
    public let appleAppSiteAssociation: File
    /// How iOS reads ``appleAppSiteAssociation``: whether a URL opens an app, and why.
    public let matcher: AASAMatcher
    /// Served at `/.well-known/assetlinks.json` when the configuration names an Android app (one statement each).
    public let assetLinks: File?
    /// The file of a link domain that is none of the app's domains: it claims every short code (one path
    /// segment) and leaves the server's own paths to the browser, so an installed app opens short links
    /// itself (and asks `GET /v1/links/{code}/resolve` where they lead).
    /// Served on every link domain (the current one and earlier ones) that is none of the app's domains.
    public let linkDomainAssociation: (hosts: [String], file: File, matcher: AASAMatcher)?

    /// Paths of the server's own, never claimed on the link domain; and, since an AASA `*` also matches `/`,
    /// every path of two segments or more (`/*/?*`: a code is one segment, and a trailing slash does not
    /// count: rule PA3).
    static func serverPaths(resetPath: String?) -> [String] {
        ["/v1/*", "/assets/*", "/healthz", "/metrics", "/robots.txt", "/favicon.ico"] + (resetPath.map { [$0] } ?? [])
            + ["/.well-known/*", "/apple-app-site-association", "/*/?*"]
    }

    /// Generated files that fail validation, with every error.
    public struct InvalidFile: Error, Sendable, CustomStringConvertible {
        public var file: String
        public var diagnostics: [AASADiagnostic]
        public var description: String {
            "the generated \(file) is invalid: " + diagnostics.map(\.description).joined(separator: "; ")
        }
    }

    /// - Parameters:
    ///   - app: the configuration: every app of it gets its entry (iOS reads the one of the installed app, on
    ///     the domains its entitlement lists), and every Android app its statement.
    ///   - links: the short-link hosts (``SmartLinkSettings/linkDomain`` and ``SmartLinkSettings/otherLinkDomains``);
    ///     those that are no app's domain get a file of their own, claiming codes for the primary app only: two
    ///     installed apps claiming one code would open either.
    public init(app: AppConfiguration, links: SmartLinkSettings = SmartLinkSettings()) throws(InvalidFile) {
        let apps = app.apps
        let configuration = AASAConfiguration(
            apps: apps.map { .init(appID: $0.appID, paths: Self.paths($0.routes), exclusions: $0.excludedPaths) },
            webCredentials: apps.map(\.appID)
        )
        do {
            (appleAppSiteAssociation, matcher) = try File.association(configuration)
        } catch {
            throw InvalidFile(file: "apple-app-site-association", diagnostics: error.diagnostics)
        }
        let linkHosts = links.shortLinkHosts(apart: apps)
        if !linkHosts.isEmpty {
            let links = AASAConfiguration(apps: [
                .init(
                    appID: app.appID,
                    paths: ["/?*"],
                    exclusions: Self.serverPaths(resetPath: app.passwordReset?.path)
                )
            ])
            do {
                let (file, matcher) = try File.association(links)
                linkDomainAssociation = (linkHosts, file, matcher)
            } catch {
                throw InvalidFile(
                    file: "apple-app-site-association of \(linkHosts.joined(separator: ", "))",
                    diagnostics: error.diagnostics
                )
            }
        } else {
            linkDomainAssociation = nil
        }
        let statements = apps.compactMap(\.android).map {
            AssetLinksStatement.appLinks(packageName: $0.packageName, fingerprints: $0.sha256CertFingerprints)
        }
        if !statements.isEmpty {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(statements)) ?? Data()
            let errors = AssetLinksValidator.validate(data: data).filter { $0.severity == .error }
            guard errors.isEmpty else { throw InvalidFile(file: "assetlinks.json", diagnostics: errors) }
            assetLinks = File(String(decoding: data, as: UTF8.self) + "\n")
        } else {
            assetLinks = nil
        }
    }

    /// AASA path patterns for the routes that accept universal links: literals percent-encoded as the route
    /// table prints them, a parameter as `?*` (one or more characters), a catch-all as `*`. No manifest: every path.
    static func paths(_ manifest: RouteManifest?) -> [String] {
        guard let manifest else { return ["*"] }
        var paths: [String] = []
        for route in manifest.routes where route.sources.contains("universalLink") {
            let segments = RoutePattern(route.pattern).segments.map { segment -> String in
                switch segment {
                case .literal(let text): PercentEncoding.encode(text)
                case .parameter: "?*"
                case .catchAll: "*"
                }
            }
            let path = "/" + segments.joined(separator: "/")
            if !paths.contains(path) { paths.append(path) }
        }
        return paths
    }
}
