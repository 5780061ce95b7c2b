import Foundation
import Hummingbird
import Prometheus

/// `GET /healthz` (JSON, with a database check) and `GET /metrics` (Prometheus text).
struct OperationsRoutes: Sendable {
    let database: Database
    let metrics: ServerMetrics

    func register(on router: Router<AppRequestContext>) {
        router.get("/healthz") { _, _ -> Response in
            let report = await HealthReport.check(database)
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
        router.get("/metrics") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: metrics.exposition()))
            )
        }
    }
}
