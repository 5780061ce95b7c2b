import AppSiteAssociation
import Hummingbird

/// The admin API key (`DEEPLINKS_ADMIN_KEY`), sent as `Authorization: Bearer KEY`: what the links API and
/// the backend's reset-link endpoints require.
enum AdminKey {
    /// Throws 503 when no key is configured (the API is off), 401 when the request does not carry it.
    static func admit(_ request: Request, settings: SmartLinkSettings, api: String) throws {
        guard settings.adminKeyDigest != nil else {
            throw APIError(
                status: .serviceUnavailable,
                code: "\(api)_api_disabled",
                fields: ["reason": .string("set DEEPLINKS_ADMIN_KEY to enable the \(api) API")]
            )
        }
        guard let key = AccountRoutes.bearer(request), settings.isAdmin(key) else { throw APIError.unauthorized }
    }
}
