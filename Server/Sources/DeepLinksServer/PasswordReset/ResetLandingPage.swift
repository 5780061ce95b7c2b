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

    var reset: PasswordResetRoute { links.reset }

    static let securityHeaders: HTTPFields = [
        .init("Referrer-Policy")!: "no-referrer",
        .cacheControl: "no-store",
        .contentSecurityPolicy:
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        .init("X-Robots-Tag")!: "noindex, nofollow",
        .xContentTypeOptions: "nosniff",
        .init("X-Frame-Options")!: "DENY",
    ]

    func register(on router: Router<AppRequestContext>) {
        for method in [HTTPRequest.Method.get, .head] {
            router.on(RouterPath(reset.path), method: method) { request, _ -> Response in
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
        var headers = Self.securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        let html = page(state)
        headers[.contentLength] = String(html.utf8.count)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// The pages' scripts and style sheets, served whether the reset journey is on or not (smart-link pages and the
    /// console use them).
    static func registerAssets(on router: Router<AppRequestContext>) {
        for method in [HTTPRequest.Method.get, .head] {
            let assets = [
                ("/assets/reset-password.js", "text/javascript; charset=utf-8", Self.script),
                ("/assets/deferred.js", "text/javascript; charset=utf-8", SmartLinkPages.deferredScript),
                ("/assets/platform.js", "text/javascript; charset=utf-8", SmartLinkPages.platformScript),
                ("/assets/site.css", "text/css; charset=utf-8", Self.stylesheet),
                ("/assets/console.css", "text/css; charset=utf-8", ConsolePages.stylesheet),
            ]
            for (path, type, body) in assets {
                router.on(RouterPath(path), method: method) { _, _ -> Response in
                    var headers = Self.securityHeaders
                    headers[.contentType] = type
                    headers[.cacheControl] = "public, max-age=300"
                    headers[.contentLength] = String(body.utf8.count)
                    return Response(
                        status: .ok,
                        headers: headers,
                        body: method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(string: body))
                    )
                }
            }
        }
    }

    /// The page. A token from the query is placed in the form only when it has a token's shape (P5);
    /// every reflected or configured value is escaped. Without a token it offers a reset link, not an error.
    func page(_ state: State) -> String {
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
        let name = HTML.escape(app.displayName)
        let banner =
            app.appStoreID.map {
                #"<meta name="apple-itunes-app" content="app-id=\#($0), app-argument=\#(HTML.escape(links.page))">"#
            } ?? ""
        let store =
            app.appStoreID.map {
                #"<p class="store">No app yet? <a href="https://apps.apple.com/app/id\#($0)" rel="noreferrer noopener">Get \#(name) on the App Store</a>.</p>"#
            } ?? ""
        let path = HTML.escape(reset.path)
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <meta name="robots" content="noindex, nofollow">
            \(banner)
            <title>Reset your password · \(name)</title>
            <link rel="stylesheet" href="/assets/site.css">
            <script src="/assets/reset-password.js" defer></script>
            </head>
            <body>
            <main id="page" data-state="\(initial)" data-lifetime="\(lifetimeMinutes)">
            <h1>Reset your \(name) password</h1>
            <p id="status" role="status" aria-live="polite">\(HTML.escape(status))</p>
            <form id="reset" method="post" action="\(path)" data-token-parameter="\(HTML.escape(reset.tokenParameter))" data-email-parameter="\(HTML.escape(reset.emailParameter ?? ""))" novalidate\(hidden("reset"))>
            <input type="hidden" name="intent" value="confirm">
            <input type="hidden" name="token" value="\(HTML.escape(token))">
            <input type="hidden" name="email" value="\(HTML.escape(email))">
            <input type="email" name="username" autocomplete="username" value="\(HTML.escape(email))" hidden>
            <label for="password">New password</label>
            <input id="password" name="password" type="password" autocomplete="new-password" minlength="\(minimumLength)" maxlength="256" required aria-describedby="password-help">
            <p id="password-help" class="help">At least \(minimumLength) characters: a few unrelated words make a good one.</p>
            <p id="password-error" class="error" role="alert">\(HTML.escape(passwordError))</p>
            <button type="submit">Set new password</button>
            </form>
            <section id="again"\(hidden("again"))>
            <h2 id="again-title">\(HTML.escape(againTitle))</h2>
            <form id="again-form" method="post" action="\(path)">
            <input type="hidden" name="intent" value="request">
            <label for="again-email">Email address</label>
            <input id="again-email" name="email" type="email" autocomplete="email" value="\(HTML.escape(email))" required>
            <button type="submit">Send me a link</button>
            </form>
            <p id="again-status" role="status" aria-live="polite">\(HTML.escape(againStatus))</p>
            </section>
            <section id="done"\(hidden("done"))>
            <h2>Your password was changed</h2>
            <p>Every session was signed out. Sign in with your new password.</p>
            </section>
            \(store)
            <noscript><p class="help">Without JavaScript this page cannot read the link's code: ask for a new link above, or open the link on your phone with the \(name) app.</p></noscript>
            </main>
            </body>
            </html>
            """
    }

    /// Why a password was refused, in the words the script uses too.
    static let reasons = [
        "too_short": "Use a longer password.", "too_long": "Use at most 256 characters.",
        "common": "This password is too common.", "contains_email": "Do not use your email address.",
        "contains_context_word": "Do not use the app\u{2019}s name.",
        "repetitive": "Avoid repeated or sequential characters.",
    ]

    /// Reads `name=value` pairs with percent-decoding only: a `+` stays a `+` (L2), unlike URLSearchParams.
    static let script = #"""
        'use strict';
        (function () {
          function pairs(text) {
            var out = {};
            text.split('&').forEach(function (pair) {
              var at = pair.indexOf('=');
              if (at < 1) return;
              try { out[decodeURIComponent(pair.slice(0, at))] = decodeURIComponent(pair.slice(at + 1)); } catch (e) { }
            });
            return out;
          }
          var page = document.getElementById('page');
          var form = document.getElementById('reset');
          var again = document.getElementById('again');
          var againForm = document.getElementById('again-form');
          var againTitle = document.getElementById('again-title');
          var againStatus = document.getElementById('again-status');
          var done = document.getElementById('done');
          var status = document.getElementById('status');
          var passwordError = document.getElementById('password-error');
          // The configured route's parameter names (the demo app's token is `token`).
          var tokenName = form.dataset.tokenParameter, emailName = form.dataset.emailParameter;
          var token = form.elements.token.value, email = form.elements.email.value;
          function post(path, body) {
            return fetch(path, {
              method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
              credentials: 'omit', referrerPolicy: 'no-referrer', cache: 'no-store'
            });
          }
          function wait(response) { return response.headers.get('Retry-After') || 'a few'; }
          function show(state) {
            form.hidden = state !== 'form';
            again.hidden = state !== 'start' && state !== 'expired';
            done.hidden = state !== 'done';
            if (state === 'start') {
              againTitle.textContent = 'Get a reset link';
              status.textContent = 'Enter the address of your account: a link to choose a new password arrives in a minute.';
            } else if (state === 'expired') {
              againTitle.textContent = 'This link has expired or was already used';
              status.textContent = 'This link cannot be used any more: ask for a new one.';
              againForm.elements.email.value = email;
            }
          }
          var reasons = {
            too_short: 'Use a longer password.', too_long: 'Use at most 256 characters.',
            common: 'This password is too common.', contains_email: 'Do not use your email address.',
            contains_context_word: 'Do not use the app\u2019s name.', repetitive: 'Avoid repeated or sequential characters.'
          };
          var unsaved = 'We could not save your new password just now. Your link still works: try again in a moment.';
          // The handlers first: whatever the link holds, both forms work.
          form.addEventListener('submit', function (event) {
            event.preventDefault();
            passwordError.textContent = '';
            var body = { token: token, password: form.elements.password.value };
            if (email) body.email = email;
            post('/v1/password-resets/confirm', body).then(function (response) {
              if (response.status === 204) {
                token = '';
                form.elements.token.value = '';
                form.elements.password.value = '';
                show('done');
                status.textContent = 'Done.';
              } else if (response.status === 422) {
                response.json().then(function (body) {
                  passwordError.textContent = (body.reasons || []).map(function (r) { return reasons[r] || r; }).join(' ');
                });
              } else if (response.status === 429) {
                passwordError.textContent = 'Too many attempts: wait ' + wait(response) + ' seconds, then try again.';
              } else if (response.status === 503 || response.status === 409) {
                passwordError.textContent = unsaved;
              } else {
                show('expired');
              }
            }, function () { passwordError.textContent = 'Cannot reach the server. Try again.'; });
          });
          againForm.addEventListener('submit', function (event) {
            event.preventDefault();
            againStatus.textContent = 'Sending\u2026';
            post('/v1/password-resets', { email: againForm.elements.email.value }).then(function (response) {
              if (response.status === 202) {
                againStatus.textContent = 'If an account uses this address, a link is on its way. It works for ' + page.dataset.lifetime + ' minutes, once.';
              } else if (response.status === 429) {
                againStatus.textContent = 'Too many requests: wait ' + wait(response) + ' seconds, then try again.';
              } else if (response.status === 400) {
                againStatus.textContent = 'This is not an address we can send to: check it and try again.';
              } else {
                againStatus.textContent = 'Something went wrong (' + response.status + '): try again in a minute.';
              }
            }, function () { againStatus.textContent = 'Cannot reach the server. Try again.'; });
          });
          // A link opened here, now or later in the same tab (a new fragment is a `hashchange`).
          function readLink() {
            var link = pairs(location.hash.slice(1)), query = pairs(location.search.slice(1));
            var fresh = link[tokenName] || query[tokenName];
            if (fresh) {
              token = fresh;
              email = (emailName && (link[emailName] || query[emailName])) || '';
            }
            // The secret leaves the address bar, the history and any later Referer.
            if (location.hash || location.search) history.replaceState(null, '', location.pathname);
            if (!fresh && page.dataset.state !== 'initial') return;
            page.dataset.state = 'initial';
            if (!token) { show('start'); return; }
            if (!/^[A-Za-z0-9_-]{43,128}$/.test(token)) { show('expired'); return; }
            form.elements.token.value = token;
            form.elements.email.value = email;
            form.elements.username.value = email;
            passwordError.textContent = '';
            show('form');
            status.textContent = 'Checking your link\u2026';
            var checked = token;
            post('/v1/password-resets/verify', { token: token }).then(function (response) {
              if (checked !== token) return;
              if (!response.ok) { show('expired'); return; }
              return response.json().then(function (body) { status.textContent = 'For the account ' + body.email + '.'; });
            }, function () { status.textContent = 'Cannot reach the server; you can still try.'; });
          }
          window.addEventListener('hashchange', readLink);
          readLink();
        })();
        """#

    static let stylesheet = """
        body { font: 17px/1.5 -apple-system, system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #f5f5f7; }
        main { max-width: 28rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border-radius: 12px; }
        label { display: block; font-weight: 600; margin-top: 1rem; }
        input { width: 100%; box-sizing: border-box; font-size: 1rem; padding: .6rem; margin: .3rem 0; }
        [hidden] { display: none !important; }
        table { width: 100%; border-collapse: collapse; table-layout: fixed; }
        th, td { text-align: left; vertical-align: top; padding: .3rem .4rem .3rem 0; overflow-wrap: anywhere; }
        code { overflow-wrap: anywhere; }
        svg { display: block; max-width: 100%; }
        button, .button { display: inline-block; font-size: 1rem; padding: .6rem 1rem; border-radius: 8px; border: 0; background: #0066cc; color: #fff; text-decoration: none; }
        .secondary { background: #e8e8ed; color: #0066cc; }
        .error { color: #b00020; min-height: 1.5em; }
        .help { color: #6e6e73; font-size: .9rem; }
        .notice { background: #fff4ce; border-radius: 8px; padding: .6rem .8rem; }
        """
}
