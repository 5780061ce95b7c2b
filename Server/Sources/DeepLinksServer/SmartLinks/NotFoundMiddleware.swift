import AppSiteAssociation
import DeepLinks
import DeepLinksJSON
import Foundation
import HTTPTypes
import Hummingbird

/// Every 404 has a body: JSON under `/v1/`, otherwise the app's path fallback or an HTML page.
struct NotFoundMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let fallback: AppPathFallback

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            if request.uri.path.hasPrefix("/v1/") {
                return JSONResponse.make(.notFound, ["error": .string(APIError.Code.notFound.rawValue)])
            }
            return fallback.notFound(request)
        }
    }
}
