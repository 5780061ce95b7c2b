import DeepLinks
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
        guard var manifest = app.routes else {
            throw ConfigurationError(setting: "passwordReset", reason: "the app names no route manifest")
        }
        manifest.schemes = [app.customScheme]
        manifest.hosts = app.domains
        table = try RouteTable(manifest: manifest)
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

/// The reset message and the "your password was changed" notice. Subjects are static; the only
/// user-controlled text (the stored address) is HTML-escaped in the HTML part.
enum ResetMail {
    static func reset(to address: String, universal: String, scheme: String?, appName: String, lifetimeMinutes: Int64)
        -> OutgoingMail
    {
        let schemeText = scheme.map { "\n\nIn the app already? This link opens it directly:\n\($0)" } ?? ""
        let schemeHTML =
            scheme.map {
                "\n<p>In the app already? <a href=\"\(HTML.escape($0))\" clicktracking=\"off\">Open it directly</a>.</p>"
            } ?? ""
        return OutgoingMail(
            to: address,
            subject: "Reset your \(appName) password",
            text: """
                Someone (hopefully you) asked to reset the password of the \(appName) account for \(address).

                Open this link on your phone to choose a new password (it works for \(lifetimeMinutes) minutes, once):
                \(universal)\(schemeText)

                If you did not ask, ignore this message: your password stays as it is.
                """,
            html: """
                <!doctype html><html><body>
                <p>Someone (hopefully you) asked to reset the password of the \(HTML.escape(appName)) account for \(HTML.escape(address)).</p>
                <p><a href="\(HTML.escape(universal))" clicktracking="off">Choose a new password</a> (the link works for \(lifetimeMinutes) minutes, once).</p>\(schemeHTML)
                <p>If you did not ask, ignore this message: your password stays as it is.</p>
                </body></html>
                """
        )
    }

    /// To the owner of an address someone tried to sign up with: sign-up answers as for a new address.
    static func signUpAttempt(to address: String, appName: String, resetPage: String?) -> OutgoingMail {
        let reset = resetPage.map { "If you have forgotten your password, choose a new one: \($0)\n\n" } ?? ""
        let resetHTML =
            resetPage.map {
                "<p>If you have forgotten your password, <a href=\"\(HTML.escape($0))\" clicktracking=\"off\">choose a new one</a>.</p>"
            } ?? ""
        return OutgoingMail(
            to: address,
            subject: "Someone tried to create a \(appName) account with your address",
            text: """
                Someone (hopefully you) tried to create a \(appName) account for \(address), which already has one.

                If it was you, sign in with your password. \(reset)If it was not you, ignore this message: nothing changed.
                """,
            html: """
                <!doctype html><html><body>
                <p>Someone (hopefully you) tried to create a \(HTML.escape(appName)) account for \(HTML.escape(address)), which already has one.</p>
                <p>If it was you, sign in with your password.</p>\(resetHTML)
                <p>If it was not you, ignore this message: nothing changed.</p>
                </body></html>
                """
        )
    }

    static func passwordChanged(to address: String, appName: String, resetPage: String) -> OutgoingMail {
        OutgoingMail(
            to: address,
            subject: "Your \(appName) password was changed",
            text: """
                The password of the \(appName) account for \(address) was just changed, and every session was signed out.

                Wasn't you? Reset it again now and review your account: \(resetPage)
                """,
            html: """
                <!doctype html><html><body>
                <p>The password of the \(HTML.escape(appName)) account for \(HTML.escape(address)) was just changed, and every session was signed out.</p>
                <p>Wasn't you? <a href="\(HTML.escape(resetPage))" clicktracking="off">Reset it again now</a> and review your account.</p>
                </body></html>
                """
        )
    }
}
