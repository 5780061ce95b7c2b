import Hummingbird
import Prometheus
import Synchronization

/// Counts every request by its route pattern (never the raw path, so labels stay bounded).
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context, response.status.code, start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(request, context, status, start)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, _ status: Int, _ start: ContinuousClock.Instant) {
        metrics.recordRequest(
            method: request.method,
            route: context.endpointPath ?? "unmatched",
            status: status,
            since: start
        )
    }
}
