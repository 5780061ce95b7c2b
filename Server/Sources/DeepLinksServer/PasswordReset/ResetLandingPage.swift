import DeepLinksSecrets
import Foundation
import Hummingbird

/// `GET` the reset route's path (`/reset-password` for the demo app): the universal link's web side, for a phone
/// without the app, a desktop, or a mail scanner. GET and HEAD change nothing (P1): the token is consumed only by
/// the confirm a person submits, and nothing submits on load. Without a token the page offers a new link.
///
/// The script attaches its handlers first, then reads the token from the fragment (or the query), under the
/// parameter names of the configured route (``PasswordResetRoute``, given to it as the form's `data-`
/// attributes), now and on every later `hashchange`; removes it from the address bar; checks it
/// (``PasswordResetService/verify(token:email:client:)``) so an expired link says so before a password is typed
/// (P4); and posts the forms as JSON. Without the script the forms post to this path (``PasswordResetRoutes``),
/// which answers with the page. Headers keep the page out of caches, indexes and Referer headers, and allow no
/// script, style or request but the server's own (P2).
struct ResetLandingPage: Sendable {
    let app: AppConfiguration
    let links: ResetLinks
    let minimumLength: Int
    let lifetimeMinutes: Int64
    /// Universal-link health: a request from iOS for the page is a reset link that did not open the app.
    var health: UniversalLinkHealth? = nil

    var reset: PasswordResetRoute { links.reset }
    /// The App Store campaign of the reset page's "Get the app".
    static let campaign = "password-reset"

    func register(on router: Router<AppRequestContext>) {
        for method in [HTTPRequest.Method.get, .head] {
            router.on(RouterPath(reset.path), method: method) { request, context -> Response in
                if method == .get, !LinkRedirect.optsOut(request) {
                    health?.record(request, peer: { context.peer })
                }
                let token = request.uri.queryParameters[Substring(reset.tokenParameter)].map(String.init)
                let response = self.response(.initial(queryToken: token))
                return method == .head ? Response(status: response.status, headers: response.headers) : response
            }
        }
    }

    /// What the page shows. `initial` is a GET: the script reads the link and takes it from there; the others
    /// answer the forms' posts when the script did not run (or the page is used without it).
    enum State: Equatable {
        case initial(queryToken: String?)
        /// The form again, the token kept, with why the password was refused.
        case form(token: String, email: String, error: String)
        /// The request form, with what happened to the last request.
        case requested(email: String, message: String)
        case expired(email: String)
        case done
    }

    func response(_ state: State, status: HTTPResponse.Status = .ok) -> Response {
        Response.html(status, page(state), security: .scripted)
    }

    /// The page. A token from the query is placed in the form only when it has a token's shape (P5);
    /// every reflected or configured value is escaped. Without a token it offers a reset link, not an error.
    func page(_ state: State) -> HTML {
        var token = ""
        var email = ""
        var visible = "again"
        var againTitle = "Get a reset link"
        var status = "Enter the address of your account: a link to choose a new password arrives in a minute."
        var passwordError = ""
        var againStatus = ""
        switch state {
        case .initial(let queryToken):
            if let queryToken, SecretToken.isWellFormed(queryToken) {
                token = queryToken
                visible = "reset"
                status = "Checking your link…"
            }
        case .form(let kept, let address, let error):
            (token, email, visible, passwordError) = (kept, address, "reset", error)
            status = "Choose another password."
        case .requested(let address, let message):
            (email, againStatus) = (address, message)
            status = ""
        case .expired(let address):
            email = address
            againTitle = "This link has expired or was already used"
            status = "This link cannot be used any more: ask for a new one."
        case .done:
            visible = "done"
            status = "Done."
        }
        func hidden(_ section: String) -> String { visible == section ? "" : " hidden" }
        let initial = if case .initial = state { "initial" } else { "answered" }
        let name = app.displayName
        let banner: HTML =
            app.appStoreID.map { id in
                let affiliate: HTML = app.bannerCampaign(Self.campaign).map { ", affiliate-data=\($0)" } ?? ""
                let page = links.page
                return #"<meta name="apple-itunes-app" content="app-id=\#(id)\#(affiliate), app-argument=\#(page)">"#
            } ?? ""
        let store: HTML =
            app.appStoreURL(campaign: Self.campaign).map {
                #"<p class="store">No app yet? <a href="\#($0)" rel="noreferrer noopener">Get \#(name) on the App Store</a>.</p>"#
            } ?? ""
        let path = reset.path
        return PageShell.document(
            title: "Reset your password · \(app.displayName)",
            stylesheet: "/assets/site.css",
            head: """
                <meta name="referrer" content="no-referrer">
                <meta name="robots" content="noindex, nofollow">
                \(banner)
                <script src="/assets/reset-password.js" defer></script>
                """,
            body: """
                <main id="page" data-state="\(initial)" data-lifetime="\(lifetimeMinutes)">
                <h1>Reset your \(name) password</h1>
                <p id="status" role="status" aria-live="polite">\(status)</p>
                <form id="reset" method="post" action="\(path)" data-token-parameter="\(reset.tokenParameter)" data-email-parameter="\(reset.emailParameter ?? "")" novalidate\(hidden("reset"))>
                <input type="hidden" name="intent" value="confirm">
                <input type="hidden" name="token" value="\(token)">
                <input type="hidden" name="email" value="\(email)">
                <input type="email" name="username" autocomplete="username" value="\(email)" hidden>
                <label for="password">New password</label>
                <input id="password" name="password" type="password" autocomplete="new-password" minlength="\(minimumLength)" maxlength="256" required aria-describedby="password-help">
                <p id="password-help" class="help">At least \(minimumLength) characters: a few unrelated words make a good one.</p>
                <p id="password-error" class="error" role="alert">\(passwordError)</p>
                <button type="submit">Set new password</button>
                </form>
                <section id="again"\(hidden("again"))>
                <h2 id="again-title">\(againTitle)</h2>
                <form id="again-form" method="post" action="\(path)">
                <input type="hidden" name="intent" value="request">
                <label for="again-email">Email address</label>
                <input id="again-email" name="email" type="email" autocomplete="email" value="\(email)" required>
                <button type="submit">Send me a link</button>
                </form>
                <p id="again-status" role="status" aria-live="polite">\(againStatus)</p>
                </section>
                <section id="done"\(hidden("done"))>
                <h2>Your password was changed</h2>
                <p>Every session was signed out. Sign in with your new password.</p>
                </section>
                \(store)
                <noscript><p class="help">Without JavaScript this page cannot read the link's code: ask for a new link above, or open the link on your phone with the \(name) app.</p></noscript>
                </main>
                """
        )
    }

    /// Why a password was refused, in the words the script uses too.
    static let reasons = [
        "too_short": "Use a longer password.", "too_long": "Use at most 256 characters.",
        "common": "This password is too common.", "contains_email": "Do not use your email address.",
        "contains_context_word": "Do not use the app\u{2019}s name.",
        "repetitive": "Avoid repeated or sequential characters.",
    ]
}
