import DeepLinks
import Foundation
import Hummingbird

/// The console's HTML: server-rendered, no script (its CSP allows none), every form posting a CSRF token.
enum ConsolePages {
    static func response(_ status: HTTPResponse.Status, _ html: HTML, headers extra: HTTPFields = [:]) -> Response {
        Response.html(status, html, security: .console, extra: extra)
    }

    typealias Viewer = Operators.Viewer

    static func page(title: String, viewer: Viewer?, body: HTML) -> HTML {
        var navigation = HTML.empty
        if let viewer {
            var items: [HTML] = [
                #"<a href="/console/links">Links</a>"#, #"<a href="/console/analytics">Analytics</a>"#,
                #"<a href="/console/funnel">Funnel</a>"#, #"<a href="/console/health">Universal-link health</a>"#,
                #"<a href="/console/association">Association</a>"#,
                #"<a href="/console/doctor">Why didn't it open?</a>"#,
            ]
            if viewer.signedIn.role >= .admin { items.append(#"<a href="/console/keys">Keys and operators</a>"#) }
            navigation = """
                <header><nav aria-label="Console">\(items.joined(separator: " "))</nav>
                <form method="post" action="/console/sign-out" class="inline">\(csrfField(viewer))<span class="who">\(viewer.signedIn.email) (\(viewer.signedIn.role.rawValue))</span> <button class="secondary" type="submit">Sign out</button></form></header>
                """
        }
        return PageShell.document(
            title: "\(title) · deeplinks console",
            stylesheet: "/assets/console.css",
            body: "\(navigation)\n<main>\n\(body)\n</main>"
        )
    }

    static func csrfField(_ viewer: Viewer) -> HTML {
        #"<input type="hidden" name="csrf" value="\#(viewer.csrf)">"#
    }

    static func message(title: String, viewer: Viewer?, text: String) -> HTML {
        page(
            title: title,
            viewer: viewer,
            body: "<h1>\(title)</h1>\n<p role=\"alert\">\(text)</p>"
        )
    }

    static func signIn(csrf: String, email: String = "", error: String? = nil, next: String?) -> HTML {
        let errorLine: HTML = error.map { #"<p class="error" id="sign-in-error" role="alert">\#($0)</p>"# } ?? ""
        let nextField: HTML = next.map { #"<input type="hidden" name="next" value="\#($0)">"# } ?? ""
        return page(
            title: "Sign in",
            viewer: nil,
            body: """
                <h1>Sign in to the console</h1>
                \(errorLine)
                <form method="post" action="/console/sign-in">
                <input type="hidden" name="csrf" value="\(csrf)">\(nextField)
                <label for="email">Email</label>
                <input id="email" name="email" type="email" autocomplete="username" required value="\(email)">
                <label for="password">Password</label>
                <input id="password" name="password" type="password" autocomplete="current-password" required>
                <p><button type="submit">Sign in</button></p>
                </form>
                <p class="help">Operators are added with <code>deeplinks operators create EMAIL --role viewer|editor|admin</code>.</p>
                """
        )
    }
}
