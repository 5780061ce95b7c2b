import HTTPTypes
import Hummingbird
import NIOCore

extension Response {
    /// An HTML page: `html` as UTF-8 with its length, under one of ``WebSecurityHeaders``' sets; `extra` headers
    /// (`Set-Cookie`, `Retry-After`) are added after them.
    static func html(
        _ status: HTTPResponse.Status,
        _ html: HTML,
        security: WebSecurityHeaders,
        extra: HTTPFields = [:]
    ) -> Response {
        var headers = security.fields
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentLength] = String(html.markup.utf8.count)
        headers.append(contentsOf: extra)
        return Response(
            status: status,
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: html.markup))
        )
    }
}
