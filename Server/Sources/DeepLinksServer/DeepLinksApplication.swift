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
    ///   - additionalRoutes: the embedding backend's own routes, added to the same router (after this server's,
    ///     behind the same middleware).
    public static func make(
        settings: ServerSettings,
        database: Database,
        metrics: ServerMetrics = ServerMetrics(),
        clock: WallClock = .system,
        mailTransport: (any MailTransport)? = nil,
        logger: Logger,
        onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in },
        additionalRoutes: (Router<AppRequestContext>) throws -> Void = { _ in }
    ) throws -> App {
        let (router, jobs, smartLinks) = try routes(
            settings: settings,
            database: database,
            metrics: metrics,
            clock: clock,
            mailTransport: mailTransport,
            logger: logger
        )
        try additionalRoutes(router)
        let connections = ConnectionLimiter(perPeer: settings.maxConnectionsPerClient, proxies: settings.trustedProxies)
        let (bodyWindow, slowBodies) = (settings.bodyTimeoutSeconds, metrics.slowBodiesClosed)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                connections.handler(), BodyDeadline(windowSeconds: bodyWindow) { slowBodies.increment() },
            ],
            idleTimeout: .seconds(Int64(settings.idleTimeoutSeconds))
        )
        // What the router's middleware adds to the redirect: the HSTS header, and the request in the metrics.
        let redirect: CachedRedirects.Answer = { head, peer in
            let start = ContinuousClock.now
            guard var response = smartLinks.redirect.cachedRedirect(head, peer: peer) else { return nil }
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
                // The day's visitor salt, before the first click (the click flush keeps it, and the next day's, fresh).
                try? await smartLinks.redirect.clicks.analytics?.refreshSalts()
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
}
