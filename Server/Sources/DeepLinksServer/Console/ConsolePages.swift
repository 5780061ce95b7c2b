import AppSiteAssociation
import DeepLinks
import Foundation
import Hummingbird

/// The console's HTML: server-rendered, no script (its CSP allows none), every form posting a CSRF token.
enum ConsolePages {
    static func response(_ status: HTTPResponse.Status, _ html: String, headers extra: HTTPFields = [:]) -> Response {
        Response.html(status, html, security: .console, extra: extra)
    }

    /// Who is signed in, and the token each form of the page carries.
    struct Viewer {
        let signedIn: Operators.Operator
        let csrf: String
    }

    static func page(title: String, viewer: Viewer?, body: String) -> String {
        var navigation = ""
        if let viewer {
            var items = [
                #"<a href="/console/links">Links</a>"#, #"<a href="/console/association">Association</a>"#,
                #"<a href="/console/doctor">Why didn't it open?</a>"#,
            ]
            if viewer.signedIn.role >= .admin { items.append(#"<a href="/console/keys">Keys and operators</a>"#) }
            navigation = """
                <header><nav aria-label="Console">\(items.joined(separator: " "))</nav>
                <form method="post" action="/console/sign-out" class="inline">\(csrfField(viewer))<span class="who">\(HTML.escape(viewer.signedIn.email)) (\(viewer.signedIn.role.rawValue))</span> <button class="secondary" type="submit">Sign out</button></form></header>
                """
        }
        return PageShell.document(
            title: "\(title) · deeplinks console",
            stylesheet: "/assets/console.css",
            body: "\(navigation)\n<main>\n\(body)\n</main>"
        )
    }

    static func csrfField(_ viewer: Viewer) -> String {
        #"<input type="hidden" name="csrf" value="\#(viewer.csrf)">"#
    }

    static func message(title: String, viewer: Viewer?, text: String) -> String {
        page(
            title: title,
            viewer: viewer,
            body: "<h1>\(HTML.escape(title))</h1>\n<p role=\"alert\">\(HTML.escape(text))</p>"
        )
    }

    static func signIn(csrf: String, email: String = "", error: String? = nil, next: String?) -> String {
        let errorLine = error.map { #"<p class="error" id="sign-in-error" role="alert">\#(HTML.escape($0))</p>"# } ?? ""
        let nextField = next.map { #"<input type="hidden" name="next" value="\#(HTML.escape($0))">"# } ?? ""
        return page(
            title: "Sign in",
            viewer: nil,
            body: """
                <h1>Sign in to the console</h1>
                \(errorLine)
                <form method="post" action="/console/sign-in">
                <input type="hidden" name="csrf" value="\(csrf)">\(nextField)
                <label for="email">Email</label>
                <input id="email" name="email" type="email" autocomplete="username" required value="\(HTML.escape(email))">
                <label for="password">Password</label>
                <input id="password" name="password" type="password" autocomplete="current-password" required>
                <p><button type="submit">Sign in</button></p>
                </form>
                <p class="help">Operators are added with <code>deeplinks operators create EMAIL --role viewer|editor|admin</code>.</p>
                """
        )
    }

    // MARK: Links

    static func links(
        _ rows: [(link: SmartLink, clicks: Int64)],
        query: String,
        next: String?,
        notice: String?,
        viewer: Viewer,
        policy: LinkPolicy
    ) -> String {
        let body = rows.map { row in
            let link = row.link
            let expiry = link.expiresAt.map { formatted($0) } ?? ""
            return """
                <tr><td><a href="/console/links/\(HTML.escape(link.code))"><code>\(HTML.escape(link.code))</code></a></td><td>\(link.route.map { "<code>\(HTML.escape($0))</code>" } ?? "web link")</td><td>\(HTML.escape(link.destinations.fallback ?? link.destinations.desktop ?? ""))</td><td class="number">\(row.clicks)</td><td>\(expiry)</td></tr>
                """
        }.joined(separator: "\n")
        let edits =
            viewer.signedIn.role >= .editor
            ? #"<a class="button" href="/console/new">New link</a> <a class="button secondary" href="/console/import">Import links</a> "#
            : ""
        let create =
            #"<p>\#(edits)<a class="button secondary" href="/console/export.csv" download>Export links (CSV)</a></p>"#
        let search = query.isEmpty ? "" : "q=\(HTML.escape(formEncoded(query)))&amp;"
        let more =
            next.map {
                #"<p><a id="next-page" href="/console/links?\#(search)after=\#(HTML.escape(formEncoded($0)))">Next page</a></p>"#
            } ?? ""
        return page(
            title: "Links",
            viewer: viewer,
            body: """
                <h1>Links on <code>\(HTML.escape(policy.linkDomain))</code></h1>
                \(notice.map { #"<p class="notice" role="status">\#(HTML.escape($0))</p>"# } ?? "")
                <form method="get" action="/console/links" role="search">
                <label for="q">Search codes, routes and destinations</label>
                <input id="q" name="q" type="search" value="\(HTML.escape(query))">
                <button type="submit">Search</button>
                </form>
                \(create)
                <table id="links"><thead><tr><th>Code</th><th>Route</th><th>Web destination</th><th>Clicks</th><th>Expires (UTC)</th></tr></thead>
                <tbody>\(body.isEmpty ? #"<tr><td colspan="5">No links\#(query.isEmpty ? "" : " match")</td></tr>"# : body)</tbody></table>
                \(more)
                """
        )
    }

    static func link(
        _ link: SmartLink,
        rows: [LinkStore.ClickRow],
        referrers: [(host: String, clicks: Int64)],
        qr: String,
        viewer: Viewer,
        policy: LinkPolicy
    ) -> String {
        let url = policy.shortURL(link.code)
        var perPlatform: [String: Int64] = [:]
        var perSource: [String: Int64] = [:]
        for row in rows where !row.bot {
            perPlatform[row.platform, default: 0] += row.clicks
            perSource[row.source, default: 0] += row.clicks
        }
        let platforms = perPlatform.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map {
            "<tr><td>\(HTML.escape($0.key))</td><td class=\"number\">\($0.value)</td></tr>"
        }.joined()
        let sources = perSource.sorted { $0.key < $1.key }.map {
            "<tr><td>\($0.key == ClickSource.qr.rawValue ? "QR code" : "the link")</td><td class=\"number\">\($0.value)</td></tr>"
        }.joined()
        let fields: [(String, String?)] = [
            ("App", link.app ?? policy.primary.bundleID),
            ("Route", link.route ?? "none: a web link, every platform goes to its web address"),
            ("iOS", link.destinations.ios), ("iPad", link.destinations.ipad),
            ("Android", link.destinations.android), ("Desktop", link.destinations.desktop),
            ("Fallback", link.destinations.fallback), ("Preview title", link.preview.title),
            ("Preview description", link.preview.description), ("Preview image", link.preview.image),
            ("Passes the click's query on", link.passQuery ? "yes" : "no"),
            ("Expires (UTC)", link.expiresAt.map(formatted)), ("After expiry", link.expiredURL),
        ]
        let details = fields.compactMap { name, value in
            value.map { "<tr><th scope=\"row\">\(name)</th><td>\(HTML.escape($0))</td></tr>" }
        }.joined()
        let sites = referrers.map {
            "<tr><td>\(HTML.escape($0.host))</td><td class=\"number\">\($0.clicks)</td></tr>"
        }.joined()
        let code = HTML.escape(link.code)
        let actions =
            viewer.signedIn.role >= .editor
            ? #"<p><a class="button" id="edit" href="/console/links/\#(code)/edit">Edit</a> <a class="button secondary" id="delete" href="/console/links/\#(code)/delete">Delete</a></p>"#
            : ""
        return page(
            title: link.code,
            viewer: viewer,
            body: """
                <h1>Link <code>\(code)</code></h1>
                <p><a href="\(HTML.escape(url))">\(HTML.escape(url))</a></p>
                \(actions)
                <table id="details">\(details)</table>
                <h2>Clicks</h2>
                \(SmartLinkPages.statsBody(link, rows: rows))
                <div class="columns">
                <section><h2>Platforms</h2><table id="platforms"><thead><tr><th>Platform</th><th>Clicks</th></tr></thead><tbody>\(platforms)</tbody></table></section>
                <section><h2>Sources</h2><table id="sources"><thead><tr><th>From</th><th>Clicks</th></tr></thead><tbody>\(sources)</tbody></table></section>
                <section><h2>Referrers</h2><table id="referrers"><thead><tr><th>Site</th><th>Clicks</th></tr></thead><tbody>\(sites.isEmpty ? #"<tr><td colspan="2">None sent</td></tr>"# : sites)</tbody></table></section>
                </div>
                <h2>QR code</h2>
                <figure id="qr">\(qr)<figcaption>Scans open <code>\(HTML.escape(url))?\(SmartLinkRoutes.qrTag)</code>, counted apart. Download: <a href="/console/links/\(code)/qr.svg" download>SVG</a>, <a href="/console/links/\(code)/qr.png" download>PNG</a></figcaption></figure>
                """
        )
    }

    /// The link form: `values` are the submitted (or stored) texts by field name, `problems` the validator's
    /// messages by the same names.
    static func linkForm(
        code: String?,
        values: [String: String],
        problems: [String: [String]],
        viewer: Viewer,
        policy: LinkPolicy
    ) -> String {
        func field(_ name: String, _ label: String, type: String = "text", help: String? = nil) -> String {
            let id = name.replacingOccurrences(of: ".", with: "-")
            let errors = problems[name] ?? []
            let described = [help.map { _ in "\(id)-help" }, errors.isEmpty ? nil : "\(id)-error"].compactMap { $0 }
            return """
                <label for="\(id)">\(label)</label>
                <input id="\(id)" name="\(name)" type="\(type)" value="\(HTML.escape(values[name] ?? ""))"\(described.isEmpty ? "" : " aria-describedby=\"\(described.joined(separator: " "))\"")\(errors.isEmpty ? "" : " aria-invalid=\"true\"")>
                \(help.map { "<p class=\"help\" id=\"\(id)-help\">\(HTML.escape($0))</p>" } ?? "")
                \(errors.isEmpty ? "" : "<p class=\"error\" id=\"\(id)-error\">\(errors.map(HTML.escape).joined(separator: "<br>"))</p>")
                """
        }
        let general =
            problems[""].map {
                #"<p class="error" role="alert">\#($0.map(HTML.escape).joined(separator: "<br>"))</p>"#
            } ?? ""
        let summary =
            problems.isEmpty
            ? ""
            : #"<p class="error" role="alert" id="form-error">The link was not saved: see the fields marked below.</p>"#
        let app =
            policy.apps.count > 1
            ? """
            <label for="app">App</label>
            <select id="app" name="app">\(policy.apps.map { "<option value=\"\(HTML.escape($0.bundleID))\"\(values["app"] == $0.bundleID ? " selected" : "")>\(HTML.escape($0.displayName))</option>" }.joined())</select>
            \(problems["app"].map { "<p class=\"error\">\($0.map(HTML.escape).joined(separator: "<br>"))</p>" } ?? "")
            """ : ""
        let action = code.map { "/console/links/\(HTML.escape($0))/edit" } ?? "/console/new"
        let codeField =
            code == nil
            ? field("code", "Code", help: "3 to 64 letters, digits, - or _; left empty, an unguessable code is made")
            : ""
        return page(
            title: code.map { "Edit \($0)" } ?? "New link",
            viewer: viewer,
            body: """
                <h1>\(code.map { "Edit <code>\(HTML.escape($0))</code>" } ?? "New link")</h1>
                \(summary)\(general)
                <form method="post" action="\(action)" novalidate>
                \(csrfField(viewer))
                \(codeField)
                \(app)
                \(field("route", "Route in the app", help: "A path of the app's, as /post/10: checked against its route manifest. Leave it empty for a web link: every platform then goes to its destination below, else the fallback (required then)"))
                <fieldset><legend>Without the app</legend>
                \(field("destinations.ios", "iOS", type: "url"))
                \(field("destinations.ipad", "iPad", type: "url"))
                \(field("destinations.android", "Android", type: "url"))
                \(field("destinations.desktop", "Desktop", type: "url"))
                \(field("destinations.fallback", "Fallback", type: "url", help: "Where any other client goes"))
                </fieldset>
                <fieldset><legend>Social preview</legend>
                \(field("preview.title", "Title"))
                \(field("preview.description", "Description"))
                \(field("preview.image", "Image", type: "url"))
                </fieldset>
                <label class="check"><input type="checkbox" name="passQuery" value="on"\(values["passQuery"] == "on" ? " checked" : "")> Pass the click's query (utm_*) on to the destination</label>
                \(field("expiresAt", "Expires (UTC)", type: "datetime-local"))
                \(field("expiredURL", "After expiry", type: "url"))
                <p><button type="submit">Save</button> <a class="button secondary" href="\(code.map { "/console/links/\(HTML.escape($0))" } ?? "/console/links")">Cancel</a></p>
                </form>
                """
        )
    }

    /// Another system's export to upload (`/console/import`), with `problem` when the last upload could not be read.
    static func importForm(values: [String: String], problem: String? = nil, viewer: Viewer) -> String {
        let formats: [(LinkImport.Format, String)] =
            [(.auto, "Tell from the header row")]
            + [
                (.csv, "This server's CSV"), (.fdl, "Firebase Dynamic Links (Google Takeout)"), (.dub, "Dub export"),
                (.bitly, "Bitly export"), (.shlink, "Shlink export"),
            ].map { format, name in
                (format, "\(name) (fields: \(LinkImport.fields(format).map(\.0).joined(separator: ", ")))")
            }
        let conflicts: [(LinkImport.Conflict, String)] = [
            (.skip, "Leave the existing link (the import can be run again)"), (.replace, "Replace it"),
            (.fail, "Import nothing if any code is taken"),
        ]
        func options<T: RawRepresentable>(_ name: String, _ choices: [(T, String)]) -> String
        where T.RawValue == String {
            choices.map { value, label in
                let selected = values[name] == value.rawValue ? " selected" : ""
                return #"<option value="\#(value.rawValue)"\#(selected)>\#(HTML.escape(label))</option>"#
            }.joined()
        }
        let error = problem.map { #"<p class="error" id="import-error" role="alert">\#(HTML.escape($0))</p>"# } ?? ""
        return page(
            title: "Import links",
            viewer: viewer,
            body: """
                <h1>Import links</h1>
                <p>Each row becomes a smart link that keeps its code, checked as a new link is. The whole file is read first;
                the report says what became of each row.</p>
                \(error)
                <form method="post" action="/console/import?csrf=\(formEncoded(viewer.csrf))" enctype="multipart/form-data">
                <label for="file">File (CSV, UTF-8, at most \(SmartLinkRoutes.maxImportSize >> 20) MiB)</label>
                <input id="file" name="file" type="file" accept=".csv,text/csv" required>
                <label for="format">Format</label>
                <select id="format" name="format">\(options("format", formats))</select>
                <label for="columns">Columns the file names otherwise (optional)</label>
                <input id="columns" name="columns" type="text" value="\(HTML.escape(values["columns"] ?? ""))" aria-describedby="columns-help">
                <p class="help" id="columns-help">field=column, separated by commas: <code>code=slug, url=Destination</code></p>
                <label for="onConflict">When a code is already a link</label>
                <select id="onConflict" name="onConflict">\(options("onConflict", conflicts))</select>
                <label class="check"><input type="checkbox" id="dryRun" name="dryRun" value="on"\(values["dryRun"] == "on" ? " checked" : "")> Only check: write nothing</label>
                <p><button type="submit">Import</button> <a class="button secondary" href="/console/links">Cancel</a></p>
                </form>
                """
        )
    }

    /// What became of each row of an upload.
    static func importReport(_ report: SmartLinkRoutes.ImportReport, file: String?, dryRun: Bool, viewer: Viewer)
        -> String
    {
        let counts = report.counts
        let order = ["imported", "replaced", "valid", "skipped", "taken", "refused"]
        let summary = order.compactMap { status in counts[status].map { "\($0) \(status)" } }.joined(separator: ", ")
        let outcome =
            !report.taken.isEmpty
            ? "Nothing was imported: \(report.taken.count) of the codes are already links, and the import was to fail then."
            : dryRun
                ? "Checked only: nothing was written. Upload the file again without “Only check” to import it."
                : "The import is done."
        let shown = 1_000
        let rows = report.entries.prefix(shown).map { entry in
            let code =
                entry.code.map { code in
                    entry.status == "imported" || entry.status == "replaced"
                        ? #"<a href="/console/links/\#(HTML.escape(code))"><code>\#(HTML.escape(code))</code></a>"#
                        : "<code>\(HTML.escape(code))</code>"
                } ?? ""
            return """
                <tr class="\(entry.status)"><td class="number">\(entry.line)</td><td>\(code)</td><td>\(entry.status)</td><td>\(entry.problems.map(HTML.escape).joined(separator: "<br>"))</td></tr>
                """
        }.joined(separator: "\n")
        let more =
            report.entries.count > shown
            ? "<p>The first \(shown) of \(report.entries.count) rows are shown; the API's report has them all.</p>" : ""
        return page(
            title: "Import report",
            viewer: viewer,
            body: """
                <h1>Import of \(file.map { "<code>\(HTML.escape($0))</code>" } ?? "a file")</h1>
                <p class="notice" role="status" id="import-summary">\(HTML.escape(outcome)) \(HTML.escape(summary.isEmpty ? "The file has no rows." : summary + "."))\(report.format.map { " Read as \($0.rawValue)." } ?? "")</p>
                <table id="import-rows"><thead><tr><th>Line</th><th>Code</th><th>Outcome</th><th>Problems</th></tr></thead>
                <tbody>\(rows)</tbody></table>
                \(more)
                <p><a class="button" href="/console/import">Import another file</a> <a class="button secondary" href="/console/links">Links</a></p>
                """
        )
    }

    /// The form's texts for a stored link.
    static func formValues(_ link: SmartLink) -> [String: String] {
        var values: [String: String] = [
            "code": link.code, "route": link.route ?? "", "app": link.app ?? "",
            "destinations.ios": link.destinations.ios ?? "", "destinations.ipad": link.destinations.ipad ?? "",
            "destinations.android": link.destinations.android ?? "",
            "destinations.desktop": link.destinations.desktop ?? "",
            "destinations.fallback": link.destinations.fallback ?? "", "preview.title": link.preview.title ?? "",
            "preview.description": link.preview.description ?? "", "preview.image": link.preview.image ?? "",
            "expiredURL": link.expiredURL ?? "", "expiresAt": link.expiresAt.map { formatted($0, form: true) } ?? "",
        ]
        if link.passQuery { values["passQuery"] = "on" }
        return values
    }

    static func confirmDelete(_ link: SmartLink, viewer: Viewer) -> String {
        let code = HTML.escape(link.code)
        return page(
            title: "Delete \(link.code)",
            viewer: viewer,
            body: """
                <h1>Delete <code>\(code)</code>?</h1>
                <p>The short link stops working at once, on every server, and its click counts are deleted. This cannot be undone.</p>
                <form method="post" action="/console/links/\(code)/delete">\(csrfField(viewer))
                <button type="submit" id="confirm-delete">Delete the link</button> <a class="button secondary" href="/console/links/\(code)">Keep it</a>
                </form>
                """
        )
    }

    // MARK: Association

    struct Verdict {
        let app: AppConfiguration
        let decision: AASADecision
        let route: String?
        let parameters: [(String, String)]
        let routeProblem: String?
    }

    static func association(
        files: [(name: String, path: String, body: String, diagnostics: [AASADiagnostic])],
        url: String,
        verdicts: [Verdict],
        urlProblem: String?,
        viewer: Viewer
    ) -> String {
        let sections = files.map { file in
            let diagnostics =
                file.diagnostics.isEmpty
                ? "<p class=\"ok\">The validator finds no problem.</p>"
                : "<ul class=\"diagnostics\">\(file.diagnostics.map { "<li>\(HTML.escape("\($0)"))</li>" }.joined())</ul>"
            return """
                <section><h2>\(HTML.escape(file.name))</h2>
                <p>Served at <a href="\(HTML.escape(file.path))"><code>\(HTML.escape(file.path))</code></a>.</p>
                \(diagnostics)
                <pre>\(HTML.escape(file.body))</pre></section>
                """
        }.joined(separator: "\n")
        var answer = ""
        if let urlProblem {
            answer = #"<p class="error" role="alert" id="verdict">\#(HTML.escape(urlProblem))</p>"#
        } else if !verdicts.isEmpty {
            answer = verdicts.map { verdict in
                let opens = verdict.decision.verdict == .match
                let route =
                    verdict.route.map { route in
                        let parameters = verdict.parameters.map {
                            "<li><code>\(HTML.escape($0.0))</code> = <code>\(HTML.escape($0.1))</code></li>"
                        }.joined()
                        return "<p>Route <code>\(HTML.escape(route))</code></p>"
                            + (parameters.isEmpty ? "" : "<ul class=\"parameters\">\(parameters)</ul>")
                    } ?? verdict.routeProblem.map { "<p>No route of the app's manifest: \(HTML.escape($0))</p>" } ?? ""
                return """
                    <section class="verdict" id="verdict"><h3>\(HTML.escape(verdict.app.displayName)) (<code>\(HTML.escape(verdict.app.appID))</code>)</h3>
                    <p class="\(opens ? "ok" : "error")"><strong>\(opens ? "Opens the app" : "Does not open the app")</strong> (\(verdict.decision.verdict.rawValue))</p>
                    <ol class="trace">\(verdict.decision.trace.map { "<li>\(HTML.escape($0))</li>" }.joined())</ol>
                    \(route)</section>
                    """
            }.joined(separator: "\n")
        }
        return page(
            title: "Association",
            viewer: viewer,
            body: """
                <h1>Association files</h1>
                <form method="get" action="/console/association" role="search">
                <label for="url">Does this URL open the app?</label>
                <input id="url" name="url" type="url" value="\(HTML.escape(url))" placeholder="https://example.com/post/10">
                <button type="submit">Check</button>
                <p class="help">The verdict is the one iOS reaches with the file served here (the matcher follows Apple's rules); devices read Apple's CDN copy, which <code>deeplinks doctor URL</code> compares with it.</p>
                </form>
                \(answer)
                \(sections)
                """
        )
    }

    // MARK: Doctor

    static func doctor(
        url: String,
        referrer: String,
        userAgent: String,
        report: LinkDoctor.Report?,
        problem: String? = nil,
        viewer: Viewer
    ) -> String {
        var answer = problem.map { #"<p class="error" role="alert">\#(HTML.escape($0))</p>"# } ?? ""
        if let report {
            let findings = report.findings.map {
                "<li><code>\(HTML.escape($0.code ?? $0.severity.rawValue))</code>: \(HTML.escape($0.message))</li>"
            }.joined()
            answer = """
                <section id="diagnosis"><h2>\(HTML.escape(report.url))</h2>
                <p class="\(report.opensApp ? "ok" : "error")"><strong>\(report.opensApp ? "Opens the app" : "Opens Safari, because:")</strong></p>
                \(findings.isEmpty ? "" : "<ul class=\"findings\">\(findings)</ul>")
                \(report.notes.isEmpty ? "" : "<ul class=\"notes\">\(report.notes.map { "<li>\(HTML.escape($0))</li>" }.joined())</ul>")
                \(report.trace.isEmpty ? "" : "<h3>The matcher, on the copy devices read</h3><ol class=\"trace\">\(report.trace.map { "<li>\(HTML.escape($0))</li>" }.joined())</ol>")
                \(report.route.map { "<p>Route: <code>\(HTML.escape($0))</code></p>" } ?? "")
                </section>
                """
        }
        return page(
            title: "Why didn't it open?",
            viewer: viewer,
            body: """
                <h1>Why didn't it open the app?</h1>
                <p>Checks a link the way iOS decides it, from what is served now: a mail scanner's rewrite, the domain's association file as iOS fetches it and Apple's CDN copy (what devices read), the matcher on that copy, the app's route, and where the tap happened. The same as <code>deeplinks doctor URL</code>.</p>
                <form method="get" action="/console/doctor">
                <label for="url">The link, as the user got it</label>
                <input id="url" name="url" type="url" required value="\(HTML.escape(url))">
                <label for="referrer">The page it was tapped on (optional)</label>
                <input id="referrer" name="referrer" type="url" value="\(HTML.escape(referrer))">
                <label for="userAgent">The browser's user agent (optional)</label>
                <input id="userAgent" name="userAgent" value="\(HTML.escape(userAgent))">
                <p><button type="submit">Diagnose</button></p>
                </form>
                \(answer)
                """
        )
    }

    // MARK: API keys

    static func keys(
        _ keys: [Operators.APIKey],
        operators: [Operators.Operator],
        audit: [Operators.AuditEvent],
        created: (name: String, secret: String)?,
        error: String?,
        viewer: Viewer
    ) -> String {
        let rows = keys.map { key in
            var state =
                key.revokedAt.map { "revoked \(formatted($0))" }
                    ?? """
                    <form method="post" action="/console/keys/\(key.id)/revoke" class="inline">\(csrfField(viewer))<button class="secondary" type="submit" aria-label="Revoke \(HTML.escape(key.name))">Revoke</button></form>
                    """
            // Revoked or lowered because its operator was removed or lowered: say so.
            if let note = key.note { state += #" <span class="help">\#(HTML.escape(note))</span>"# }
            return """
                <tr><td>\(HTML.escape(key.name))</td><td>\(key.role.rawValue)</td><td><code>\(HTML.escape(key.prefix))…</code></td><td>\(formatted(key.createdAt))\(key.createdBy.map { " by \(HTML.escape($0))" } ?? "")</td><td>\(key.lastUsedAt.map { formatted($0) } ?? "never")</td><td>\(state)</td></tr>
                """
        }.joined(separator: "\n")
        let shown =
            created.map {
                #"<div class="notice" role="status" id="new-key"><p>The key <strong>\#(HTML.escape($0.name))</strong>, shown only now: copy it to where it is used.</p><p><code id="secret">\#(HTML.escape($0.secret))</code></p></div>"#
            } ?? ""
        let people = operators.map { person in
            // No one removes themselves: the last admin cannot lock everyone out.
            let remove =
                person.id == viewer.signedIn.id
                ? "(you)"
                : """
                <form method="post" action="/console/operators/remove" class="inline">\(csrfField(viewer))<input type="hidden" name="email" value="\(HTML.escape(person.email))"><button class="secondary" type="submit" aria-label="Remove \(HTML.escape(person.email))">Remove</button></form>
                """
            let options = OperatorRole.allCases.map {
                "<option\($0 == person.role ? " selected" : "")>\($0.rawValue)</option>"
            }.joined()
            let role =
                person.id == viewer.signedIn.id
                ? person.role.rawValue
                : """
                <form method="post" action="/console/operators/role" class="inline">\(csrfField(viewer))<input type="hidden" name="email" value="\(HTML.escape(person.email))"><select name="role" aria-label="Role of \(HTML.escape(person.email))">\(options)</select> <button class="secondary" type="submit">Set role</button></form>
                """
            return "<tr><td>\(HTML.escape(person.email))</td><td>\(role)</td><td>\(remove)</td></tr>"
        }.joined()
        let roles = OperatorRole.allCases.map { "<option>\($0.rawValue)</option>" }.joined()
        let events = audit.map { event in
            "<tr><td>\(formatted(event.at))</td><td>\(HTML.escape(event.actor))</td><td>\(HTML.escape(event.event))</td><td>\(HTML.escape(event.detail))</td></tr>"
        }.joined()
        return page(
            title: "API keys and operators",
            viewer: viewer,
            body: """
                <h1>API keys and operators</h1>
                \(shown)
                \(error.map { #"<p class="error" role="alert">\#(HTML.escape($0))</p>"# } ?? "")
                <p>Send a key as <code>Authorization: Bearer KEY</code>. A viewer's key reads links and counts; an editor's also changes links; an admin's also manages keys. The configuration's admin key (<code>DEEPLINKS_ADMIN_KEY</code>) is still accepted as an admin's.</p>
                <table id="keys"><thead><tr><th>Name</th><th>Role</th><th>Key</th><th>Created (UTC)</th><th>Last used (UTC)</th><th></th></tr></thead><tbody>\(rows)</tbody></table>
                <h2>New key</h2>
                <form method="post" action="/console/keys">\(csrfField(viewer))
                <label for="name">Name</label><input id="name" name="name" required maxlength="80">
                <label for="role">Role</label><select id="role" name="role">\(roles)</select>
                <p><button type="submit">Create key</button></p>
                </form>
                <h2>Operators</h2>
                <table id="operators"><thead><tr><th>Email</th><th>Role</th><th></th></tr></thead><tbody>\(people)</tbody></table>
                <h3>Add an operator</h3>
                <form method="post" action="/console/operators">\(csrfField(viewer))
                <label for="operator-email">Email</label><input id="operator-email" name="email" type="email" required>
                <label for="operator-role">Role</label><select id="operator-role" name="role">\(roles)</select>
                <label for="operator-password">First password (tell them to keep it secret)</label><input id="operator-password" name="password" type="password" autocomplete="new-password" required>
                <p><button type="submit">Add operator</button></p>
                </form>
                <p class="help">Also with <code>deeplinks operators create|list|role|remove|unlock</code>. A key belongs to the operator who made it: removing an operator ends their sessions and revokes their keys; lowering their role lowers their keys to it. The last admin cannot be removed or demoted.</p>
                <h2>Recent changes</h2>
                <table id="audit"><thead><tr><th>When (UTC)</th><th>Who</th><th>What</th><th></th></tr></thead><tbody>\(events)</tbody></table>
                """
        )
    }

    // MARK: Support

    static func formatted(_ milliseconds: Int64) -> String { formatted(milliseconds, form: false) }

    /// UTC, as `2026-11-27 14:05` (or `2026-11-27T14:05` for a datetime-local field).
    static func formatted(_ milliseconds: Int64, form: Bool) -> String {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(
            format: "%04d-%02d-%02d%@%02d:%02d",
            parts.year ?? 0,
            parts.month ?? 0,
            parts.day ?? 0,
            form ? "T" : " ",
            parts.hour ?? 0,
            parts.minute ?? 0
        )
    }

    /// A datetime-local value (`2026-11-27T14:05`, seconds optional) read as UTC, in milliseconds.
    static func parseDateTime(_ text: String) -> Int64? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        for format in ["yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd'T'HH:mm:ss"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return Int64(date.timeIntervalSince1970 * 1000) }
        }
        return nil
    }

    static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
