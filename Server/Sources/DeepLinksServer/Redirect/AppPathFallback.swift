import AppSiteAssociation
import DeepLinks
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A path of the app's own (a route its manifest takes as a universal link, `/post/10`) opened without the app:
/// iOS hands the link to the app when it is installed; otherwise Safari, a desktop browser or a preview fetcher
/// asks this server. The app's website gets the path and query (`webURL`), or, without one, a page offers the
/// App Store and the Smart App Banner (whose Open hands the app the same URL). Nothing is a bare 404.
struct AppPathFallback: Sendable {
    let policy: LinkPolicy
    /// Each app with a manifest, and its table over the app's domains.
    let tables: [(app: AppConfiguration, table: RouteTable<ManifestDestination>)]

    /// Universal-link health: a request from iOS here is a universal link that fell through.
    let health: UniversalLinkHealth?

    init(policy: LinkPolicy, health: UniversalLinkHealth? = nil) throws {
        self.policy = policy
        self.health = health
        tables = try policy.apps.compactMap { app in try app.routeTable().map { (app, $0) } }
    }

    /// The answer for a path no route took: the app's fallback when an app claims it, else the 404 page.
    func notFound(_ request: Request, peer: SocketAddress?) -> Response {
        response(for: request, peer: peer) ?? SmartLinkPages.html(.notFound, SmartLinkPages.notFound)
    }

    /// The answer for a GET or HEAD of a path no other route took; nil when no app claims it.
    private func response(for request: Request, peer: SocketAddress?) -> Response? {
        guard request.method == .get || request.method == .head else { return nil }
        // The request's host when it is an app's domain; else (loopback, a proxy's name) the primary app's.
        let host =
            request.requestedHost.flatMap { host in policy.apps.contains { $0.domains.contains(host) } ? host : nil }
            ?? policy.primary.domains[0]
        let query = request.uri.query.map { $0.isEmpty ? "" : "?" + $0 } ?? ""
        let url = "https://\(host)\(request.uri.path)\(query)"
        for (app, table) in tables where app.domains.contains(host) {
            // A route of the app's that the association file gives it (an excluded path stays the web's).
            guard case .success = table.match(url), policy.opens(app, url).verdict == .match else { continue }
            let platform = ClientPlatform(
                agent: AgentText(request.headers[.userAgent]),
                platformHint: request.headers[LinkRedirect.platformHint]
            )
            if request.method == .get, !LinkRedirect.optsOut(request) {
                health?.record(request, platform: platform, peer: { peer })
            }
            if let web = app.webURL {
                return Response(
                    status: .found,
                    headers: [.location: web + request.uri.path + query, .cacheControl: "no-store"]
                )
            }
            return SmartLinkPages.html(.ok, SmartLinkPages.appPath(app, url: url, platform: platform))
        }
        return nil
    }
}
