import DeepLinksMail
import DeepLinksSecrets
import DeepLinksStorage
import DeepLinksSupport
import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import Prometheus
import UnixSignals

/// The wiring: every service over the database, the routes that use them, and the background jobs they leave work for.
extension DeepLinksApplication {
    /// The router with every route, and the background jobs the routes leave work for.
    static func routes(
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
        let hashing = InFlightGate(limit: 16)
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
        let analytics = try Self.analytics(settings, database: database, clock: clock)
        let clicks = ClickCounter(database: database, metrics: metrics, events: webhooks?.events, analytics: analytics)
        var links = LinkStore(database: database, clock: clock, cacheBytes: settings.linkCacheBytes)
        links.events = webhooks?.events
        let policy = try LinkPolicy(settings: settings.smartLinks, app: app, association: files)
        // Universal-link health goes with the analytics: off with them.
        let health =
            settings.analytics
            ? UniversalLinkHealth(
                policy: policy,
                database: database,
                proxies: settings.trustedProxies,
                metrics: metrics,
                clock: clock
            ) : nil
        let watch = health.flatMap { health in
            settings.appleCDNCheckMinutes > 0
                ? AppleCDNWatch(
                    health: health,
                    files: files,
                    cdnURL: settings.appleCDNURL,
                    everyMinutes: settings.appleCDNCheckMinutes,
                    clock: clock,
                    events: webhooks?.events,
                    logger: logger
                ) : nil
        }
        let jobs = BackgroundJobs(
            BackgroundJobs.all(
                resets: resets,
                mail: sender,
                webhooks: webhooks?.sender,
                links: links,
                clicks: clicks,
                health: health.map(UniversalLinkHealthJob.init),
                cdnWatch: watch,
                pruning: Pruning(
                    database: database,
                    clock: clock,
                    clickRetentionDays: settings.clickRetentionDays,
                    hourlyRetentionDays: settings.hourlyRetentionDays
                )
            ) + [DescriptorWatch(metrics: metrics, logger: logger)],
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
        let fallback = try AppPathFallback(policy: policy, health: health)
        let router = Router(context: AppRequestContext.self)
        router.middlewares.add(RequestMetricsMiddleware(metrics: metrics))
        router.middlewares.add(StrictTransportSecurityMiddleware())
        router.middlewares.add(StorageFailureMiddleware(logger: logger, abandonedBodies: metrics.abandonedBodies))
        let routeMethods = RouteMethods()
        router.middlewares.add(NotFoundMiddleware(fallback: fallback, methods: routeMethods))
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
        TLSAskRoutes(settings: settings, proxies: settings.trustedProxies).register(on: router)
        func ceiling(_ kind: WriteCeiling.Kind) -> WriteCeiling {
            WriteCeiling(kind, database: database, perHour: settings.anonymousWritesPerHour, metrics: metrics)
        }
        if backend == nil {
            AccountRoutes(
                accounts: accounts,
                proxies: settings.trustedProxies,
                settings: resetSettings,
                ceiling: ceiling(.signUp)
            ).register(on: router)
        } else {
            AccountRoutes.registerExternal(on: router)
        }
        WebAssets.register(on: router)
        if let resets {
            let page = ResetLandingPage(
                app: app,
                links: resets.links,
                minimumLength: resetSettings.passwordPolicy.minimumLength,
                lifetimeMinutes: resetSettings.tokenLifetimeSeconds / 60,
                health: health
            )
            page.register(on: router)
            PasswordResetRoutes(
                service: resets,
                proxies: settings.trustedProxies,
                page: page,
                access: access,
                ceiling: ceiling(.resetRequest)
            ).register(on: router)
        }
        let transfer = LinkTransfer(store: links, policy: policy)
        LinksAPIController(store: links, policy: policy, transfer: transfer, access: access).register(on: router)
        AppEventRoutes(store: links, policy: policy, proxies: settings.trustedProxies, clock: clock)
            .register(on: router)
        let smartLinks = SmartLinkRoutes(
            redirect: LinkRedirect(
                store: links,
                clicks: clicks,
                policy: policy,
                fallback: fallback,
                proxies: settings.trustedProxies,
                clock: clock,
                unknownCodes: RateLimiter(
                    capacity: settings.smartLinks.unknownCodeBurst,
                    perMinute: settings.smartLinks.unknownCodesPerMinute
                ),
                health: health
            ),
            deferred: DeferredLinks(database: database, keys: keys, clock: clock, events: webhooks?.events),
            deferredCeiling: ceiling(.deferredLink)
        )
        ConsoleRoutes(
            operators: operators,
            store: links,
            policy: policy,
            transfer: transfer,
            files: files,
            doctor: LinkDoctor(
                settings: settings,
                fetcher: AASAFetcher(timeoutSeconds: 5),
                shortLinks: { [links] code in try await links.find(code) },
                health: database
            ),
            hasher: resetSettings.hasher,
            hashing: hashing,
            proxies: settings.trustedProxies,
            clock: clock
        ).register(on: router)
        KeysAPIController(operators: operators, access: access).register(on: router)
        // Last: `/{code}` takes whatever path the routes above do not.
        smartLinks.register(on: router)
        try OpenAPIRoutes.register(on: router)
        routeMethods.learn(router.routes.map { ($0.path.description, $0.method.rawValue) })
        return (router, jobs, smartLinks)
    }

    /// The click analytics `settings` ask for: nil when off. An MMDB file named by `--geoip-database` is read now
    /// (a file that is no MMDB stops the start with the reason); Debian's `tor-geoipdb` in the background, at the
    /// first click that asks for a place.
    static func analytics(_ settings: ServerSettings, database: Database, clock: WallClock) throws
        -> ClickAnalytics?
    {
        guard settings.analytics else { return nil }
        let source = settings.geoipDatabase
        if let source, source != "none" {
            do {
                try Places.load(source)
            } catch {
                throw ConfigurationError(setting: "geoip database", reason: "\(error)")
            }
        }
        return ClickAnalytics(
            database: database,
            proxies: settings.trustedProxies,
            countryHeader: settings.smartLinks.countryHeader.flatMap { HTTPField.Name($0) },
            placeSetting: source,
            clock: clock
        )
    }
}
