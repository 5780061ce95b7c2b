import AppSiteAssociation
import DeepLinks
import DeepLinksJSON
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// Every 404 has a body: JSON under `/v1/`, otherwise the app's path fallback or an HTML page. A path of the API
/// that exists, asked with a method it does not have, is a 405 with `Allow` (RFC 9110 §15.5.6), not a 404.
struct NotFoundMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let fallback: AppPathFallback
    let methods: RouteMethods

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            if request.uri.path.hasPrefix("/v1/") {
                if let allowed = methods.allowed(request.uri.path), !allowed.contains(request.method.rawValue) {
                    var response = JSONResponse.error(
                        .methodNotAllowed,
                        [
                            "error": .string(APIError.Code.methodNotAllowed.rawValue),
                            "allow": .array(allowed.map(JSONValue.string)),
                        ]
                    )
                    response.headers[.allow] = allowed.joined(separator: ", ")
                    return response
                }
                return JSONResponse.error(.notFound, ["error": .string(APIError.Code.notFound.rawValue)])
            }
            return fallback.notFound(request, peer: context.peer)
        }
    }
}

/// The methods each registered path answers, learnt from the router once every route is registered.
final class RouteMethods: Sendable {
    private let routes = Mutex<[(segments: [Substring], methods: [String])]>([])

    /// Called once the router holds every route.
    func learn(_ registered: [(path: String, method: String)]) {
        var byPath: [String: [String]] = [:]
        for route in registered { byPath[route.path, default: []].append(route.method) }
        routes.withLock { routes in
            routes = byPath.map { path, methods in
                let methods = methods.contains("GET") && !methods.contains("HEAD") ? methods + ["HEAD"] : methods
                return (path.split(separator: "/"), Array(Set(methods)).sorted())
            }
        }
    }

    /// The methods of the registered path `path` reaches, nil when it reaches none. As the router's trie does, a
    /// literal segment wins over a `{parameter}` or `*` (`/v1/links/export` is that path, not `/v1/links/{code}`);
    /// `**` takes the rest.
    func allowed(_ path: String) -> [String]? {
        let asked = path.split(separator: "/")
        var candidates = routes.withLock { $0 }
        for (index, segment) in asked.enumerated() {
            candidates = candidates.filter { route in
                index < route.segments.count || route.segments.last == "**"
            }
            let literal = candidates.filter { index < $0.segments.count && $0.segments[index] == segment }
            candidates =
                literal.isEmpty
                ? candidates.filter { route in
                    guard index < route.segments.count else { return true }
                    let template = route.segments[index]
                    return template == "*" || template == "**" || (template.hasPrefix("{") && template.hasSuffix("}"))
                } : literal
        }
        candidates = candidates.filter { $0.segments.count == asked.count || $0.segments.last == "**" }
        let found = candidates.flatMap(\.methods)
        return found.isEmpty ? nil : Array(Set(found)).sorted()
    }
}
