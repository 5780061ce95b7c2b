import DeepLinksJSON
import Foundation
import Hummingbird
import NIOFoundationCompat

/// A JSON response: compact, keys sorted (the same value gives the same bytes), never cached.
enum JSONResponse {
    /// An answer: one of the `Encodable` types the routes declare beside themselves (``AccountRoutes/Email``,
    /// ``LinkTransfer/ImportReport``...), encoded compact, keys sorted, `/` unescaped. The OpenAPI document's
    /// schemas are held to these types (`OpenAPIAnswerTests`).
    static func make(_ status: HTTPResponse.Status, _ answer: some Encodable, headers: HTTPFields = [:]) throws
        -> Response
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return response(status, ByteBuffer(data: try encoder.encode(answer)), headers: headers)
    }

    /// An error's envelope (``APIError``): `{"error": CODE, ...}` with the fields its code carries.
    static func error(_ status: HTTPResponse.Status, _ body: [String: JSONValue], headers: HTTPFields = [:])
        -> Response
    {
        response(status, ByteBuffer(string: JSONValue.object(body).compactJSON), headers: headers)
    }

    private static func response(_ status: HTTPResponse.Status, _ body: ByteBuffer, headers: HTTPFields = [:])
        -> Response
    {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }
}
