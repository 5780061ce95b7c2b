import DeepLinks
import DeepLinksMail
import Foundation

/// The reset message and the "your password was changed" notice. Subjects are static; the only
/// user-controlled text (the stored address) is escaped in the HTML part, which is built as ``HTML``.
enum ResetMail {
    static func reset(to address: String, universal: String, scheme: String?, appName: String, lifetimeMinutes: Int64)
        -> OutgoingMail
    {
        // What a wary reader checks before tapping: who sent it, why, where the button goes (the domain written
        // out), for how long, and what to do if it was not them.
        let domain = (try? URLParts(parsing: universal))?.host ?? ""
        let name = appName
        let schemeText = scheme.map { "\n\nAlready in the app? This link opens it directly:\n\($0)" } ?? ""
        let schemeHTML: HTML =
            scheme.map {
                #"<p style="margin:0 0 16px">Already in the app? <a href="\#($0)" clicktracking="off">Open it directly</a>.</p>"#
            } ?? ""
        return OutgoingMail(
            to: address,
            subject: "Reset your \(appName) password",
            text: """
                \(appName): reset your password

                You (or someone with your address) asked to reset the password of your \(appName) account, \(address).

                Choose a new password with this link, on your phone or here. It opens the \(appName) app if you have it,
                and works for \(lifetimeMinutes) minutes, once:
                \(universal)\(schemeText)

                Not you? Ignore this message: your password stays as it is, and the link expires on its own.

                Sent by \(appName) from \(domain), because a password reset was asked for this address.
                """,
            html: ("""
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Reset your \(name) password</title>
            </head>
            <body style="margin:0;padding:0;background:#f5f5f7">
            <div style="max-width:560px;margin:0 auto;padding:24px;font:16px/1.5 -apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1d1d1f;background:#ffffff">
            <p style="margin:0 0 8px;font-weight:600;color:#6e6e73">\(name)</p>
            <h1 style="margin:0 0 16px;font-size:24px;line-height:1.25">Reset your password</h1>
            <p style="margin:0 0 16px">You (or someone with your address) asked to reset the password of your \(name) account, <strong>\(address)</strong>.</p>
            <p style="margin:0 0 8px"><a href="\(universal)" clicktracking="off" style="display:inline-block;padding:12px 20px;border-radius:8px;background:#0066cc;color:#ffffff;text-decoration:none;font-weight:600">Choose a new password</a></p>
            <p style="margin:0 0 16px;font-size:14px;color:#6e6e73">The button opens \(domain), in the \(name) app if you have it. It works for \(lifetimeMinutes) minutes, once.</p>
            \(schemeHTML)
            <p style="margin:0 0 16px"><strong>Not you?</strong> Ignore this message: your password stays as it is, and the link expires on its own.</p>
            <p style="margin:24px 0 0;font-size:13px;color:#6e6e73">Sent by \(name) from \(domain), because a password reset was asked for this address.</p>
            </div>
            </body>
            </html>
            """ as HTML).markup
        )
    }

    /// To the owner of an address someone tried to sign up with: sign-up answers as for a new address.
    static func signUpAttempt(to address: String, appName: String, resetPage: String?) -> OutgoingMail {
        let reset = resetPage.map { "If you have forgotten your password, choose a new one: \($0)\n\n" } ?? ""
        let resetHTML: HTML =
            resetPage.map {
                "<p>If you have forgotten your password, <a href=\"\($0)\" clicktracking=\"off\">choose a new one</a>.</p>"
            } ?? ""
        return OutgoingMail(
            to: address,
            subject: "Someone tried to create a \(appName) account with your address",
            text: """
                Someone (hopefully you) tried to create a \(appName) account for \(address), which already has one.

                If it was you, sign in with your password. \(reset)If it was not you, ignore this message: nothing changed.
                """,
            html: ("""
            <!doctype html><html><body>
            <p>Someone (hopefully you) tried to create a \(appName) account for \(address), which already has one.</p>
            <p>If it was you, sign in with your password.</p>\(resetHTML)
            <p>If it was not you, ignore this message: nothing changed.</p>
            </body></html>
            """ as HTML).markup
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
            html: ("""
            <!doctype html><html><body>
            <p>The password of the \(appName) account for \(address) was just changed, and every session was signed out.</p>
            <p>Wasn't you? <a href="\(resetPage)" clicktracking="off">Reset it again now</a> and review your account.</p>
            </body></html>
            """ as HTML).markup
        )
    }
}
