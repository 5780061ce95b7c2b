import Foundation
import Hummingbird

/// `GET` and `HEAD` for the association files: `application/json`, an ETag (with 304 on a match),
/// a cache lifetime, and never a redirect (H3).
struct AssociationRoutes: Sendable {
    let files: AssociationFiles

    func register(on router: Router<AppRequestContext>) {
        for path in ["/.well-known/apple-app-site-association", "/apple-app-site-association"] {
            serve(
                files.appleAppSiteAssociation,
                at: RouterPath(path),
                on: router,
                forHost: files.linkDomainAssociation.map { ($0.host, $0.file) }
            )
        }
        if let assetLinks = files.assetLinks {
            serve(assetLinks, at: "/.well-known/assetlinks.json", on: router)
        }
    }

    /// - Parameter forHost: another file for one host (the link domain), chosen by the request's host.
    private func serve(
        _ main: AssociationFiles.File,
        at path: RouterPath,
        on router: Router<AppRequestContext>,
        forHost other: (host: String, file: AssociationFiles.File)? = nil
    ) {
        for method in [HTTPRequest.Method.get, .head] {
            router.on(path, method: method) { request, _ -> Response in
                let file = other.flatMap { $0.host == request.requestedHost ? $0.file : nil } ?? main
                var headers: HTTPFields = [
                    .contentType: "application/json",
                    .eTag: file.etag,
                    .cacheControl: "public, max-age=3600",
                ]
                if let tags = request.headers[.ifNoneMatch],
                    tags.split(separator: ",").contains(where: {
                        $0.trimmingCharacters(in: .whitespaces) == file.etag || $0 == "*"
                    })
                {
                    return Response(status: .notModified, headers: headers)
                }
                headers[.contentLength] = String(file.body.count)
                let body = method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: file.body))
                return Response(status: .ok, headers: headers, body: body)
            }
        }
    }
}
