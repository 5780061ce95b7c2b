import Foundation
import Hummingbird

/// `GET` the reset route's path (`/reset-password` for the demo app): the universal link's web side, for a phone without the app, a desktop, or a
/// mail scanner. GET and HEAD change nothing (P1): the token is consumed only by the confirm POST the
/// form sends when a person submits a password, and nothing submits on load.
///
/// The script reads the token from the fragment (or the query), under the parameter names of the configured
/// route (``PasswordResetRoute``, given to it as the form's `data-` attributes), removes it from the address bar, checks
/// it (``PasswordResetService/verify(token:email:client:)``) so an expired link says so before a
/// password is typed (P4), and posts the form as JSON. Headers keep the page out of caches, indexes and
/// Referer headers, and allow no script, style or request but the server's own (P2).
struct ResetLandingPage: Sendable {
    let app: AppConfiguration
    let links: ResetLinks
    let minimumLength: Int

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
                var headers = Self.securityHeaders
                headers[.contentType] = "text/html; charset=utf-8"
                let html = page(
                    queryToken: request.uri.queryParameters[Substring(reset.tokenParameter)].map(String.init)
                )
                headers[.contentLength] = String(html.utf8.count)
                return Response(
                    status: .ok,
                    headers: headers,
                    body: method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(string: html))
                )
            }
        }
    }

    /// The pages' script and style sheet, served whether the reset journey is on or not (smart-link pages use them).
    static func registerAssets(on router: Router<AppRequestContext>) {
        for method in [HTTPRequest.Method.get, .head] {
            let assets = [
                ("/assets/reset-password.js", "text/javascript; charset=utf-8", Self.script),
                ("/assets/deferred.js", "text/javascript; charset=utf-8", SmartLinkPages.deferredScript),
                ("/assets/platform.js", "text/javascript; charset=utf-8", SmartLinkPages.platformScript),
                ("/assets/site.css", "text/css; charset=utf-8", Self.stylesheet),
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
    /// every reflected or configured value is escaped.
    func page(queryToken: String?) -> String {
        let token = queryToken.flatMap { SecretToken.isWellFormed($0) ? $0 : nil } ?? ""
        let canonical = links.page
        let name = HTML.escape(app.displayName)
        let banner =
            app.appStoreID.map {
                #"<meta name="apple-itunes-app" content="app-id=\#($0), app-argument=\#(HTML.escape(canonical))">"#
            } ?? ""
        let store =
            app.appStoreID.map {
                #"<p class="store">No app yet? <a href="https://apps.apple.com/app/id\#($0)" rel="noreferrer noopener">Get \#(name) on the App Store</a>.</p>"#
            } ?? ""
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <meta name="robots" content="noindex, nofollow">
            \(banner)
            <title>Choose a new password · \(name)</title>
            <link rel="stylesheet" href="/assets/site.css">
            <script src="/assets/reset-password.js" defer></script>
            </head>
            <body>
            <main>
            <h1>Choose a new password</h1>
            <p id="status" role="status" aria-live="polite">Checking your link…</p>
            <p><a id="open-app" class="button secondary" href="\(HTML.escape(canonical))" rel="noreferrer noopener">Open in the \(name) app</a></p>
            <form id="reset" method="post" action="\(HTML.escape(reset.path))" data-token-parameter="\(HTML.escape(reset.tokenParameter))" data-email-parameter="\(HTML.escape(reset.emailParameter ?? ""))" novalidate>
            <input type="hidden" name="token" value="\(HTML.escape(token))">
            <input type="hidden" name="email" value="">
            <input type="email" name="username" autocomplete="username" hidden>
            <label for="password">New password</label>
            <input id="password" name="password" type="password" autocomplete="new-password" minlength="\(minimumLength)" maxlength="256" required aria-describedby="password-help">
            <p id="password-help" class="help">At least \(minimumLength) characters: a few unrelated words make a good one.</p>
            <p id="password-error" class="error" role="alert"></p>
            <button type="submit">Set new password</button>
            </form>
            <section id="expired" hidden>
            <h2>This link has expired or was already used</h2>
            <p>Ask for a new one: it arrives in a minute.</p>
            <form id="again" method="post" action="\(HTML.escape(reset.path))">
            <label for="again-email">Email address</label>
            <input id="again-email" name="email" type="email" autocomplete="email" required>
            <button type="submit">Send me a new link</button>
            </form>
            </section>
            <section id="done" hidden>
            <h2>Your password was changed</h2>
            <p>Every session was signed out. Sign in with your new password.</p>
            </section>
            \(store)
            <noscript><p class="error">This page needs JavaScript to read your link. Open the link on your phone with the \(name) app instead.</p></noscript>
            </main>
            </body>
            </html>
            """
    }

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
          var link = pairs(location.hash.slice(1));
          var query = pairs(location.search.slice(1));
          var form = document.getElementById('reset');
          // The configured route's parameter names (the demo app's are token and email).
          var tokenName = form.dataset.tokenParameter, emailName = form.dataset.emailParameter;
          var token = link[tokenName] || query[tokenName] || form.elements.token.value;
          var email = (emailName && (link[emailName] || query[emailName])) || '';
          // The secret leaves the address bar, the history and any later Referer.
          if (location.hash || location.search) history.replaceState(null, '', location.pathname);
          var status = document.getElementById('status');
          var expired = document.getElementById('expired');
          var openApp = document.getElementById('open-app');
          function post(path, body) {
            return fetch(path, {
              method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
              credentials: 'omit', referrerPolicy: 'no-referrer', cache: 'no-store'
            });
          }
          function showExpired() {
            form.hidden = true;
            openApp.hidden = true;
            expired.hidden = false;
            status.textContent = 'This link cannot be used any more.';
            document.getElementById('again-email').value = email;
          }
          if (!/^[A-Za-z0-9_-]{43,128}$/.test(token)) { showExpired(); return; }
          openApp.href = openApp.href + '#' + encodeURIComponent(tokenName) + '=' + encodeURIComponent(token) +
            (email ? '&' + encodeURIComponent(emailName) + '=' + encodeURIComponent(email) : '');
          form.elements.token.value = token;
          form.elements.email.value = email;
          form.elements.username.value = email;
          post('/v1/password-resets/verify', { token: token }).then(function (response) {
            if (!response.ok) { showExpired(); return; }
            return response.json().then(function (body) { status.textContent = 'For the account ' + body.email + '.'; });
          }, function () { status.textContent = 'Cannot reach the server; you can still try.'; });
          var reasons = {
            too_short: 'Use a longer password.', too_long: 'Use at most 256 characters.',
            common: 'This password is too common.', contains_email: 'Do not use your email address.',
            contains_context_word: 'Do not use the app\u2019s name.', repetitive: 'Avoid repeated or sequential characters.'
          };
          form.addEventListener('submit', function (event) {
            event.preventDefault();
            var error = document.getElementById('password-error');
            error.textContent = '';
            var body = { token: token, password: form.elements.password.value };
            if (email) body.email = email;
            post('/v1/password-resets/confirm', body).then(function (response) {
              if (response.status === 204) {
                form.hidden = true; openApp.hidden = true;
                document.getElementById('done').hidden = false;
                status.textContent = 'Done.';
              } else if (response.status === 422) {
                response.json().then(function (body) {
                  error.textContent = (body.reasons || []).map(function (r) { return reasons[r] || r; }).join(' ');
                });
              } else if (response.status === 429) {
                error.textContent = 'Too many attempts: wait ' + (response.headers.get('Retry-After') || 'a few') + ' seconds.';
              } else {
                showExpired();
              }
            }, function () { error.textContent = 'Cannot reach the server. Try again.'; });
          });
          document.getElementById('again').addEventListener('submit', function (event) {
            event.preventDefault();
            post('/v1/password-resets', { email: document.getElementById('again-email').value }).then(function () {
              status.textContent = 'If an account uses this address, a new link is on its way.';
            });
          });
        })();
        """#

    static let stylesheet = """
        body { font: 17px/1.5 -apple-system, system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #f5f5f7; }
        main { max-width: 28rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border-radius: 12px; }
        label { display: block; font-weight: 600; margin-top: 1rem; }
        input { width: 100%; box-sizing: border-box; font-size: 1rem; padding: .6rem; margin: .3rem 0; }
        button, .button { display: inline-block; font-size: 1rem; padding: .6rem 1rem; border-radius: 8px; border: 0; background: #0066cc; color: #fff; text-decoration: none; }
        .secondary { background: #e8e8ed; color: #0066cc; }
        .error { color: #b00020; min-height: 1.5em; }
        .help { color: #6e6e73; font-size: .9rem; }
        .notice { background: #fff4ce; border-radius: 8px; padding: .6rem .8rem; }
        """
}
