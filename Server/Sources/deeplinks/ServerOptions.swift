import ArgumentParser
import DeepLinksMail
import DeepLinksSecrets
import DeepLinksServer
import DeepLinksStorage
import DeepLinksSupport
import Foundation
import Logging

/// Options shared by `serve` and `migrate`. Each may also come from the environment; a flag wins.
struct ServerOptions: ParsableArguments {
    @Option(help: "Address to bind. Env: DEEPLINKS_HOST. Default: 127.0.0.1.")
    var host: String?

    @Option(help: "Port to listen on, 0 for any free port. Env: DEEPLINKS_PORT. Default: 8080.")
    var port: Int?

    @Option(
        name: .customLong("config"),
        help:
            "App configuration file (JSON; Server/Examples/demo-app.json is the demo app's). Env: DEEPLINKS_CONFIG. Required."
    )
    var configPath: String?

    @Option(
        name: .customLong("database-url"),
        help:
            "sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DB. Env: DEEPLINKS_DATABASE_URL. Default: \(DatabaseURL.defaultValue)."
    )
    var databaseURL: String?

    @Option(
        name: .customLong("mail-url"),
        help:
            "A folder for .eml files, or smtp://USER:PASSWORD@HOST:PORT (STARTTLS), or smtps://... Env: DEEPLINKS_MAIL_URL. Default: \(MailURL.defaultValue)."
    )
    var mailURL: String?

    @Option(
        name: .customLong("trusted-proxy"),
        help:
            "An address whose X-Forwarded-For is believed (repeat for several). Env: DEEPLINKS_TRUSTED_PROXIES (comma-separated). Default: none."
    )
    var trustedProxies: [String] = []

    @Option(
        name: .customLong("reset-token-minutes"),
        help: "How long a password-reset link works, 5 to 120. Env: DEEPLINKS_RESET_TOKEN_MINUTES. Default: 30."
    )
    var resetTokenMinutes: Int?

    @Option(
        name: .customLong("min-password-length"),
        help:
            "Minimum password length in code points: 15 when the password is the only factor, 8 allowed with a second factor. Env: DEEPLINKS_MIN_PASSWORD_LENGTH. Default: 15."
    )
    var minimumPasswordLength: Int?

    @Option(
        name: .customLong("mail-from"),
        help:
            "The From: of every message. Env: DEEPLINKS_MAIL_FROM. Default: the app's name at no-reply@ its first domain."
    )
    var mailFrom: String?

    @Option(
        name: .customLong("dkim-key-file"),
        help:
            "A PEM private key (RSA 2048+ or Ed25519) to sign mail with DKIM for the From domain. Env: DEEPLINKS_DKIM_KEY_FILE, or the PEM itself in DEEPLINKS_DKIM_KEY."
    )
    var dkimKeyFile: String?

    @Option(
        name: .customLong("dkim-selector"),
        help:
            "The DKIM selector: the key is published at SELECTOR._domainkey.DOMAIN. Env: DEEPLINKS_DKIM_SELECTOR. Default: deeplinks."
    )
    var dkimSelector: String?

    @Option(
        name: .customLong("link-domain"),
        help: "The host of short links. Env: DEEPLINKS_LINK_DOMAIN. Default: the app's first domain."
    )
    var linkDomain: String?

    @Option(
        name: .customLong("other-link-domain"),
        help:
            "An earlier link domain whose short links keep working (repeat for several): it serves the link domain's association file. Env: DEEPLINKS_OTHER_LINK_DOMAINS (comma-separated)."
    )
    var otherLinkDomains: [String] = []

    @Option(
        name: .customLong("landing-domain"),
        help:
            "The host of landing pages, not the link domain (universal links do not fire on same-domain taps). Env: DEEPLINKS_LANDING_DOMAIN."
    )
    var landingDomain: String?

    @Option(
        name: .customLong("country-header"),
        help:
            "The header your trusted proxy or CDN puts the visitor's country in (CF-IPCountry, CloudFront-Viewer-Country), for link rules on countries; read only from --trusted-proxy peers. Env: DEEPLINKS_COUNTRY_HEADER."
    )
    var countryHeader: String?

    @Option(
        name: .customLong("allowed-destination-host"),
        help:
            "A host smart links may send people to, besides the app's domains, the App Store and Google Play (repeat for several). Env: DEEPLINKS_ALLOWED_DESTINATION_HOSTS (comma-separated)."
    )
    var allowedDestinationHosts: [String] = []

    @Option(
        name: .customLong("metrics-allow"),
        help:
            "A network that may read /metrics besides loopback (repeat for several), or 'any'. Env: DEEPLINKS_METRICS_ALLOW (comma-separated). Default: loopback only."
    )
    var metricsAllow: [String] = []

    @Option(
        name: .customLong("webhook"),
        help:
            "An endpoint that receives signed events (link.created, link.updated, link.deleted, clicks.counted, deferred.redeemed); repeat for several. https, or http to loopback; signed under DEEPLINKS_HOOK_SECRETS. Env: DEEPLINKS_WEBHOOKS (comma-separated)."
    )
    var webhooks: [String] = []

    @Option(
        name: .customLong("idle-timeout"),
        help:
            "Seconds a connection may take to send a request's complete head (after opening, or after the last response). Env: DEEPLINKS_IDLE_TIMEOUT. Default: 15."
    )
    var idleTimeout: Int?

    @Option(
        name: .customLong("body-timeout"),
        help:
            "A request's body must arrive at 1 KiB/s or faster on average over each window of this many seconds (a smaller body within one window), or the connection is closed. Env: DEEPLINKS_BODY_TIMEOUT. Default: 10."
    )
    var bodyTimeout: Int?

    @Option(
        name: .customLong("anonymous-writes-per-hour"),
        help:
            "What clients without a key may write in an hour, all servers together, of each kind: reset requests, sign-ups, deferred links; past it, 503 capacity_reached. Env: DEEPLINKS_ANONYMOUS_WRITES_PER_HOUR. Default: 10000."
    )
    var anonymousWritesPerHour: Int?

    @Option(
        name: .customLong("max-connections-per-client"),
        help:
            "Open connections one client address (IPv6: its /64) may hold; trusted proxies are exempt. Env: DEEPLINKS_MAX_CONNECTIONS_PER_CLIENT. Default: 64."
    )
    var maxConnectionsPerClient: Int?

    @Option(
        name: .customLong("link-cache-size"),
        help:
            "The memory the link cache may take, in bytes or with KiB, MiB or GiB (a catalogue whose clicked links fit is served from memory; unknown codes get a tenth more). Env: DEEPLINKS_LINK_CACHE_SIZE. Default: 128MiB."
    )
    var linkCacheSize: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical. Env: DEEPLINKS_LOG_LEVEL. Default: info.")
    var logLevel: String?

    /// Flags first, then the environment, then the defaults. Throws a one-line reason.
    /// The database alone, for the commands that need no app configuration (`migrate`, `outbox`).
    func database(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> DatabaseURL {
        try DatabaseURL(parsing: databaseURL ?? environment["DEEPLINKS_DATABASE_URL"] ?? DatabaseURL.defaultValue)
    }

    func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ServerSettings {
        guard let path = configPath ?? environment["DEEPLINKS_CONFIG"] else {
            throw ConfigurationError(
                setting: "app configuration",
                reason:
                    "none given: pass --config FILE or set DEEPLINKS_CONFIG (Server/Examples/demo-app.json describes the demo app)"
            )
        }
        var settings = ServerSettings(app: try AppConfiguration.load(path: path))
        if let host = host ?? environment["DEEPLINKS_HOST"] {
            guard !host.isEmpty, !host.contains("/") else {
                throw ConfigurationError(setting: "host", reason: "'\(host)' is not an address to bind")
            }
            settings.host = host
        }
        if let port {
            settings.port = try Self.port(String(port), setting: "--port")
        } else if let value = environment["DEEPLINKS_PORT"] {
            settings.port = try Self.port(value, setting: "DEEPLINKS_PORT")
        }
        settings.database = try database(environment: environment)
        settings.mail = try MailURL(parsing: mailURL ?? environment["DEEPLINKS_MAIL_URL"] ?? MailURL.defaultValue)
        // Keys come from the environment only: a flag would show them in `ps`.
        if let keys = environment["DEEPLINKS_SECRET_KEYS"] {
            settings.secretKeys = try SecretKeys(parsing: keys)
        }
        if let secrets = environment["DEEPLINKS_HOOK_SECRETS"] {
            settings.hookSecrets = try SecretKeys(parsing: secrets, setting: "DEEPLINKS_HOOK_SECRETS")
        }
        settings.trustedProxies = try TrustedProxies(
            Self.list(trustedProxies, environment["DEEPLINKS_TRUSTED_PROXIES"])
        )
        settings.webhooks = Self.list(webhooks, environment["DEEPLINKS_WEBHOOKS"])
        let metrics = Self.list(metricsAllow, environment["DEEPLINKS_METRICS_ALLOW"])
        settings.metricsAllowedFrom = metrics.contains("any") ? nil : metrics
        // Refused here, with the entry named, rather than when the server is built.
        _ = try TrustedProxies(settings.metricsAllowedFrom ?? [])
        if let seconds = try Self.integer(idleTimeout, environment["DEEPLINKS_IDLE_TIMEOUT"], setting: "idle timeout") {
            guard (1...3600).contains(seconds) else {
                throw ConfigurationError(setting: "idle timeout", reason: "\(seconds) s is outside 1 to 3600")
            }
            settings.idleTimeoutSeconds = seconds
        }
        if let seconds = try Self.integer(bodyTimeout, environment["DEEPLINKS_BODY_TIMEOUT"], setting: "body timeout") {
            guard (1...3600).contains(seconds) else {
                throw ConfigurationError(setting: "body timeout", reason: "\(seconds) s is outside 1 to 3600")
            }
            settings.bodyTimeoutSeconds = seconds
        }
        if let ceiling = try Self.integer(
            anonymousWritesPerHour,
            environment["DEEPLINKS_ANONYMOUS_WRITES_PER_HOUR"],
            setting: "anonymous writes per hour"
        ) {
            guard ceiling >= 60 else {
                throw ConfigurationError(setting: "anonymous writes per hour", reason: "\(ceiling) is below 60")
            }
            settings.anonymousWritesPerHour = ceiling
        }
        if let cap = try Self.integer(
            maxConnectionsPerClient,
            environment["DEEPLINKS_MAX_CONNECTIONS_PER_CLIENT"],
            setting: "connections per client"
        ) {
            guard cap >= 1 else {
                throw ConfigurationError(setting: "connections per client", reason: "must be at least 1")
            }
            settings.maxConnectionsPerClient = cap
        }
        if let size = linkCacheSize ?? environment["DEEPLINKS_LINK_CACHE_SIZE"] {
            settings.linkCacheBytes = try Self.bytes(size, setting: "link cache size")
        }
        if let minutes = try Self.integer(
            resetTokenMinutes,
            environment["DEEPLINKS_RESET_TOKEN_MINUTES"],
            setting: "reset token minutes"
        ) {
            settings.passwordReset.tokenLifetimeSeconds = Int64(minutes) * 60
        }
        if let length = try Self.integer(
            minimumPasswordLength,
            environment["DEEPLINKS_MIN_PASSWORD_LENGTH"],
            setting: "minimum password length"
        ) {
            settings.passwordReset.passwordPolicy.minimumLength = length
        }
        settings.passwordReset = try settings.passwordReset.validated()
        // Flags, then the environment, then the configuration file's `links` section.
        settings.smartLinks = settings.app.links
        if let domain = try Self.host(linkDomain ?? environment["DEEPLINKS_LINK_DOMAIN"], setting: "link domain") {
            settings.smartLinks.linkDomain = domain
        }
        if let domain = try Self.host(
            landingDomain ?? environment["DEEPLINKS_LANDING_DOMAIN"],
            setting: "landing domain"
        ) {
            settings.smartLinks.landingDomain = domain
        }
        let others = try Self.list(otherLinkDomains, environment["DEEPLINKS_OTHER_LINK_DOMAINS"])
            .compactMap { try Self.host($0, setting: "other link domain") }
        if !others.isEmpty { settings.smartLinks.otherLinkDomains = others }
        let hosts = try Self.list(allowedDestinationHosts, environment["DEEPLINKS_ALLOWED_DESTINATION_HOSTS"])
            .compactMap { try Self.host($0, setting: "allowed destination host") }
        if !hosts.isEmpty { settings.smartLinks.allowedHosts = hosts }
        // Checked when the server is made (LinkPolicy): a name HTTP allows.
        if let header = countryHeader ?? environment["DEEPLINKS_COUNTRY_HEADER"] {
            settings.smartLinks.countryHeader = header
        }
        // The admin key comes from the environment only, and only its digest is kept.
        if let key = environment["DEEPLINKS_ADMIN_KEY"] {
            try settings.smartLinks.setAdminKey(key)
        }
        if let from = mailFrom ?? environment["DEEPLINKS_MAIL_FROM"] {
            guard !from.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
                from.contains("@")
            else {
                throw ConfigurationError(setting: "mail from", reason: "is not an address (or contains a line break)")
            }
            settings.mailFrom = from
        }
        if let pem = try dkimKey(environment: environment) {
            let selector = dkimSelector ?? environment["DEEPLINKS_DKIM_SELECTOR"] ?? "deeplinks"
            settings.dkim = try DKIMSigner(pem: pem, domain: settings.fromDomain, selector: selector)
        }
        return settings
    }

    /// The DKIM key's PEM: from the file named by the flag or DEEPLINKS_DKIM_KEY_FILE, or DEEPLINKS_DKIM_KEY itself.
    private func dkimKey(environment: [String: String]) throws -> String? {
        if let path = dkimKeyFile ?? environment["DEEPLINKS_DKIM_KEY_FILE"] {
            do {
                return try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw ConfigurationError(setting: "DKIM key file", reason: "\(path) cannot be read")
            }
        }
        return environment["DEEPLINKS_DKIM_KEY"]
    }

    func logLevel(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Logger.Level {
        let value = logLevel ?? environment["DEEPLINKS_LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: value.lowercased()) else {
            throw ConfigurationError(
                setting: "log level",
                reason: "'\(value)' is not one of trace, debug, info, notice, warning, error, critical"
            )
        }
        return level
    }

    private static func host(_ value: String?, setting: String) throws -> String? {
        guard let value, !value.isEmpty else { return nil }
        if let problem = AppConfiguration.hostProblem(value) {
            throw ConfigurationError(setting: setting, reason: "'\(value)' \(problem)")
        }
        return value.lowercased()
    }

    /// A repeatable flag's values, or else the environment's comma-separated list; trimmed, empty entries dropped.
    private static func list(_ flag: [String], _ environment: String?) -> [String] {
        (flag.isEmpty ? (environment ?? "").split(separator: ",").map(String.init) : flag)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    private static func integer(_ flag: Int?, _ environment: String?, setting: String) throws -> Int? {
        if let flag { return flag }
        guard let environment else { return nil }
        guard let value = Int(environment) else {
            throw ConfigurationError(setting: setting, reason: "'\(environment)' is not a whole number")
        }
        return value
    }

    /// A size in bytes: a whole number, or one followed by KiB, MiB or GiB; from 1 MiB to 1 TiB.
    static func bytes(_ value: String, setting: String) throws -> Int {
        let units: [(suffix: String, shift: Int)] = [("KiB", 10), ("MiB", 20), ("GiB", 30)]
        let text = value.trimmingCharacters(in: .whitespaces)
        let unit = units.first { text.hasSuffix($0.suffix) }
        let digits = unit.map { _ in String(text.dropLast(3)).trimmingCharacters(in: .whitespaces) } ?? text
        let shift = unit?.shift ?? 0
        guard let number = Int(digits), number >= 0 else {
            throw ConfigurationError(
                setting: setting,
                reason: "'\(value)' is not a size (a whole number of bytes, or one with KiB, MiB or GiB: 256MiB)"
            )
        }
        guard number <= 1 << (40 - shift) else {
            throw ConfigurationError(setting: setting, reason: "'\(value)' is more than 1TiB")
        }
        guard number << shift >= 1 << 20 else {
            throw ConfigurationError(setting: setting, reason: "'\(value)' is less than 1MiB")
        }
        return number << shift
    }

    private static func port(_ value: String, setting: String) throws -> Int {
        guard let port = Int(value), (0...65535).contains(port) else {
            throw ConfigurationError(setting: setting, reason: "'\(value)' is not a port number (0-65535)")
        }
        return port
    }
}
