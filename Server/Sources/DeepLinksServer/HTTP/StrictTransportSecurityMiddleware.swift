import Hummingbird

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
