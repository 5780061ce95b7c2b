import DeepLinksMail
import DeepLinksSecrets
import DeepLinksStorage
import DeepLinksSupport
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Prometheus
import UnixSignals

/// Running the server: the start-up lines, `deeplinks serve` and the development key.
extension DeepLinksApplication {
    /// The first lines a person sees: where the server listens and what to try.
    public static func logStartup(settings: ServerSettings, port: Int, logger: Logger) {
        let base = "http://\(settings.host.contains(":") ? "[\(settings.host)]" : settings.host):\(port)"
        logger.notice("deeplinks \(DeepLinksServerVersion.described) listening on \(base)")
        if let dkim = settings.dkim {
            logger.notice(
                "DKIM signs mail for \(dkim.domain): publish TXT \(dkim.selector)._domainkey.\(dkim.domain) \"\(dkim.dnsRecord)\""
            )
        }
        if settings.smartLinks.landingDomain == nil {
            logger.warning(
                "no landing domain: landing pages are served on the link domain, where 'Open in the app' is a same-domain tap iOS keeps in Safari (set --landing-domain; deeplinks check explains)"
            )
        }
        logger.notice(
            "try: curl \(base)/healthz   (metrics: \(base)/metrics, association file: \(base)/.well-known/apple-app-site-association)"
        )
        logger.info(
            "storage and mail",
            metadata: [
                "database": "\(settings.database.redacted)",
                "mail": "\(settings.mail)",
                "apps": "\(settings.app.apps.map(\.appID).joined(separator: ", "))",
            ]
        )
    }

    /// `deeplinks serve`: opens the database, applies pending migrations, serves until SIGINT or SIGTERM,
    /// lets the requests in flight finish, then closes the database.
    public static func serve(settings: ServerSettings, logger: Logger) async throws {
        let database = try await Database.open(settings.database, logger: logger)
        do {
            try await Migrator(database: database, logger: logger).migrate()
            if database.kind == .sqlite {
                // One process by design: the outboxes' leases it held when it stopped (a crash) are its own, and so
                // are the retries it waited for. Due now: a reset mail asked for during a crash-restart goes out at
                // once, not when the lease would have ended.
                let due = try await database.reclaimOutboxes(now: WallClock.system.milliseconds())
                if due > 0 { logger.notice("outbox rows due again after the start", metadata: ["rows": "\(due)"]) }
            }
            var configured = settings
            if configured.secretKeys == nil {
                configured.secretKeys = try await developmentKeys(database: database, logger: logger)
            }
            let app = try make(settings: configured, database: database, logger: logger) { port in
                logStartup(settings: settings, port: port, logger: logger)
            }
            try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
            logger.notice("stopped")
        } catch {
            try? await database.close()
            throw error
        }
        try await database.close()
    }

    /// The key of a server started without `DEEPLINKS_SECRET_KEYS`: created once, kept in the database.
    /// Good enough to try the server; in production, set the keys so a database copy holds no key.
    static func developmentKeys(database: Database, logger: Logger) async throws -> SecretKeys {
        // Several servers starting at once on an empty database: the first insert wins, every server reads it.
        let (value, inserted) = try await ServerSettingsStore(database: database).value(
            of: "development_secret_key",
            settingIfAbsent: SecretKeys.random().serialized
        )
        if inserted {
            logger.warning(
                "DEEPLINKS_SECRET_KEYS is not set: using a development key stored in the database; set it in production"
            )
        }
        return try SecretKeys(parsing: value)
    }
}
