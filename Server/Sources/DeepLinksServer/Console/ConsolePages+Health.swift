import Foundation

extension ConsolePages {
    /// The universal-link health page (`/console/health`): requests from iOS that reached a claimed path instead
    /// of opening the app, per domain and cause over the range the form names, what each cause means and what fixes
    /// it, Apple's CDN comparisons, and a CSV export.
    static func health(_ report: LinkHealthReport, viewer: Viewer) -> HTML {
        let rows: HTML =
            report.rows.isEmpty
            ? "<tr><td colspan=\"4\">No request from iOS reached a claimed path in this range.</td></tr>"
            : report.rows.map { row -> HTML in
                let cause = FallThroughCause(rawValue: row.cause)
                let name = row.detail.isEmpty ? row.cause : "\(row.cause) (\(row.detail))"
                return """
                    <tr><td>\(row.domain)</td><th scope="row"><code>\(name)</code></th><td class="number">\(row.requests)</td><td>\(cause?.fix ?? "")</td></tr>
                    """
            }.joined()
        let causes: HTML = FallThroughCause.allCases.map {
            "<dt><code>\($0.rawValue)</code></dt><dd>\($0.meaning) <em>Fix:</em> \($0.fix)</dd>" as HTML
        }.joined()
        func time(_ milliseconds: Int64?) -> String {
            milliseconds.map {
                ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double($0) / 1000))
            } ?? "no"
        }
        let checks: HTML =
            report.cdn.isEmpty
            ? "<tr><td colspan=\"4\">Not compared yet (every --apple-cdn-check-minutes; off with --analytics off).</td></tr>"
            : report.cdn.map { check -> HTML in
                """
                <tr><th scope="row">\(check.domain)</th><td>\(time(check.checkedAt))</td><td>\(check.differsSince == nil ? "the same" : "differs since \(time(check.differsSince))")</td><td>\(time(check.notifiedAt))</td></tr>
                """
            }.joined()
        return page(
            title: "Universal-link health",
            viewer: viewer,
            body: """
                <h1>Universal-link health</h1>
                \(rangeForm("/console/health", from: report.from, to: report.to))
                <p>When a universal link opens the app, iOS never asks this server. So every request from iOS (or a preview fetcher) on a path an association file served here claims is a tap that did not open the app; each is counted under the first cause that explains it, per domain and day, with no row per visitor.</p>
                <table id="health"><caption>From \(report.from) to \(report.to) (UTC)</caption><thead><tr><th scope="col">Domain</th><th scope="col">Cause</th><th scope="col">Requests</th><th scope="col">What fixes it</th></tr></thead><tbody>\(rows)</tbody></table>
                <p><a class="export" id="export-health" href="/console/health.csv?from=\(report.from)&to=\(report.to)" download>Export CSV</a></p>
                <h2>Apple's CDN copy of the association file</h2>
                <table id="cdn"><thead><tr><th scope="col">Domain</th><th scope="col">Last compared</th><th scope="col">Copy</th><th scope="col">Webhook sent</th></tr></thead><tbody>\(checks)</tbody></table>
                <h2>The causes</h2>
                <dl id="causes">\(causes)</dl>
                """
        )
    }
}
