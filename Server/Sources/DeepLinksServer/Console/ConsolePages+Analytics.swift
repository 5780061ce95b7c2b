import Foundation

/// The analytics pages: a link's (`/console/links/{code}/analytics`) and every link's (`/console/analytics`). A
/// form for the range and interval (a GET: the page's address is the report's), the series as a chart with its
/// table (the chart is an image with a text alternative; the table holds every number), a table per dimension,
/// and CSV exports of each.
extension ConsolePages {
    /// The dimensions each page shows a table of.
    static let analyticsDimensions: [AnalyticsReport.Dimension] = [
        .visitorClass, .country, .region, .city, .platform, .os, .browser, .inApp, .referrer, .source, .rule,
    ]

    static func analytics(
        _ report: AnalyticsReport,
        breakdowns: [AnalyticsReport.Breakdown],
        viewer: Viewer
    ) -> HTML {
        let base = report.code.map { "/console/links/\($0)/analytics" } ?? "/console/analytics"
        let range = "from=\(report.from)&to=\(report.to)&interval=\(report.interval.rawValue)"
        let title = report.code.map { "Analytics of \($0)" } ?? "Analytics of every link"
        let heading: HTML =
            report.code.map { "<h1>Analytics of <a href=\"/console/links/\($0)\"><code>\($0)</code></a></h1>" }
            ?? "<h1>Analytics of every link</h1>"
        let intervals: HTML = AnalyticsReport.Interval.allCases.map { interval in
            let selected = interval == report.interval ? " selected" : ""
            return "<option value=\"\(interval.rawValue)\"\(selected)>By \(interval.rawValue)</option>" as HTML
        }.joined()
        let totals = report.totals
        let tables: HTML = breakdowns.map { breakdown in
            let id = breakdown.dimension.rawValue
            let rows: HTML =
                breakdown.rows.isEmpty
                ? "<tr><td colspan=\"4\">None in this range</td></tr>"
                : breakdown.rows.map {
                    "<tr><td>\($0.value)</td><td class=\"number\">\($0.people)</td><td class=\"number\">\($0.scanners)</td><td class=\"number\">\($0.previews)</td></tr>"
                        as HTML
                }.joined()
            return """
                <section><h2 id="h-\(id)">\(breakdown.dimension.label)</h2>
                <table id="by-\(id)" aria-labelledby="h-\(id)"><thead><tr><th scope="col">\(breakdown.dimension.label)</th><th scope="col">People</th><th scope="col">Scanners</th><th scope="col">Previews</th></tr></thead><tbody>\(rows)</tbody></table>
                <p><a class="export" href="\(base).csv?\(range)&breakdown=\(id)" download>Export CSV</a></p></section>
                """
        }.joined()
        let top: HTML =
            report.links.map { links in
                let rows: HTML =
                    links.isEmpty
                    ? "<tr><td colspan=\"3\">No clicks in this range</td></tr>"
                    : links.map {
                        "<tr><td><a href=\"/console/links/\($0.code)/analytics?\(range)\"><code>\($0.code)</code></a></td><td class=\"number\">\($0.clicks)</td><td class=\"number\">\($0.visitors)</td></tr>"
                            as HTML
                    }.joined()
                return """
                    <h2 id="h-links">Top links</h2>
                    <table id="top-links" aria-labelledby="h-links"><thead><tr><th scope="col">Link</th><th scope="col">Clicks by people</th><th scope="col">Visitors</th></tr></thead><tbody>\(rows)</tbody></table>
                    """
            } ?? .empty
        return page(
            title: title,
            viewer: viewer,
            body: """
                \(heading)
                \(rangeForm(base, from: report.from, to: report.to, extra: "<label>Interval <select name=\"interval\">\(intervals)</select></label>"))
                <p id="totals">\(totals.people) clicks by people from \(totals.visitors) visitors; \(totals.scanners) by mail security scanners and \(totals.previews) by link-preview fetchers, counted apart. A visitor is a browser on an address for a day: the same person on two days, or on a new address, counts again.</p>
                \(seriesChart(report))
                <p><a class="export" id="export-series" href="\(base).csv?\(range)" download>Export the series as CSV</a></p>
                \(top)
                <div class="columns">\(tables)</div>
                """
        )
    }

    /// The series as bars of people's clicks (an SVG with a text alternative), then the same numbers as a table.
    static func seriesChart(_ report: AnalyticsReport) -> HTML {
        let points = report.series
        let height = 160
        let peak = max(1, points.map(\.people).max() ?? 1)
        let slot = 100.0 / Double(max(points.count, 1))
        let labelEvery = max(1, points.count / 12)
        var bars: [HTML] = []
        for (index, point) in points.enumerated() {
            let bar = Int(Double(point.people) / Double(peak) * Double(height))
            let x = String(format: "%.3f%%", slot * Double(index) + slot * 0.1)
            bars.append(
                #"<rect class="bar" data-start="\#(point.start)" data-clicks="\#(point.people)" x="\#(x)" y="\#(height - bar)" width="\#(String(format: "%.3f%%", slot * 0.8))" height="\#(bar)" fill="rgb(0,102,204)"><title>\#(point.start): \#(point.people) clicks, \#(point.visitors) visitors</title></rect>"#
            )
            if index % labelEvery == 0 {
                let label = report.interval == .hour ? point.start.suffix(2) + "h" : String(point.start.suffix(5))
                bars.append(
                    #"<text x="\#(String(format: "%.3f%%", slot * (Double(index) + 0.5)))" y="\#(height + 14)" font-size="10" text-anchor="middle">\#(label)</text>"#
                )
            }
        }
        let rows: HTML = points.map {
            "<tr><td>\($0.start)</td><td class=\"number\">\($0.people)</td><td class=\"number\">\($0.visitors)</td><td class=\"number\">\($0.scanners)</td><td class=\"number\">\($0.previews)</td></tr>"
                as HTML
        }.joined()
        let unit = report.interval.rawValue
        return """
            <figure id="series"><svg role="img" aria-labelledby="series-caption" width="100%" height="\(height + 20)" shape-rendering="crispEdges">\(bars.joined())</svg>
            <figcaption id="series-caption">Clicks by people per \(unit), \(report.from) to \(report.to) (UTC): \(report.totals.people) in all, at most \(points.map(\.people).max() ?? 0) in one \(unit). The table below holds every number.</figcaption></figure>
            <details><summary>The series as a table</summary>
            <table id="series-table"><thead><tr><th scope="col">\(unit.capitalized)</th><th scope="col">People</th><th scope="col">Visitors</th><th scope="col">Scanners</th><th scope="col">Previews</th></tr></thead><tbody>\(rows)</tbody></table></details>
            """
    }
}

extension ConsolePages {
    /// The funnel page: a link's (`/console/links/{code}/funnel`) or every link's (`/console/funnel`), over the
    /// range the form names: each step with its count, the rates between them, and a CSV export.
    static func funnel(_ report: FunnelReport, viewer: Viewer) -> HTML {
        let base = report.code.map { "/console/links/\($0)/funnel" } ?? "/console/funnel"
        let title = report.code.map { "Funnel of \($0)" } ?? "Funnel of every link"
        let heading: HTML =
            report.code.map { "<h1>Funnel of <a href=\"/console/links/\($0)\"><code>\($0)</code></a></h1>" }
            ?? "<h1>Funnel of every link</h1>"
        func percent(_ rate: Double?) -> String { rate.map { String(format: "%.1f %%", $0 * 100) } ?? "none yet" }
        var steps: [(String, Int64)] = [
            ("Clicks by people", report.clicks.people), ("Clicks by mail security scanners", report.clicks.scanners),
            ("Fetches by link-preview bots", report.clicks.previews),
            ("Opens in the app by universal link", report.opens.universalLink),
            ("Opens in the app by custom scheme", report.opens.customScheme),
            ("Opens in the app by deferred link", report.opens.deferred),
            ("Installs (deferred links redeemed)", report.installs),
        ]
        steps += report.goals.map { ("Goal: \($0.name)", $0.count) }
        let rows: HTML = steps.map {
            "<tr><th scope=\"row\">\($0.0)</th><td class=\"number\">\($0.1)</td></tr>" as HTML
        }
        .joined()
        let rates: HTML = [
            ("Taps that reached the app (opens over opens and people's clicks)", percent(report.rates.appShare)),
            ("Installs per click by people", percent(report.rates.installsPerClick)),
            ("Goals per open", percent(report.rates.goalsPerOpen)),
        ].map { "<tr><th scope=\"row\">\($0.0)</th><td class=\"number\">\($0.1)</td></tr>" as HTML }.joined()
        return page(
            title: title,
            viewer: viewer,
            body: """
                \(heading)
                \(rangeForm(base, from: report.from, to: report.to))
                <p>A tap the server saw is a click; a universal link that opened the app never reaches the server, so the app reports it (its reporter, opt-in). Clicks and opens are two ends of the same taps, not steps one after the other.</p>
                <table id="funnel"><caption>From \(report.from) to \(report.to) (UTC)</caption><tbody>\(rows)</tbody></table>
                <table id="rates"><caption>Rates</caption><tbody>\(rates)</tbody></table>
                <p><a class="export" id="export-funnel" href="\(base).csv?from=\(report.from)&to=\(report.to)" download>Export CSV</a></p>
                """
        )
    }
}

extension ConsolePages {
    /// The range of an analytics or funnel page: a GET form, so the page's address is its report's.
    static func rangeForm(_ action: String, from: String, to: String, extra: HTML = .empty) -> HTML {
        """
        <form method="get" action="\(action)" class="inline" id="range">
        <label>From <input type="date" name="from" value="\(from)"></label>
        <label>To <input type="date" name="to" value="\(to)"></label>
        \(extra)<button type="submit">Show</button></form>
        """
    }
}
