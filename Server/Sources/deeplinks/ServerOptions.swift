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
    @Option(name: Setting.host.name, help: Setting.host.argumentHelp)
    var host: String?

    @Option(name: Setting.port.name, help: Setting.port.argumentHelp)
    var port: Int?

    @Option(name: Setting.config.name, help: Setting.config.argumentHelp)
    var configPath: String?

    @Option(name: Setting.databaseURL.name, help: Setting.databaseURL.argumentHelp)
    var databaseURL: String?

    @Option(name: Setting.mailURL.name, help: Setting.mailURL.argumentHelp)
    var mailURL: String?

    @Option(name: Setting.trustedProxies.name, help: Setting.trustedProxies.argumentHelp)
    var trustedProxies: [String] = []

    @Option(name: Setting.resetTokenMinutes.name, help: Setting.resetTokenMinutes.argumentHelp)
    var resetTokenMinutes: Int?

    @Option(name: Setting.minimumPasswordLength.name, help: Setting.minimumPasswordLength.argumentHelp)
    var minimumPasswordLength: Int?

    @Option(name: Setting.mailFrom.name, help: Setting.mailFrom.argumentHelp)
    var mailFrom: String?

    @Option(name: Setting.dkimKeyFile.name, help: Setting.dkimKeyFile.argumentHelp)
    var dkimKeyFile: String?

    @Option(name: Setting.dkimSelector.name, help: Setting.dkimSelector.argumentHelp)
    var dkimSelector: String?

    @Option(name: Setting.linkDomain.name, help: Setting.linkDomain.argumentHelp)
    var linkDomain: String?

    @Option(name: Setting.otherLinkDomains.name, help: Setting.otherLinkDomains.argumentHelp)
    var otherLinkDomains: [String] = []

    @Option(name: Setting.landingDomain.name, help: Setting.landingDomain.argumentHelp)
    var landingDomain: String?

    @Option(name: Setting.countryHeader.name, help: Setting.countryHeader.argumentHelp)
    var countryHeader: String?

    @Option(name: Setting.allowedDestinationHosts.name, help: Setting.allowedDestinationHosts.argumentHelp)
    var allowedDestinationHosts: [String] = []

    @Option(name: Setting.metricsAllow.name, help: Setting.metricsAllow.argumentHelp)
    var metricsAllow: [String] = []

    @Option(name: Setting.webhooks.name, help: Setting.webhooks.argumentHelp)
    var webhooks: [String] = []

    @Option(name: Setting.idleTimeout.name, help: Setting.idleTimeout.argumentHelp)
    var idleTimeout: Int?

    @Option(name: Setting.bodyTimeout.name, help: Setting.bodyTimeout.argumentHelp)
    var bodyTimeout: Int?

    @Option(name: Setting.anonymousWritesPerHour.name, help: Setting.anonymousWritesPerHour.argumentHelp)
    var anonymousWritesPerHour: Int?

    @Option(name: Setting.maxConnectionsPerClient.name, help: Setting.maxConnectionsPerClient.argumentHelp)
    var maxConnectionsPerClient: Int?

    @Option(name: Setting.linkCacheSize.name, help: Setting.linkCacheSize.argumentHelp)
    var linkCacheSize: String?

    @Option(name: Setting.clickRetentionDays.name, help: Setting.clickRetentionDays.argumentHelp)
    var clickRetentionDays: Int?
    @Option(name: Setting.hourlyRetentionDays.name, help: Setting.hourlyRetentionDays.argumentHelp)
    var hourlyRetentionDays: Int?
    @Option(name: Setting.analytics.name, help: Setting.analytics.argumentHelp)
    var analytics: String?
    @Option(name: Setting.geoipDatabase.name, help: Setting.geoipDatabase.argumentHelp)
    var geoipDatabase: String?
    @Option(name: Setting.appleCDNCheckMinutes.name, help: Setting.appleCDNCheckMinutes.argumentHelp)
    var appleCDNCheckMinutes: Int?
    @Option(name: Setting.appleCDNURL.name, help: Setting.appleCDNURL.argumentHelp)
    var appleCDNURL: String?

    @Option(name: Setting.logLevel.name, help: Setting.logLevel.argumentHelp)
    var logLevel: String?

    /// Flags first, then the environment, then the defaults. Throws a one-line reason.
    /// The database alone, for the commands that need no app configuration (`migrate`, `outbox`).
    func database(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> DatabaseURL {
        try DatabaseURL(
            parsing: databaseURL ?? environment[Setting.databaseURL.environment] ?? DatabaseURL.defaultValue
        )
    }

    func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ServerSettings {
        guard let path = configPath ?? environment[Setting.config.environment] else {
            throw ConfigurationError(
                setting: "app configuration",
                reason:
                    "none given: pass --config FILE or set DEEPLINKS_CONFIG (Server/Examples/demo-app.json describes the demo app)"
            )
        }
        var settings = ServerSettings(app: try AppConfiguration.load(path: path))
        if let host = host ?? environment[Setting.host.environment] {
            guard !host.isEmpty, !host.contains("/") else {
                throw ConfigurationError(setting: "host", reason: "'\(host)' is not an address to bind")
            }
            settings.host = host
        }
        if let port {
            settings.port = try Self.port(String(port), setting: "--port")
        } else if let value = environment[Setting.port.environment] {
            settings.port = try Self.port(value, setting: "DEEPLINKS_PORT")
        }
        settings.database = try database(environment: environment)
        settings.mail = try MailURL(
            parsing: mailURL ?? environment[Setting.mailURL.environment] ?? MailURL.defaultValue
        )
        // Keys come from the environment only: a flag would show them in `ps`.
        if let keys = environment[Setting.secretKeys.environment] {
            settings.secretKeys = try SecretKeys(parsing: keys)
        }
        if let secrets = environment[Setting.hookSecrets.environment] {
            settings.hookSecrets = try SecretKeys(parsing: secrets, setting: "DEEPLINKS_HOOK_SECRETS")
        }
        settings.trustedProxies = try TrustedProxies(
            Self.list(trustedProxies, environment[Setting.trustedProxies.environment])
        )
        settings.webhooks = Self.list(webhooks, environment[Setting.webhooks.environment])
        let metrics = Self.list(metricsAllow, environment[Setting.metricsAllow.environment])
        settings.metricsAllowedFrom = metrics.contains("any") ? nil : metrics
        // Refused here, with the entry named, rather than when the server is built.
        _ = try TrustedProxies(settings.metricsAllowedFrom ?? [])
        if let value = try Setting.idleTimeout.integer(idleTimeout, environment) {
            settings.idleTimeoutSeconds = value
        }
        if let value = try Setting.bodyTimeout.integer(bodyTimeout, environment) {
            settings.bodyTimeoutSeconds = value
        }
        if let value = try Setting.anonymousWritesPerHour.integer(anonymousWritesPerHour, environment) {
            settings.anonymousWritesPerHour = value
        }
        if let value = try Setting.maxConnectionsPerClient.integer(maxConnectionsPerClient, environment) {
            settings.maxConnectionsPerClient = value
        }
        if let value = try Setting.clickRetentionDays.integer(clickRetentionDays, environment) {
            settings.clickRetentionDays = value
        }
        if let value = try Setting.hourlyRetentionDays.integer(hourlyRetentionDays, environment) {
            settings.hourlyRetentionDays = value
        }
        switch analytics ?? environment[Setting.analytics.environment] {
        case nil, "on": settings.analytics = true
        case "off": settings.analytics = false
        case let other?: throw ConfigurationError(setting: "analytics", reason: "is on or off, not '\(other)'")
        }
        if let path = geoipDatabase ?? environment[Setting.geoipDatabase.environment], !path.isEmpty {
            settings.geoipDatabase = path
        }
        if let value = try Setting.appleCDNCheckMinutes.integer(appleCDNCheckMinutes, environment) {
            settings.appleCDNCheckMinutes = value
        }
        if let url = appleCDNURL ?? environment[Setting.appleCDNURL.environment], !url.isEmpty {
            guard url.hasPrefix("https://") || url.hasPrefix("http://"), url.hasSuffix("/"),
                URL(string: url)?.host?.isEmpty == false
            else {
                throw ConfigurationError(
                    setting: "apple-cdn-url",
                    reason: "is an http(s) URL ending in '/' (the domain is appended), not '\(url)'"
                )
            }
            settings.appleCDNURL = url
        }
        if let size = linkCacheSize ?? environment[Setting.linkCacheSize.environment] {
            settings.linkCacheBytes = try Self.bytes(size, setting: "link cache size")
        }
        if let value = try Setting.resetTokenMinutes.integer(resetTokenMinutes, environment) {
            settings.passwordReset.tokenLifetimeSeconds = Int64(value) * 60
        }
        if let length = try Setting.minimumPasswordLength.integer(minimumPasswordLength, environment) {
            settings.passwordReset.passwordPolicy.minimumLength = length
        }
        settings.passwordReset = try settings.passwordReset.validated()
        // Flags, then the environment, then the configuration file's `links` section.
        settings.smartLinks = settings.app.links
        if let domain = try Self.host(linkDomain ?? environment[Setting.linkDomain.environment], setting: "link domain")
        {
            settings.smartLinks.linkDomain = domain
        }
        if let domain = try Self.host(
            landingDomain ?? environment[Setting.landingDomain.environment],
            setting: "landing domain"
        ) {
            settings.smartLinks.landingDomain = domain
        }
        let others = try Self.list(otherLinkDomains, environment[Setting.otherLinkDomains.environment])
            .compactMap { try Self.host($0, setting: "other link domain") }
        if !others.isEmpty { settings.smartLinks.otherLinkDomains = others }
        let hosts = try Self.list(allowedDestinationHosts, environment[Setting.allowedDestinationHosts.environment])
            .compactMap { try Self.host($0, setting: "allowed destination host") }
        if !hosts.isEmpty { settings.smartLinks.allowedHosts = hosts }
        // Checked when the server is made (LinkPolicy): a name HTTP allows.
        if let header = countryHeader ?? environment[Setting.countryHeader.environment] {
            settings.smartLinks.countryHeader = header
        }
        // The admin key comes from the environment only, and only its digest is kept.
        if let key = environment[Setting.adminKey.environment] {
            try settings.smartLinks.setAdminKey(key)
        }
        if let from = mailFrom ?? environment[Setting.mailFrom.environment] {
            guard !from.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
                from.contains("@")
            else {
                throw ConfigurationError(setting: "mail from", reason: "is not an address (or contains a line break)")
            }
            settings.mailFrom = from
        }
        if let pem = try dkimKey(environment: environment) {
            let selector = dkimSelector ?? environment[Setting.dkimSelector.environment] ?? "deeplinks"
            settings.dkim = try DKIMSigner(pem: pem, domain: settings.fromDomain, selector: selector)
        }
        return settings
    }

    /// The DKIM key's PEM: from the file named by the flag or DEEPLINKS_DKIM_KEY_FILE, or DEEPLINKS_DKIM_KEY itself.
    private func dkimKey(environment: [String: String]) throws -> String? {
        if let path = dkimKeyFile ?? environment[Setting.dkimKeyFile.environment] {
            do {
                return try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw ConfigurationError(setting: "DKIM key file", reason: "\(path) cannot be read")
            }
        }
        return environment[Setting.dkimKey.environment]
    }

    func logLevel(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Logger.Level {
        let value = logLevel ?? environment[Setting.logLevel.environment] ?? "info"
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
