import DeepLinksStorage
import Hummingbird
import Logging

/// Turns an error no route answered for into a JSON answer: a storage failure (the database unreachable,
/// refusing, timing out, its disk full) is `503 {"error": "storage_unavailable"}` with `Retry-After`, anything
/// else `500 {"error": "internal_error"}`. Neither carries the driver's text (which may name the database's
/// address or a bound value); the log line has the reason.
struct StorageFailureMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            throw error
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
