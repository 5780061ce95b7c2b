import AppSiteAssociation
import DeepLinksJSON
import Hummingbird

/// Who may call the API, sent as `Authorization: Bearer KEY`: a scoped key (`dlk_...`, made in the console or
/// with `deeplinks keys create`) with its role, or the admin key of the configuration (`DEEPLINKS_ADMIN_KEY`),
/// which stays an admin's.
struct Access: Sendable {
    let settings: SmartLinkSettings
    let operators: Operators

    /// Throws 401 without a live key, 403 when the key's role is below `role`, and 503 when the request
    /// carries no scoped key and no admin key is configured (the API is off).
    /// Returns who the scoped key speaks for; nil for the configured admin key.
    @discardableResult
    func require(_ role: OperatorRole, _ request: Request, api: API) async throws -> Operators.KeyHolder? {
        let key = request.bearerToken
        if let key, key.hasPrefix(Operators.keyPrefix) {
            guard let granted = try await operators.holder(ofKey: key) else { throw APIError.unauthorized }
            guard granted.role >= role else { throw Self.forbidden(has: granted.role, needs: role) }
            return granted
        }
        guard settings.adminKeyDigest != nil else {
            throw APIError(
                status: .serviceUnavailable,
                code: api.disabled,
                fields: [
                    "reason": .string(
                        "set DEEPLINKS_ADMIN_KEY, or create a key (deeplinks keys create, or the console), to enable the \(api.rawValue) API"
                    )
                ]
            )
        }
        guard let key, settings.isAdmin(key) else { throw APIError.unauthorized }
        return nil
    }

    /// The APIs a key opens, each with the code it answers while no key is configured.
    enum API: String, Sendable {
        case links, keys
        case resetLinks = "reset-links"

        var disabled: APIError.Code {
            switch self {
            case .links: .linksAPIDisabled
            case .keys: .keysAPIDisabled
            case .resetLinks: .resetLinksAPIDisabled
            }
        }
    }

    static func forbidden(has: OperatorRole, needs: OperatorRole) -> APIError {
        APIError(
            status: .forbidden,
            code: .forbidden,
            fields: [
                "reason": .string(
                    "the role \(has.rawValue) does not allow this: \(needs.grants) needs \(needs.rawValue)"
                )
            ]
        )
    }
}
