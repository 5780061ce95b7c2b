import DeepLinks
import DeepLinksSupport
import Foundation

/// The links of a reset message, printed from the configured app's route manifest (``PasswordResetRoute``)
/// with the configured scheme and first domain (never from a request's `Host`): the universal link, token in
/// the fragment, and, when the configuration opts in, the custom-scheme link beside it; every value
/// percent-encoded outside RFC 3986's unreserved set, and parsed back before it is used.
struct ResetLinks: Sendable {
    let table: RouteTable<ManifestDestination>
    let reset: PasswordResetRoute
    let host: String
    let scheme: String

    init(app: AppConfiguration, reset: PasswordResetRoute) throws {
        guard let table = try app.routeTable() else {
            throw ConfigurationError(setting: "passwordReset", reason: "the app names no route manifest")
        }
        self.table = table
        self.reset = reset
        host = app.domains[0]
        scheme = app.customScheme
    }

    /// The web form without a token: where the "not you?" notice sends people.
    var page: String { "https://\(host)\(reset.path)" }

    func universal(token: String, email: String?) throws -> String {
        try table.url(for: destination(reset.route, token: token, email: email), as: .universalLink(host: host))
    }

    /// Nil unless the configuration names a custom-scheme route.
    func customScheme(token: String, email: String?) throws -> String? {
        guard let route = reset.customSchemeRoute else { return nil }
        return try table.url(for: destination(route, token: token, email: email), as: .customScheme(scheme))
    }

    private func destination(_ route: String, token: String, email: String?) -> ManifestDestination {
        var parameters = [reset.tokenParameter: [token]]
        if let name = reset.emailParameter, let email { parameters[name] = [email] }
        return ManifestDestination(route: route, parameters: parameters)
    }
}
