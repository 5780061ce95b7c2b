import DeepLinks
import DemoAppRoutes
import Foundation

/// The two links of a reset message, printed from the app's shared route table with the configured scheme
/// and domain (never from a request's `Host`, L1): the universal link, token in the fragment, and the
/// custom-scheme link beside it (L7), every value percent-encoded outside RFC 3986's unreserved set (L2).
struct ResetLinks: Sendable {
    let table: RouteTable<DemoRoute>
    let host: String
    let scheme: String

    init(app: AppConfiguration) throws {
        table = try RouteTable(schemes: [app.customScheme], hosts: app.domains, routes: DemoRoute.routes)
        host = app.domains[0]
        scheme = app.customScheme
    }

    func universal(token: String, email: String?) throws -> String {
        try table.url(for: .resetPassword(token: token, email: email), as: .universalLink(host: host))
    }

    func customScheme(token: String, email: String?) throws -> String {
        try table.url(for: .resetPassword(token: token, email: email), as: .customScheme(scheme))
    }
}

/// The reset message and the "your password was changed" notice. Subjects are static; the only
/// user-controlled text (the stored address) is HTML-escaped in the HTML part.
enum ResetMail {
    static func reset(to address: String, universal: String, scheme: String, appName: String, lifetimeMinutes: Int64) -> OutgoingMail {
        OutgoingMail(
            to: address,
            subject: "Reset your \(appName) password",
            text: """
                Someone (hopefully you) asked to reset the password of the \(appName) account for \(address).

                Open this link on your phone to choose a new password (it works for \(lifetimeMinutes) minutes, once):
                \(universal)

                In the app already? This link opens it directly:
                \(scheme)

                If you did not ask, ignore this message: your password stays as it is.
                """,
            html: """
                <!doctype html><html><body>
                <p>Someone (hopefully you) asked to reset the password of the \(HTML.escape(appName)) account for \(HTML.escape(address)).</p>
                <p><a href="\(HTML.escape(universal))" clicktracking="off">Choose a new password</a> (the link works for \(lifetimeMinutes) minutes, once).</p>
                <p>In the app already? <a href="\(HTML.escape(scheme))" clicktracking="off">Open it directly</a>.</p>
                <p>If you did not ask, ignore this message: your password stays as it is.</p>
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

enum HTML {
    /// Escapes text for an HTML element or a quoted attribute.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
