import DeepLinksMail
import DeepLinksSecrets
import DeepLinksStorage
import Logging

/// Everything `deeplinks serve` needs, validated. Defaults are the embedded ones: nothing to install.
public struct ServerSettings: Sendable {
    /// The address to bind; `127.0.0.1` by default, so a development server is not exposed.
    public var host: String = "127.0.0.1"
    /// The port to bind; 8080 by default, 0 for an ephemeral port.
    public var port: Int = 8080
    public var database: DatabaseURL = .sqliteFile(path: "var/deeplinks.sqlite")
    public var mail: MailURL = .folder(path: "var/mail/")
    /// The app the server links to: every link it prints comes from its configuration.
    public var app: AppConfiguration
    /// The keys reset and session tokens are hashed under. `serve` loads or creates a development key
    /// when none is configured; ``DeepLinksApplication/make`` makes a random one (tokens then die with it).
    public var secretKeys: SecretKeys?
    /// The secrets the hooks of external accounts are signed under (`DEEPLINKS_HOOK_SECRETS`, the format of
    /// the secret keys): required when ``AppConfiguration/externalAccounts`` is set.
    public var hookSecrets: SecretKeys?
    /// Endpoints that receive signed events (``WebhookEvents``): https, or http to loopback. They need
    /// ``hookSecrets``, which sign them.
    public var webhooks: [String] = []
    public var passwordReset = PasswordResetSettings()
    public var smartLinks = SmartLinkSettings()
    /// Peers whose `X-Forwarded-For` is believed (a load balancer's address, say).
    public var trustedProxies = TrustedProxies()
    /// The `From:` of every message; by default the app's name at `no-reply@` its first domain.
    public var mailFrom: String?
    /// Signs outgoing mail with DKIM, with the From domain as `d=`.
    public var dkim: DKIMSigner?

    /// The From of every message: ``mailFrom``, or the app's name at `no-reply@` its first domain.
    public var from: String {
        mailFrom ?? "\(app.displayName.filter { $0 != "\"" }) <no-reply@\(app.domains[0])>"
    }

    /// The domain of the From address: DKIM signs for it, and the envelope sender uses it, so SPF and DKIM
    /// align with what the reader sees (DMARC).
    public var fromDomain: String {
        String(MailSender.address(in: from).split(separator: "@").last ?? "")
    }
    /// A connection is closed when a request's head has not fully arrived this long after the connection
    /// opened or the last response ended (a slow-header client too).
    public var idleTimeoutSeconds = 15
    /// A request's body must arrive at 1 KiB/s or faster, on average over each window of this many seconds (a
    /// smaller body within one window), or the connection is closed (``BodyDeadline``).
    public var bodyTimeoutSeconds = 10
    /// The memory the link cache's known links may take (codes that are no link get a tenth of it beside): a
    /// catalogue whose clicked links fit is served from memory; past it, the least recently clicked go.
    public var linkCacheBytes = ServerSettings.defaultLinkCacheBytes
    public static let defaultLinkCacheBytes = 128 << 20
    /// Open connections one client address (IPv6: its /64) may hold; trusted proxies are exempt.
    public var maxConnectionsPerClient = 64
    /// What anonymous clients may write in an hour, all servers together, per kind (``WriteCeiling``): reset
    /// requests, sign-ups, deferred links.
    public var anonymousWritesPerHour = WriteCeiling.defaultPerHour
    /// Days of click counts kept (per day, referrer and rule), today included; 0 keeps them all.
    public var clickRetentionDays = ServerSettings.defaultClickRetentionDays
    /// About thirteen months: a year compared with the one before, no more.
    public static let defaultClickRetentionDays = 400
    /// Days of hourly click analytics kept, today included; 0 keeps them all. Five weeks: a month by hour.
    public var hourlyRetentionDays = 35
    /// Whether clicks are also counted per hour, visitor, class, country and device (``ClickAnalytics``).
    public var analytics = true
    /// The MMDB file clicks' countries are read from (none: `"none"`; nil: Debian's `tor-geoipdb` where installed).
    public var geoipDatabase: String?
    /// Minutes between two comparisons of Apple's CDN copies with the served files (``AppleCDNWatch``); 0: never.
    public var appleCDNCheckMinutes = 5
    /// Where Apple's CDN serves a domain's association file (the domain is appended): a stand-in in tests.
    public var appleCDNURL = LinkDoctor.appleCDN
    /// Who may read `GET /metrics`: loopback and these networks (`10.0.0.0/8`...); `nil` lets everyone.
    public var metricsAllowedFrom: [String]? = []

    public init(app: AppConfiguration) {
        self.app = app
    }
}
