import Crypto
import DeepLinksSupport
import Foundation

/// Smart links: where they live, where they may send people, and who may manage them.
public struct SmartLinkSettings: Sendable, Equatable {
    /// The host of short links (`go.example.com`); by default the app's first domain.
    public var linkDomain: String?
    /// Earlier link domains whose short links keep working (the old `page.link`-style custom domain beside the
    /// new one): each serves the link domain's association file, claiming its codes; new links print on
    /// ``linkDomain``.
    public var otherLinkDomains: [String] = []

    /// The link domains that are no app's domain: each serves a file of its own claiming the codes for the first
    /// app (``AssociationFiles``), and the link doctor judges its links so.
    func shortLinkHosts(apart apps: [AppConfiguration]) -> [String] {
        ([linkDomain].compactMap { $0 } + otherLinkDomains).filter { host in
            !apps.contains { $0.domains.contains(host) }
        }
    }

    /// The host of landing pages, different from the link domain: a universal link does not fire on a tap
    /// that stays on its own domain. By default, none: pages are served on the link domain (and `?d=1` says so).
    public var landingDomain: String?
    /// Hosts a destination may point at, besides the app's domains, the link and landing domains, the App
    /// Store and Google Play.
    public var allowedHosts: [String] = []
    /// Codes that are no link, per client network: this many at once, then this many a minute. Past them the
    /// client gets 429 for codes the cache does not know, so made-up codes cannot keep the database busy.
    public var unknownCodeBurst = 100
    public var unknownCodesPerMinute = 60
    /// The header a trusted proxy or CDN puts the visitor's country in (`CF-IPCountry`, `CloudFront-Viewer-Country`),
    /// for rules on countries; read only on requests from ``ServerSettings/trustedProxies``. Nil: no country.
    public var countryHeader: String?
    /// SHA-256 of the admin API key. Without it, the links API answers 503.
    public var adminKeyDigest: [UInt8]?

    public init() {}

    /// Keeps only the digest of `key`.
    public mutating func setAdminKey(_ key: String) throws(ConfigurationError) {
        guard key.utf8.count >= 24 else {
            throw ConfigurationError(
                setting: "admin key",
                reason: "use at least 24 characters (openssl rand -base64 32)"
            )
        }
        adminKeyDigest = Array(SHA256.hash(data: Array(key.utf8)))
    }

    func isAdmin(_ key: String) -> Bool {
        guard let adminKeyDigest else { return false }
        return SecureBytes.equal(Array(SHA256.hash(data: Array(key.utf8))), adminKeyDigest)
    }
}
