import DeepLinksMail
import DeepLinksStorage
import DeepLinksSupport
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Prometheus
import UnixSignals

/// Builds the server: routes, middleware and services over an open ``Database``.
///
/// The caller opens the database, runs the migrations and closes it after the application returns, so
/// tests can run the same application over SQLite or PostgreSQL, in process or on a live socket.
public enum DeepLinksApplication {
    public typealias App = Application<RouterResponder<AppRequestContext>>

    static let serverName = "deeplinks"

    /// - Throws: ``AssociationFiles/InvalidFile`` when the configuration yields an association file iOS or
    ///   Android would misread; ``ConfigurationError`` for a network list that does not parse.
    /// - Parameters:
    ///   - clock: the wall clock of token expiry, throttles and mail backoff; tests move it.
    ///   - mailTransport: where mail goes; by default the one `settings.mail` names.
    public static func make(
        settings: ServerSettings,
        database: Database,
        metrics: ServerMetrics = ServerMetrics(),
        clock: WallClock = .system,
        mailTransport: (any MailTransport)? = nil,
        logger: Logger,
        onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) throws -> App {
        let (router, jobs, smartLinks) = try routes(
            settings: settings,
            database: database,
            metrics: metrics,
            clock: clock,
            mailTransport: mailTransport,
            logger: logger
        )
        let connections = ConnectionLimiter(perPeer: settings.maxConnectionsPerClient, proxies: settings.trustedProxies)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [connections.handler()],
            idleTimeout: .seconds(Int64(settings.idleTimeoutSeconds))
        )
        // What the router's middleware adds to the redirect: the HSTS header, and the request in the metrics.
        let redirect: CachedRedirects.Answer = { head in
            let start = ContinuousClock.now
            guard var response = smartLinks.cachedRedirect(head) else { return nil }
            response.headerFields[.strictTransportSecurity] = StrictTransportSecurityMiddleware<AppRequestContext>.value
            metrics.recordRequest(method: head.method, route: "/{code}", status: response.status.code, since: start)
            metrics.cachedRedirects.increment()
            return response
        }
        return Application(
            router: router,
            server: HTTPServerBuilder { responder in
                HTTP1WithCachedRedirects(channel: HTTP1Channel(responder: responder, configuration: http1)) {
                    CachedRedirects(serverName: serverName, answer: redirect)
                }
            },
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: serverName),
            services: [jobs],
            onServerRunning: { channel in
                await onServerRunning(channel.localAddress?.port ?? settings.port)
            },
            logger: logger
        )
    }

    /// The routes `settings` gives, as `METHOD /path/{parameter}` (what `/openapi.json` must describe).
    public static func routeList(settings: ServerSettings, database: Database, logger: Logger) throws -> [String] {
        try routes(settings: settings, database: database, clock: .system, mailTransport: nil, logger: logger).router
            .routes.map { "\($0.method.rawValue) \(OpenAPIRoutes.openAPIPath($0.path.description).0)" }
    }

    /// The webhook events and their sender, when endpoints are configured: each endpoint https (or http to
    /// loopback), and the hook secrets to sign with.
    static func webhooks(_ settings: ServerSettings, database: Database, clock: WallClock, logger: Logger) throws
        -> (events: WebhookEvents, sender: WebhookSender)?
    {
        guard !settings.webhooks.isEmpty else { return nil }
        for endpoint in settings.webhooks {
            if let problem = ExternalAccounts.backendProblem(endpoint, carrying: "events name links and their clicks") {
                throw ConfigurationError(setting: "webhook \(WebhookSender.redacted(endpoint))", reason: problem)
            }
        }
        guard let secrets = settings.hookSecrets else {
            throw ConfigurationError(
                setting: "DEEPLINKS_HOOK_SECRETS",
                reason: "webhooks are signed under the hook secrets (VERSION:BASE64, 32 bytes or more)"
            )
        }
        return (
            WebhookEvents(endpoints: settings.webhooks, clock: clock),
            WebhookSender(database: database, secrets: secrets, clock: clock, logger: logger)
        )
    }

    /// The router with every route, and the background jobs the routes leave work for.
    private static func routes(
        settings: ServerSettings,
        database: Database,
        metrics: ServerMetrics = ServerMetrics(),
        clock: WallClock,
        mailTransport: (any MailTransport)?,
        logger: Logger
    ) throws -> (router: Router<AppRequestContext>, jobs: BackgroundJobs, smartLinks: SmartLinkRoutes) {
        let files = try AssociationFiles(app: settings.app, links: settings.smartLinks)
        let keys = settings.secretKeys ?? SecretKeys.random()
        var resetSettings = try settings.passwordReset.validated()
        // The app's name makes a password guessable in context (C3).
        resetSettings.passwordPolicy.contextWords.append(settings.app.displayName)
        let app = settings.app
        let host = app.domains[0]
        let outbox = MailOutbox(keys: keys, clock: clock, messageDomain: host)
        let from = settings.from
        let sender = MailSender(
            database: database,
            outbox: outbox,
            transport: mailTransport
                ?? settings.mail.transport(heloName: host, envelopeSender: MailSender.address(in: from)),
            sender: from,
            logger: logger,
            metrics: metrics,
            signer: settings.dkim
        )
        let trigger = BackgroundJobs.Trigger()
        let hashing = HashingGate(limit: 16)
        let backend = try app.externalAccounts.map { accounts in
            guard let secrets = settings.hookSecrets else {
                throw ConfigurationError(
                    setting: "DEEPLINKS_HOOK_SECRETS",
                    reason:
                        "external accounts need the secrets their hooks are signed under (VERSION:BASE64, 32 bytes or more)"
                )
            }
            return AccountsBackend(accounts: accounts, secrets: secrets)
        }
        // The reset journey runs when the configuration names the route of the app's reset screen.
        let resets = try app.passwordReset.map { reset in
            PasswordResetService(
                database: database,
                keys: keys,
                clock: clock,
                settings: resetSettings,
                outbox: outbox,
                links: try ResetLinks(app: app, reset: reset),
                appName: app.displayName,
                wake: trigger.wake,
                logger: logger,
                metrics: metrics,
                hashing: hashing,
                backend: backend
            )
        }
        if resets == nil { logger.notice("password reset: off (the app configuration names no passwordReset route)") }
        let webhooks = try Self.webhooks(settings, database: database, clock: clock, logger: logger)
        let clicks = ClickCounter(database: database, metrics: metrics, events: webhooks?.events)
        var links = LinkStore(database: database, clock: clock, cacheBytes: settings.linkCacheBytes)
        links.events = webhooks?.events
        let jobs = BackgroundJobs(
            (resets.map { [.init(name: "password-reset requests", run: $0.processRequests)] } ?? [])
                + (webhooks.map { [.init(name: "webhooks", run: $0.sender.drain)] } ?? []) + [
                    .init(name: "link changes", run: links.syncChanges),
                    .init(name: "mail", run: sender.drain),
                    .init(name: "click counts", run: { try await clicks.flushIfDue() }, atShutdown: clicks.flush),
                    .init(name: "pruning", run: Pruning(database: database, clock: clock).runIfDue),
                ],
            trigger: trigger,
            logger: logger
        )
        var accounts = AccountService(
            database: database,
            keys: keys,
            clock: clock,
            policy: resetSettings.passwordPolicy,
            hasher: resetSettings.hasher,
            hashing: hashing,
            outbox: outbox,
            appName: app.displayName,
            resetPage: resets?.links.page,
            wake: trigger.wake
        )
        if let smtp = sender.transport as? SMTPTransport { accounts.deliversUTF8 = { await smtp.supportsSMTPUTF8() } }

        let operators = Operators(database: database, clock: clock)
        let access = Access(settings: settings.smartLinks, operators: operators)
        let policy = try LinkPolicy(settings: settings.smartLinks, app: app, association: files)
        let fallback = try AppPathFallback(policy: policy)
        let router = Router(context: AppRequestContext.self)
        router.middlewares.add(RequestMetricsMiddleware(metrics: metrics))
        router.middlewares.add(StrictTransportSecurityMiddleware())
        router.middlewares.add(StorageFailureMiddleware(logger: logger))
        router.middlewares.add(NotFoundMiddleware(fallback: fallback))
        OperationsRoutes(
            database: database,
            metrics: metrics,
            linkCache: links.cache,
            mailBudgetPerHour: resetSettings.mailBudgetPerHour,
            clock: clock,
            logger: logger,
            metricsReaders: try settings.metricsAllowedFrom.map { try TrustedProxies(["127.0.0.0/8", "::1"] + $0) },
            proxies: settings.trustedProxies
        ).register(on: router)
        AssociationRoutes(files: files).register(on: router)
        if backend == nil {
            AccountRoutes(accounts: accounts, proxies: settings.trustedProxies, settings: resetSettings).register(
                on: router
            )
        } else {
            AccountRoutes.registerExternal(on: router)
        }
        WebAssets.register(on: router)
        if let resets {
            let page = ResetLandingPage(
                app: app,
                links: resets.links,
                minimumLength: resetSettings.passwordPolicy.minimumLength,
                lifetimeMinutes: resetSettings.tokenLifetimeSeconds / 60
            )
            page.register(on: router)
            PasswordResetRoutes(
                service: resets,
                proxies: settings.trustedProxies,
                page: page,
                access: access
            ).register(on: router)
        }
        let smartLinks = SmartLinkRoutes(
            store: links,
            access: access,
            clicks: clicks,
            policy: policy,
            fallback: fallback,
            deferred: DeferredLinks(database: database, keys: keys, clock: clock, events: webhooks?.events),
            proxies: settings.trustedProxies,
            clock: clock,
            unknownCodes: RateLimiter(
                capacity: settings.smartLinks.unknownCodeBurst,
                perMinute: settings.smartLinks.unknownCodesPerMinute
            )
        )
        ConsoleRoutes(
            operators: operators,
            access: access,
            links: smartLinks,
            files: files,
            doctor: LinkDoctor(
                settings: settings,
                fetcher: AASAFetcher(timeoutSeconds: 5),
                shortLinks: { [links] code in try await links.find(code) }
            ),
            hasher: resetSettings.hasher,
            hashing: hashing,
            proxies: settings.trustedProxies,
            clock: clock
        ).register(on: router)
        // Last: `/{code}` takes whatever path the routes above do not.
        smartLinks.register(on: router)
        try OpenAPIRoutes.register(on: router)
        return (router, jobs, smartLinks)
    }

    /// The first lines a person sees: where the server listens and what to try.
    public static func logStartup(settings: ServerSettings, port: Int, logger: Logger) {
        let base = "http://\(settings.host.contains(":") ? "[\(settings.host)]" : settings.host):\(port)"
        logger.notice("deeplinks \(DeepLinksServerVersion.current) listening on \(base)")
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
}

extension DeepLinksApplication {
    /// `deeplinks serve`: opens the database, applies pending migrations, serves until SIGINT or SIGTERM,
    /// lets the requests in flight finish, then closes the database.
    public static func serve(settings: ServerSettings, logger: Logger) async throws {
        let database = try await Database.open(settings.database, logger: logger)
        do {
            try await Migrator(database: database, logger: logger).migrate()
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
