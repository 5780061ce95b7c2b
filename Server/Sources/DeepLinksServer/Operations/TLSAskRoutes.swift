import Foundation
import Hummingbird
import NIOCore

/// `GET /tls/ask?domain=NAME`: the `ask` endpoint of a TLS proxy that gets certificates on demand (Caddy's
/// `on_demand_tls`): 200 for a host this configuration serves (an app's domain, the link domain, an earlier link
/// domain, the landing domain), 404 for any other name, so a certificate is issued only for a name the configuration
/// names. Answered to a TCP peer on loopback or among the trusted proxies only (the proxy asks from beside the
/// server); anyone else gets 404 as for a path that does not exist.
struct TLSAskRoutes: Sendable {
    let hosts: Set<String>
    let proxies: TrustedProxies

    init(settings: ServerSettings, proxies: TrustedProxies) {
        let links = settings.smartLinks
        let names =
            settings.app.apps.flatMap(\.domains) + [links.linkDomain, links.landingDomain].compactMap { $0 }
            + links.otherLinkDomains
        hosts = Set(names.map(Self.normalized))
        self.proxies = proxies
    }

    /// A host name as compared: lower-cased, without a trailing dot.
    static func normalized(_ name: some StringProtocol) -> String {
        let lowered = name.lowercased()
        return lowered.hasSuffix(".") ? String(lowered.dropLast()) : lowered
    }

    func register(on router: Router<AppRequestContext>) {
        router.get("/tls/ask") { request, context -> Response in
            guard let peer = context.peer, IPAddress(peer)?.isLoopback == true || proxies.trusts(peer: peer) else {
                throw HTTPError(.notFound)
            }
            guard let domain = request.uri.queryParameters["domain"], !domain.isEmpty, domain.count <= 253 else {
                return Response(status: .badRequest, headers: [.cacheControl: "no-store"])
            }
            return Response(
                status: hosts.contains(Self.normalized(domain)) ? .ok : .notFound,
                headers: [.cacheControl: "no-store"]
            )
        }
    }

}
