import DeepLinksJSON
import Foundation
import Hummingbird
import NIOFoundationCompat

/// A JSON response: compact, keys sorted (the same value gives the same bytes), never cached.
enum JSONResponse {
    static func make(_ status: HTTPResponse.Status, _ object: [String: JSONValue], headers: HTTPFields = [:])
        -> Response
    {
        response(status, ByteBuffer(string: JSONValue.object(object).compactJSON), headers: headers)
    }

    /// A Codable document (a stored link), encoded once, in the same form: compact, keys sorted, `/` unescaped.
    static func make(_ status: HTTPResponse.Status, _ document: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return response(status, ByteBuffer(data: try encoder.encode(document)))
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
