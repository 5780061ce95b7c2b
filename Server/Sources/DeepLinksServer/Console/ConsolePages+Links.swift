import AppSiteAssociation
import DeepLinks
import Foundation
import Hummingbird

/// The links' pages: the list, a link with its counts and QR code, the form, the import, the deletion; and the
/// date and form helpers they share.
extension ConsolePages {
    static func links(
        _ rows: [(link: SmartLink, clicks: Int64)],
        query: String,
        next: String?,
        notice: String?,
        viewer: Viewer,
        policy: LinkPolicy
    ) -> HTML {
        let body: HTML = rows.map { row -> HTML in
            let link = row.link
            let expiry = link.expiresAt.map { formatted($0) } ?? ""
            return """
                <tr><td><a href="/console/links/\(link.code)"><code>\(link.code)</code></a></td><td>\(link.route.map { "<code>\($0)</code>" as HTML } ?? "web link")</td><td>\(link.destinations.fallback ?? link.destinations.desktop ?? "")</td><td class="number">\(row.clicks)</td><td>\(expiry)</td></tr>
                """
        }.joined(separator: "\n")
        let edits: HTML =
            viewer.signedIn.role >= .editor
            ? #"<a class="button" href="/console/new">New link</a> <a class="button secondary" href="/console/import">Import links</a> "#
            : ""
        let create: HTML =
            #"<p>\#(edits)<a class="button secondary" href="/console/export.csv" download>Export links (CSV)</a></p>"#
        let search: HTML = query.isEmpty ? "" : "q=\(formEncoded(query))&amp;"
        let more: HTML =
            next.map {
                #"<p><a id="next-page" href="/console/links?\#(search)after=\#(formEncoded($0))">Next page</a></p>"#
            } ?? ""
        return page(
            title: "Links",
            viewer: viewer,
            body: """
                <h1>Links on <code>\(policy.linkDomain)</code></h1>
                \(notice.map { #"<p class="notice" role="status">\#($0)</p>"# as HTML } ?? "")
                <form method="get" action="/console/links" role="search">
                <label for="q">Search codes, routes and destinations</label>
                <input id="q" name="q" type="search" value="\(query)">
                <button type="submit">Search</button>
                </form>
                \(create)
                <table id="links"><thead><tr><th>Code</th><th>Route</th><th>Web destination</th><th>Clicks</th><th>Expires (UTC)</th></tr></thead>
                <tbody>\(rows.isEmpty ? #"<tr><td colspan="5">No links\#(query.isEmpty ? "" : " match")</td></tr>"# : body)</tbody></table>
                \(more)
                """
        )
    }

    static func link(
        _ link: SmartLink,
        rows: [LinkStore.ClickRow],
        referrers: [(host: String, clicks: Int64)],
        qr: HTML,
        ruleClicks: [(rule: String, variant: String?, clicks: Int64)],
        now: Int64,
        viewer: Viewer,
        policy: LinkPolicy
    ) -> HTML {
        let url = policy.shortURL(link.code)
        let ruleRows: HTML = ruleClicks.map { row -> HTML in
            let when = link.rules?.first { $0.name == row.rule }.map { rule in
                rule.when.items.flatMap(\.formFields).compactMap { $0.value.isEmpty ? nil : "\($0.field) \($0.value)" }
                    .joined(separator: "; ")
            }
            return
                "<tr><td>\(row.rule)</td><td>\(row.variant ?? "")</td><td>\(when ?? "removed since")</td><td class=\"number\">\(row.clicks)</td></tr>"
        }.joined()
        let warnings = LinkTrackingProtection.warnings(link) + policy.warnings(link)
        let warned: HTML =
            warnings.isEmpty
            ? ""
            : "<section id=\"warnings\" aria-labelledby=\"warnings-title\"><h2 id=\"warnings-title\">Warnings</h2><ul>\(warnings.map { "<li>\($0)</li>" as HTML })</ul></section>"
        let rules: HTML =
            ruleClicks.isEmpty
            ? ""
            : "<h2>Rules</h2><table id=\"rules\"><thead><tr><th scope=\"col\">Rule</th><th scope=\"col\">Variant</th><th scope=\"col\">When</th><th scope=\"col\">Clicks</th></tr></thead><tbody>\(ruleRows)</tbody></table>"
        var perPlatform: [String: Int64] = [:]
        var perSource: [String: Int64] = [:]
        for row in rows where !row.bot {
            perPlatform[row.platform, default: 0] += row.clicks
            perSource[row.source, default: 0] += row.clicks
        }
        let platforms: HTML = perPlatform.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { entry -> HTML in
            "<tr><td>\(entry.key)</td><td class=\"number\">\(entry.value)</td></tr>"
        }.joined()
        let sources: HTML = perSource.sorted { $0.key < $1.key }.map { entry -> HTML in
            "<tr><td>\(entry.key == ClickSource.qr.rawValue ? "QR code" : "the link")</td><td class=\"number\">\(entry.value)</td></tr>"
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
            ("App Store campaign", link.campaign),
        ]
        let details: HTML = fields.compactMap { name, value in
            value.map { "<tr><th scope=\"row\">\(name)</th><td>\($0)</td></tr>" as HTML }
        }.joined()
        let sites: HTML = referrers.map {
            "<tr><td>\($0.host)</td><td class=\"number\">\($0.clicks)</td></tr>" as HTML
        }.joined()
        let code = link.code
        let actions: HTML =
            viewer.signedIn.role >= .editor
            ? #"<p><a class="button" id="edit" href="/console/links/\#(code)/edit">Edit</a> <a class="button secondary" id="delete" href="/console/links/\#(code)/delete">Delete</a></p>"#
            : ""
        return page(
            title: link.code,
            viewer: viewer,
            body: """
                <h1>Link <code>\(code)</code></h1>
                <p><a href="\(url)">\(url)</a></p>
                \(actions)
                <table id="details">\(details)</table>
                \(warned)
                <h2>Clicks</h2>
                <p><a class="button secondary" id="analytics" href="/console/links/\(code)/analytics">Analytics: visitors, hours, countries, devices, scanners</a> <a class="button secondary" id="funnel" href="/console/links/\(code)/funnel">Funnel: opens, installs, goals</a></p>
                \(SmartLinkPages.statsBody(link, rows: rows))
                <div class="columns">
                <section><h2>Platforms</h2><table id="platforms"><thead><tr><th>Platform</th><th>Clicks</th></tr></thead><tbody>\(platforms)</tbody></table></section>
                <section><h2>Sources</h2><table id="sources"><thead><tr><th>From</th><th>Clicks</th></tr></thead><tbody>\(sources)</tbody></table></section>
                <section><h2>Referrers</h2><table id="referrers"><thead><tr><th>Site</th><th>Clicks</th></tr></thead><tbody>\(referrers.isEmpty ? #"<tr><td colspan="2">None sent</td></tr>"# : sites)</tbody></table></section>
                </div>
                <h2>QR code</h2>
                <figure id="qr">\(qr)<figcaption>Scans open <code>\(url)?\(ClickQuery.qrTag)</code>, counted apart. Download: <a href="/console/links/\(code)/qr.svg" download>SVG</a>, <a href="/console/links/\(code)/qr.png" download>PNG</a></figcaption></figure>
                \(rules)
                <h2>Where each platform goes</h2>
                \(reach(link, policy: policy, now: now))
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
        policy: LinkPolicy,
        reach: HTML? = nil
    ) -> HTML {
        func field(_ name: String, _ label: String, type: String = "text", help: String? = nil) -> HTML {
            let id = name.replacingOccurrences(of: ".", with: "-")
            let errors = problems[name] ?? []
            let described = [help.map { _ in "\(id)-help" }, errors.isEmpty ? nil : "\(id)-error"].compactMap { $0 }
            return """
                <label for="\(id)">\(label)</label>
                <input id="\(id)" name="\(name)" type="\(type)"\(type == "datetime-local" ? " step=\"any\"" : "") value="\(values[name] ?? "")"\(described.isEmpty ? "" : " aria-describedby=\"\(described.joined(separator: " "))\"")\(errors.isEmpty ? "" : " aria-invalid=\"true\"")>
                \(help.map { "<p class=\"help\" id=\"\(id)-help\">\($0)</p>" } ?? "")
                \(errors.isEmpty ? "" : "<p class=\"error\" id=\"\(id)-error\">\(HTML.lines(errors))</p>")
                """
        }
        let general: HTML =
            problems[""].map {
                #"<p class="error" role="alert">\#(HTML.lines($0))</p>"#
            } ?? ""
        let summary: HTML =
            problems.isEmpty
            ? ""
            : #"<p class="error" role="alert" id="form-error">The link was not saved: see the fields marked below.</p>"#
        let app: HTML =
            policy.apps.count > 1
            ? """
            <label for="app">App</label>
            <select id="app" name="app">\(policy.apps.map { "<option value=\"\($0.bundleID)\"\(values["app"] == $0.bundleID ? " selected" : "")>\($0.displayName)</option>" as HTML })</select>
            \(problems["app"].map { "<p class=\"error\">\(HTML.lines($0))</p>" } ?? "")
            """ : ""
        let action = code.map { "/console/links/\($0)/edit" } ?? "/console/new"
        let codeField: HTML =
            code == nil
            ? field("code", "Code", help: "3 to 64 letters, digits, - or _; left empty, an unguessable code is made")
            : ""
        return page(
            title: code.map { "Edit \($0)" } ?? "New link",
            viewer: viewer,
            body: """
                <h1>\(code.map { "Edit <code>\($0)</code>" } ?? "New link")</h1>
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
                \(field("campaign", "App Store campaign", help: "The ct App Store Connect attributes installs to: up to 30 characters; without it, the link's code"))
                <p><button type="submit" id="save">Save</button></p>
                \(rulesEditor(values: values, problems: problems))
                \(reach.map { "<section aria-labelledby=\"reach-title\"><h2 id=\"reach-title\">Where each platform goes</h2>\($0)</section>" } ?? "")
                <p><button type="submit">Save</button> <a class="button secondary" href="\(code.map { "/console/links/\($0)" } ?? "/console/links")">Cancel</a></p>
                </form>
                """
        )
    }

    /// Another system's export to upload (`/console/import`), with `problem` when the last upload could not be read.
    static func importForm(values: [String: String], problem: String? = nil, viewer: Viewer) -> HTML {
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
        func options<T: RawRepresentable>(_ name: String, _ choices: [(T, String)]) -> HTML
        where T.RawValue == String {
            choices.map { value, label -> HTML in
                let selected = values[name] == value.rawValue ? " selected" : ""
                return #"<option value="\#(value.rawValue)"\#(selected)>\#(label)</option>"#
            }.joined()
        }
        let error: HTML = problem.map { #"<p class="error" id="import-error" role="alert">\#($0)</p>"# } ?? ""
        return page(
            title: "Import links",
            viewer: viewer,
            body: """
                <h1>Import links</h1>
                <p>Each row becomes a smart link that keeps its code, checked as a new link is. The whole file is read first;
                the report says what became of each row.</p>
                \(error)
                <form method="post" action="/console/import?csrf=\(formEncoded(viewer.csrf))" enctype="multipart/form-data">
                <label for="file">File (CSV, UTF-8, at most \(LinkTransfer.maxImportSize >> 20) MiB)</label>
                <input id="file" name="file" type="file" accept=".csv,text/csv" required>
                <label for="format">Format</label>
                <select id="format" name="format">\(options("format", formats))</select>
                <label for="columns">Columns the file names otherwise (optional)</label>
                <input id="columns" name="columns" type="text" value="\(values["columns"] ?? "")" aria-describedby="columns-help">
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
    static func importReport(_ report: LinkTransfer.ImportReport, file: String?, dryRun: Bool, viewer: Viewer)
        -> HTML
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
        let rows = report.entries.prefix(shown).map { entry -> HTML in
            let code: HTML =
                entry.code.map { code in
                    entry.status == "imported" || entry.status == "replaced"
                        ? #"<a href="/console/links/\#(code)"><code>\#(code)</code></a>"#
                        : "<code>\(code)</code>"
                } ?? ""
            return """
                <tr class="\(entry.status)"><td class="number">\(entry.line)</td><td>\(code)</td><td>\(entry.status)</td><td>\(HTML.lines(entry.problems))</td></tr>
                """
        }.joined(separator: "\n")
        let more: HTML =
            report.entries.count > shown
            ? "<p>The first \(shown) of \(report.entries.count) rows are shown; the API's report has them all.</p>" : ""
        return page(
            title: "Import report",
            viewer: viewer,
            body: """
                <h1>Import of \(file.map { "<code>\($0)</code>" } ?? "a file")</h1>
                <p class="notice" role="status" id="import-summary">\(outcome) \(summary.isEmpty ? "The file has no rows." : summary + ".")\(report.format.map { " Read as \($0.rawValue)." } ?? "")</p>
                <table id="import-rows"><thead><tr><th>Line</th><th>Code</th><th>Outcome</th><th>Problems</th></tr></thead>
                <tbody>\(rows)</tbody></table>
                \(more)
                <p><a class="button" href="/console/import">Import another file</a> <a class="button secondary" href="/console/links">Links</a></p>
                """
        )
    }

    static func confirmDelete(_ link: SmartLink, viewer: Viewer) -> HTML {
        let code = link.code
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

    // MARK: Support

    static func formatted(_ milliseconds: Int64) -> String { UTCDate.formatted(milliseconds, form: false) }

    static func formatted(_ milliseconds: Int64, form: Bool) -> String { UTCDate.formatted(milliseconds, form: form) }

    static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
