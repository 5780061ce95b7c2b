import Hummingbird
import Logging
import NIOCore
import UnixSignals

/// Builds the server: routes, middleware and services over an open ``Database``.
///
/// The caller opens the database, runs the migrations and closes it after the application returns, so
/// tests can run the same application over SQLite or PostgreSQL, in process or on a live socket.
public enum DeepLinksApplication {
    public typealias App = Application<RouterResponder<AppRequestContext>>

    /// - Throws: ``AssociationFiles/InvalidFile`` when the configuration yields an association file iOS or
    ///   Android would misread.
    public static func make(
        settings: ServerSettings,
        database: Database,
        metrics: ServerMetrics = ServerMetrics(),
        logger: Logger,
        onServerRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) throws -> App {
        let files = try AssociationFiles(app: settings.app)
        let router = Router(context: AppRequestContext.self)
        router.middlewares.add(RequestMetricsMiddleware(metrics: metrics))
        OperationsRoutes(database: database, metrics: metrics).register(on: router)
        AssociationRoutes(files: files).register(on: router)

        return Application(
            router: router,
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "deeplinks"),
            onServerRunning: { channel in
                await onServerRunning(channel.localAddress?.port ?? settings.port)
            },
            logger: logger
        )
    }

    /// The first lines a person sees: where the server listens and what to try.
    public static func logStartup(settings: ServerSettings, port: Int, logger: Logger) {
        let base = "http://\(settings.host.contains(":") ? "[\(settings.host)]" : settings.host):\(port)"
        logger.notice("deeplinks \(DeepLinksServerVersion.current) listening on \(base)")
        logger.notice("try: curl \(base)/healthz   (metrics: \(base)/metrics, association file: \(base)/.well-known/apple-app-site-association)")
        logger.info(
            "storage and mail",
            metadata: [
                "database": "\(settings.database.redacted)",
                "mail": "\(settings.mail)",
                "app": "\(settings.app.appID)",
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
            let app = try make(settings: settings, database: database, logger: logger) { port in
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
}
