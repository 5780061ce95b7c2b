import AsyncKit
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import SQLiteNIO

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
            let storage = Self.isStorageFailure(error)
            logger.warning(
                storage ? "storage unavailable" : "request failed",
                metadata: ["path": "\(context.endpointPath ?? "unmatched")", "reason": "\(Database.reason(error))"]
            )
            throw storage
                ? APIError(status: .serviceUnavailable, code: "storage_unavailable", headers: [.retryAfter: "5"])
                : APIError(status: .internalServerError, code: "internal_error")
        }
    }

    static func isStorageFailure(_ error: any Error) -> Bool {
        error is PSQLError || error is SQLiteError || error is ConnectionPoolError
            || error is ConnectionPoolTimeoutError || error is NIOConnectionError || error is ChannelError
            || error is IOError || error is DatabaseError || error is PostgresDecodingError
    }
}

/// `Strict-Transport-Security` on every answer: the server's public names are HTTPS (association files and
/// universal links require it), and a browser that saw this header never tries them over plain HTTP again.
/// Browsers ignore it on plain-HTTP answers (a local development server), so it is always safe to send.
struct StrictTransportSecurityMiddleware<Context: RequestContext>: RouterMiddleware {
    static var value: String { "max-age=31536000" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            var response = try await next(request, context)
            response.headers[.strictTransportSecurity] = Self.value
            return response
        } catch let error as any HTTPResponseError {
            var response = try error.response(from: request, context: context)
            response.headers[.strictTransportSecurity] = Self.value
            return response
        }
    }
}
