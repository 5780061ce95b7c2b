import DeepLinksJSON
import DeepLinksStorage
import Foundation
import Hummingbird
import Logging
import Prometheus

/// `GET /healthz` (JSON, with a database check) and `GET /metrics` (Prometheus text).
struct OperationsRoutes: Sendable {
    let database: Database
    let metrics: ServerMetrics
    let linkCache: LinkCache
    let mailBudgetPerHour: Int
    let clock: WallClock
    let logger: Logger
    /// Who may read `/metrics` (the client address, through trusted proxies); nil: everyone.
    let metricsReaders: TrustedProxies?
    let proxies: TrustedProxies

    func register(on router: Router<AppRequestContext>) {
        router.get("/healthz") { _, _ -> Response in
            let report = await HealthReport.check(
                database,
                mailBudgetPerHour: mailBudgetPerHour,
                now: clock.milliseconds(),
                logger: logger
            )
            metrics.databaseUp.set(report.isHealthy ? Double(1) : Double(0))

            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let body = try encoder.encode(report)
            return Response(
                status: report.isHealthy ? .ok : .serviceUnavailable,
                headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: body))
            )
        }
        router.get("/metrics") { request, context -> Response in
            // A request with no socket peer comes from inside the process (tests), never from the network.
            if let metricsReaders, let peer = context.peer,
                !metricsReaders.trusts(proxies.clientAddress(peer: peer, headers: request.headers))
            {
                throw APIError(
                    status: .forbidden,
                    code: .metricsNotAllowed,
                    fields: ["reason": .string("/metrics answers loopback and the networks of --metrics-allow")]
                )
            }
            // The queue's gauges are read from the database every server shares, at each scrape.
            if let (outbox, _) = try? await HealthReport.counts(database, now: clock.milliseconds()) {
                metrics.outboxQueued.set(Double(outbox.queued))
                metrics.outboxFailed.set(Double(outbox.failed))
            }
            metrics.linkCacheEntries.set(Double(linkCache.counts.known))
            metrics.linkCacheBytes.set(Double(linkCache.bytes))
            metrics.linkCacheEmptied.set(Double(linkCache.emptied))
            metrics.linkCacheSynced.set(Double(linkCache.lastSync ?? 0) / 1000)
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: metrics.exposition()))
            )
        }
    }
}
