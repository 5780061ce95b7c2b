import AppSiteAssociation
import DeepLinksJSON
import Foundation
import Hummingbird
import NIOFoundationCompat

/// An API failure as a JSON body, `{"error": CODE, ...}`, with a status and optional headers.
/// Its codes are stable and never carry a submitted value back.
struct APIError: HTTPResponseError {
    let status: HTTPResponse.Status
    let code: Code
    var fields: [String: JSONValue] = [:]
    var headers: HTTPFields = [:]

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var body = fields
        body["error"] = .string(code.rawValue)
        return JSONResponse.error(status, body, headers: headers)
    }

    static func malformed(_ reason: String) -> APIError {
        APIError(status: .badRequest, code: .malformedRequest, fields: ["reason": .string(reason)])
    }

    /// 400 `invalid_parameter`: the query parameter `name`, and what it must be (never the value sent).
    static func invalidParameter(_ name: String, _ reason: String) -> APIError {
        APIError(
            status: .badRequest,
            code: .invalidParameter,
            fields: ["parameter": .string(name), "reason": .string(reason)]
        )
    }

    static func tooManyRequests(retryAfter seconds: Int) -> APIError {
        APIError(status: .tooManyRequests, code: .tooManyRequests, headers: [.retryAfter: String(max(1, seconds))])
    }

    static let unauthorized = APIError(
        status: .unauthorized,
        code: .unauthorized,
        headers: [.wwwAuthenticate: "Bearer"]
    )
}

extension APIError {
    /// Every code an API error carries, stable; `openapi-api.json` lists each (`OpenAPITests` checks it).
    enum Code: String, CaseIterable, Sendable {
        case malformedRequest = "malformed_request"
        case unsupportedMediaType = "unsupported_media_type"
        case tooManyRequests = "too_many_requests"
        case unauthorized = "unauthorized"
        case forbidden = "forbidden"
        case notFound = "not_found"
        case methodNotAllowed = "method_not_allowed"
        case storageUnavailable = "storage_unavailable"
        case internalError = "internal_error"
        case invalidOrExpiredToken = "invalid_or_expired_token"
        case weakPassword = "weak_password"
        case addressUndeliverable = "address_undeliverable"
        case invalidCredentials = "invalid_credentials"
        case accountsAreExternal = "accounts_are_external"
        case accountsBackendUnavailable = "accounts_backend_unavailable"
        case resetInProgress = "reset_in_progress"
        case linksAPIDisabled = "links_api_disabled"
        case keysAPIDisabled = "keys_api_disabled"
        case resetLinksAPIDisabled = "reset-links_api_disabled"
        case noSuchLink = "no_such_link"
        case invalidLink = "invalid_link"
        case codeTaken = "code_taken"
        case metricsNotAllowed = "metrics_not_allowed"
        case noSuchKey = "no_such_key"
        case linkExpired = "link_expired"
        case invalidParameter = "invalid_parameter"
        case tooLong = "too_long"
        case deferredLinkGone = "deferred_link_gone"
        case busy = "busy"
        case capacityReached = "capacity_reached"
    }
}
