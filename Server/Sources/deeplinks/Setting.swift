import ArgumentParser
import DeepLinksMail
import DeepLinksServer
import DeepLinksStorage
import DeepLinksSupport
import Foundation

/// A setting of the command, declared once: its flag (nil when it comes from the environment only: a secret would
/// show in `ps`), its environment variable, its default and what it does. The flags' help (`--help`), the
/// environment's reading (``ServerOptions``) and the table in docs/settings.md all come from ``all``;
/// `SettingsTableTests` holds the docs to it and fails on an environment variable the code reads that is not here.
struct Setting: Sendable {
    let flag: String?
    let environment: String
    /// The default, or what happens without it.
    let defaultValue: String
    let help: String
    /// A repeatable flag, whose environment variable is a comma-separated list.
    var repeatable = false
    /// Read by which commands (`serve` and what runs beside it, unless said).
    var commands = "serve, migrate, outbox, check"
    /// The whole numbers a numeric setting takes: anything else is refused at start, with this range named.
    var range: ClosedRange<Int>? = nil

    /// The flag's help as `--help` prints it.
    var argumentHelp: ArgumentHelp {
        ArgumentHelp(
            "\(help) Env: \(environment)\(repeatable ? " (comma-separated)" : ""). Default: \(defaultValue)."
        )
    }

    /// The whole number the flag, else the environment, gives, checked against ``range``; nil when neither gives
    /// one. Throws a one-line reason naming the flag or the variable.
    func integer(_ flag: Int?, _ environment: [String: String]) throws -> Int? {
        let value: Int
        if let flag {
            value = flag
        } else {
            guard let text = environment[self.environment] else { return nil }
            guard let number = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw ConfigurationError(setting: self.environment, reason: "'\(text)' is not a whole number")
            }
            value = number
        }
        if let range, !range.contains(value) {
            let name = flag == nil ? self.environment : "--\(self.flag ?? "")"
            let bounds =
                range.upperBound == .max ? "at least \(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
            throw ConfigurationError(setting: name, reason: "\(value) is not \(bounds)")
        }
        return value
    }

    /// The flag's name, for `@Option(name:)`.
    var name: NameSpecification { .customLong(flag ?? "") }
}

extension Setting {
    static let host = Setting(
        flag: "host",
        environment: "DEEPLINKS_HOST",
        defaultValue: "127.0.0.1",
        help: "Address to bind."
    )
    static let port = Setting(
        flag: "port",
        environment: "DEEPLINKS_PORT",
        defaultValue: "8080",
        help: "Port to listen on, 0 for any free port."
    )
    static let config = Setting(
        flag: "config",
        environment: "DEEPLINKS_CONFIG",
        defaultValue: "none: required by serve and check",
        help: "App configuration file (JSON; Server/Examples/demo-app.json is the demo app's)."
    )
    static let databaseURL = Setting(
        flag: "database-url",
        environment: "DEEPLINKS_DATABASE_URL",
        defaultValue: DatabaseURL.defaultValue,
        help: "sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DB."
    )
    static let mailURL = Setting(
        flag: "mail-url",
        environment: "DEEPLINKS_MAIL_URL",
        defaultValue: MailURL.defaultValue,
        help: "A folder for .eml files, or smtp://USER:PASSWORD@HOST:PORT (STARTTLS), or smtps://..."
    )
    static let trustedProxies = Setting(
        flag: "trusted-proxy",
        environment: "DEEPLINKS_TRUSTED_PROXIES",
        defaultValue: "none",
        help: "An address or network whose X-Forwarded-For is believed (repeat for several).",
        repeatable: true
    )
    static let resetTokenMinutes = Setting(
        flag: "reset-token-minutes",
        environment: "DEEPLINKS_RESET_TOKEN_MINUTES",
        defaultValue: "30",
        help: "How long a password-reset link works, 5 to 120.",
        range: 5...120
    )
    static let minimumPasswordLength = Setting(
        flag: "min-password-length",
        environment: "DEEPLINKS_MIN_PASSWORD_LENGTH",
        defaultValue: "15",
        help:
            "Minimum password length in code points: 15 when the password is the only factor, 8 allowed with a second factor."
    )
    static let mailFrom = Setting(
        flag: "mail-from",
        environment: "DEEPLINKS_MAIL_FROM",
        defaultValue: "the app's name at no-reply@ its first domain",
        help: "The From: of every message."
    )
    static let dkimKeyFile = Setting(
        flag: "dkim-key-file",
        environment: "DEEPLINKS_DKIM_KEY_FILE",
        defaultValue: "none: mail is not signed",
        help: "A PEM private key (RSA 2048+ or Ed25519) to sign mail with DKIM for the From domain."
    )
    static let dkimKey = Setting(
        flag: nil,
        environment: "DEEPLINKS_DKIM_KEY",
        defaultValue: "none",
        help: "The DKIM key's PEM itself, instead of a file."
    )
    static let dkimSelector = Setting(
        flag: "dkim-selector",
        environment: "DEEPLINKS_DKIM_SELECTOR",
        defaultValue: "deeplinks",
        help: "The DKIM selector: the key is published at SELECTOR._domainkey.DOMAIN."
    )
    static let linkDomain = Setting(
        flag: "link-domain",
        environment: "DEEPLINKS_LINK_DOMAIN",
        defaultValue: "the app's first domain",
        help: "The host of short links."
    )
    static let otherLinkDomains = Setting(
        flag: "other-link-domain",
        environment: "DEEPLINKS_OTHER_LINK_DOMAINS",
        defaultValue: "none",
        help:
            "An earlier link domain whose short links keep working (repeat for several): it serves the link domain's association file.",
        repeatable: true
    )
    static let landingDomain = Setting(
        flag: "landing-domain",
        environment: "DEEPLINKS_LANDING_DOMAIN",
        defaultValue: "the link domain (deeplinks check warns)",
        help: "The host of landing pages, not the link domain (universal links do not fire on same-domain taps)."
    )
    static let countryHeader = Setting(
        flag: "country-header",
        environment: "DEEPLINKS_COUNTRY_HEADER",
        defaultValue: "none",
        help:
            "The header your trusted proxy or CDN puts the visitor's country in (CF-IPCountry, CloudFront-Viewer-Country), for link rules on countries; read only from --trusted-proxy peers."
    )
    static let allowedDestinationHosts = Setting(
        flag: "allowed-destination-host",
        environment: "DEEPLINKS_ALLOWED_DESTINATION_HOSTS",
        defaultValue: "none",
        help:
            "A host smart links may send people to, besides the app's domains, the App Store and Google Play (repeat for several).",
        repeatable: true
    )
    static let metricsAllow = Setting(
        flag: "metrics-allow",
        environment: "DEEPLINKS_METRICS_ALLOW",
        defaultValue: "loopback only",
        help: "A network that may read /metrics besides loopback (repeat for several), or 'any'.",
        repeatable: true
    )
    static let webhooks = Setting(
        flag: "webhook",
        environment: "DEEPLINKS_WEBHOOKS",
        defaultValue: "none",
        help:
            "An endpoint that receives signed events (link.created, link.updated, link.deleted, clicks.counted, deferred.redeemed); repeat for several. https, or http to loopback; signed under DEEPLINKS_HOOK_SECRETS.",
        repeatable: true
    )
    static let idleTimeout = Setting(
        flag: "idle-timeout",
        environment: "DEEPLINKS_IDLE_TIMEOUT",
        defaultValue: "15",
        help:
            "Seconds a connection may take to send a request's complete head (after opening, or after the last response), 1 to 3600.",
        range: 1...3600
    )
    static let bodyTimeout = Setting(
        flag: "body-timeout",
        environment: "DEEPLINKS_BODY_TIMEOUT",
        defaultValue: "10",
        help:
            "A request's body must arrive at 1 KiB/s or faster on average over each window of this many seconds (a smaller body within one window), or the connection is closed; 1 to 3600.",
        range: 1...3600
    )
    static let anonymousWritesPerHour = Setting(
        flag: "anonymous-writes-per-hour",
        environment: "DEEPLINKS_ANONYMOUS_WRITES_PER_HOUR",
        defaultValue: "10000",
        help:
            "What clients without a key may write in an hour, all servers together, of each kind: reset requests, sign-ups, deferred links; past it, 503 capacity_reached. At least 60.",
        range: 60...Int.max
    )
    static let maxConnectionsPerClient = Setting(
        flag: "max-connections-per-client",
        environment: "DEEPLINKS_MAX_CONNECTIONS_PER_CLIENT",
        defaultValue: "64",
        help: "Open connections one client address (IPv6: its /64) may hold; trusted proxies are exempt.",
        range: 1...Int.max
    )
    static let linkCacheSize = Setting(
        flag: "link-cache-size",
        environment: "DEEPLINKS_LINK_CACHE_SIZE",
        defaultValue: "128MiB",
        help:
            "The memory the link cache may take, in bytes or with KiB, MiB or GiB, 1MiB to 1TiB (a catalogue whose clicked links fit is served from memory; unknown codes get a tenth more)."
    )
    static let clickRetentionDays = Setting(
        flag: "click-retention-days",
        environment: "DEEPLINKS_CLICK_RETENTION_DAYS",
        defaultValue: "400",
        help:
            "Days of click counts (per day, referrer and rule) kept, today included; older days are deleted by the hourly pruning. 0 keeps them all.",
        range: 0...Int.max
    )
    static let hourlyRetentionDays = Setting(
        flag: "hourly-retention-days",
        environment: "DEEPLINKS_HOURLY_RETENTION_DAYS",
        defaultValue: "35",
        help:
            "Days of hourly click analytics kept, today included (the daily ones are kept --click-retention-days); 0 keeps them all.",
        range: 0...Int.max
    )
    static let analytics = Setting(
        flag: "analytics",
        environment: "DEEPLINKS_ANALYTICS",
        defaultValue: "on",
        help:
            "on: clicks are also counted per hour, visitor, class (people, scanners, previews), country and device; off: per day, platform, referrer and rule only."
    )
    static let geoipDatabase = Setting(
        flag: "geoip-database",
        environment: "DEEPLINKS_GEOIP_DATABASE",
        defaultValue: "Debian's tor-geoipdb where installed",
        help:
            "An MMDB file (DB-IP Lite, GeoLite2) the analytics and the countries rule read clicks' countries from, when no --country-header gives one; none: no country. Read offline, never a network look-up."
    )
    static let appleCDNCheckMinutes = Setting(
        flag: "apple-cdn-check-minutes",
        environment: "DEEPLINKS_APPLE_CDN_CHECK_MINUTES",
        defaultValue: "5",
        help:
            "Minutes between two comparisons of Apple's CDN copy of each served domain's association file with the file served (universal-link health; a webhook once it has differed ten minutes); 0: never. Off with --analytics off.",
        range: 0...1440
    )
    static let appleCDNURL = Setting(
        flag: "apple-cdn-url",
        environment: "DEEPLINKS_APPLE_CDN_URL",
        defaultValue: "https://app-site-association.cdn-apple.com/a/v1/",
        help: "Where Apple's CDN serves a domain's association file (the domain is appended): a stand-in for tests."
    )
    static let logLevel = Setting(
        flag: "log-level",
        environment: "DEEPLINKS_LOG_LEVEL",
        defaultValue: "info",
        help: "trace, debug, info, notice, warning, error or critical."
    )
    static let secretKeys = Setting(
        flag: nil,
        environment: "DEEPLINKS_SECRET_KEYS",
        defaultValue: "a development key kept in the database (set it in production)",
        help:
            "VERSION:BASE64[,...]: the keys reset and session tokens are hashed under (openssl rand -base64 32); add a higher version to rotate."
    )
    static let hookSecrets = Setting(
        flag: nil,
        environment: "DEEPLINKS_HOOK_SECRETS",
        defaultValue: "none: webhooks and a team backend's hooks are refused",
        help: "VERSION:BASE64[,...]: the keys webhooks and the team backend's hooks are signed with."
    )
    static let adminKey = Setting(
        flag: nil,
        environment: "DEEPLINKS_ADMIN_KEY",
        defaultValue: "none: the API takes operators' keys only",
        help:
            "An admin's API key, configured rather than minted (also what deeplinks links import sends).",
        commands: "serve, links import"
    )
    static let serverURL = Setting(
        flag: "server",
        environment: "DEEPLINKS_SERVER_URL",
        defaultValue: "http://127.0.0.1:8080",
        help: "The server's address, for the commands that talk to a running server.",
        commands: "links import"
    )

    /// Every setting, in the order docs/settings.md lists them.
    static let all: [Setting] = [
        config, host, port, databaseURL, mailURL, logLevel, secretKeys, hookSecrets, adminKey, trustedProxies,
        metricsAllow, idleTimeout, bodyTimeout, maxConnectionsPerClient, anonymousWritesPerHour, linkCacheSize,
        clickRetentionDays, hourlyRetentionDays, analytics, geoipDatabase, appleCDNCheckMinutes, appleCDNURL,
        linkDomain, otherLinkDomains, landingDomain, allowedDestinationHosts, countryHeader, webhooks,
        resetTokenMinutes, minimumPasswordLength, mailFrom, dkimKeyFile, dkimKey, dkimSelector, serverURL,
    ]

    /// docs/settings.md's table.
    static var markdownTable: String {
        var lines = ["| Flag | Environment | Default | What it does |", "| --- | --- | --- | --- |"]
        for setting in all {
            let flag =
                setting.flag.map { "`--\($0)`" + (setting.repeatable ? " (repeat)" : "") } ?? "(environment only)"
            let environment = "`\(setting.environment)`" + (setting.repeatable ? " (comma-separated)" : "")
            let commands = setting.commands == "serve, migrate, outbox, check" ? "" : " (\(setting.commands))"
            lines.append("| \(flag) | \(environment) | \(setting.defaultValue) | \(setting.help)\(commands) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
