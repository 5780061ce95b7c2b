import DeepLinksStorage
import Hummingbird
import Logging
import NIOHTTP1
import Prometheus

/// Turns an error no route answered for into a JSON answer: a storage failure (the database unreachable,
/// refusing, timing out, its disk full) is `503 {"error": "storage_unavailable"}` with `Retry-After`, anything
/// else `500 {"error": "internal_error"}`. Neither carries the driver's text (which may name the database's
/// address or a bound value); the log line has the reason. A body its client abandoned (the connection closed, or
/// its framing broken, before the body was complete) is the client's doing: counted
/// (`deeplinks_http_abandoned_bodies_total`), never logged, so no client can write log lines as fast as it opens
/// connections; the answer (400) usually has no one left to read it.
struct StorageFailureMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger
    let abandonedBodies: Counter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            throw error
        } catch is HTTPParserError {
            abandonedBodies.increment()
            throw APIError.malformed("the request body ended before its declared length, or was not framed as HTTP")
        } catch {
            let storage = Database.isStorageFailure(error)
            logger.warning(
                storage ? "storage unavailable" : "request failed",
                metadata: ["path": "\(context.endpointPath ?? "unmatched")", "reason": "\(Database.reason(error))"]
            )
            throw storage
                ? APIError(status: .serviceUnavailable, code: .storageUnavailable, headers: [.retryAfter: "5"])
                : APIError(status: .internalServerError, code: .internalError)
        }
    }
}
