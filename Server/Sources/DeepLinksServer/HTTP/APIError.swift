import AppSiteAssociation
import Foundation
import Hummingbird
import NIOFoundationCompat

/// An API failure as a JSON body, `{"error": CODE, ...}`, with a status and optional headers.
/// Its codes are stable and never carry a submitted value back.
struct APIError: HTTPResponseError {
    let status: HTTPResponse.Status
    let code: String
    var fields: [String: JSONValue] = [:]
    var headers: HTTPFields = [:]

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var body = fields
        body["error"] = .string(code)
        return JSONResponse.make(status, body, headers: headers)
    }

    static func malformed(_ reason: String) -> APIError {
        APIError(status: .badRequest, code: "malformed_request", fields: ["reason": .string(reason)])
    }

    static func tooManyRequests(retryAfter seconds: Int) -> APIError {
        APIError(status: .tooManyRequests, code: "too_many_requests", headers: [.retryAfter: String(max(1, seconds))])
    }

    static let unauthorized = APIError(
        status: .unauthorized,
        code: "unauthorized",
        headers: [.wwwAuthenticate: "Bearer"]
    )
}
