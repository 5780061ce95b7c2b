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
                forHosts: files.linkDomainAssociation.map { (Set($0.hosts), $0.file) }
            )
        }
        if let assetLinks = files.assetLinks {
            serve(assetLinks, at: "/.well-known/assetlinks.json", on: router)
        }
    }

    /// Whether the client's copy is current: If-None-Match compared weakly (a `W/` tag names the same bytes, as
    /// RFC 9110 says for this header), else If-Modified-Since.
    static func isNotModified(_ headers: HTTPFields, _ file: AssociationFiles.File) -> Bool {
        if let tags = headers[.ifNoneMatch] {
            return tags.split(separator: ",").contains { tag in
                let trimmed = tag.trimmingCharacters(in: .whitespaces)
                return trimmed == "*" || (trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed) == file.etag
            }
        }
        if let since = headers[.ifModifiedSince].flatMap(HTTPDate.parse) {
            return file.lastModified <= since
        }
        return false
    }

    /// - Parameter forHosts: another file for some hosts (the link domains), chosen by the request's host.
    private func serve(
        _ main: AssociationFiles.File,
        at path: RouterPath,
        on router: Router<AppRequestContext>,
        forHosts other: (hosts: Set<String>, file: AssociationFiles.File)? = nil
    ) {
        for method in [HTTPRequest.Method.get, .head] {
            router.on(path, method: method) { request, _ -> Response in
                let file = other.flatMap { $0.hosts.contains(request.requestedHost ?? "") ? $0.file : nil } ?? main
                var headers: HTTPFields = [
                    .contentType: "application/json",
                    .eTag: file.etag,
                    .lastModified: file.lastModifiedHeader,
                    .cacheControl: "public, max-age=3600",
                ]
                if Self.isNotModified(request.headers, file) {
                    return Response(status: .notModified, headers: headers)
                }
                headers[.contentLength] = String(file.body.count)
                let body = method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: file.body))
                return Response(status: .ok, headers: headers, body: body)
            }
        }
    }
}
