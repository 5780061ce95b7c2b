import AppSiteAssociation
import Foundation
import Hummingbird

/// The HTML of smart links: landing page, Open Graph page for preview fetchers, `?d=1` decisions, errors.
/// The landing page works by plain links (a tap is the user gesture iOS wants); its one script only adds
/// the deferred link to the App Store button.
enum SmartLinkPages {
    static func html(_ status: HTTPResponse.Status, _ body: HTML) -> Response {
        Response.html(status, body, security: .smartLink)
    }

    /// `GET /` on a server: what it serves, for whom, and where to check it. Nothing secret: the same facts
    /// the association file publishes.
    static func start(_ policy: LinkPolicy) -> HTML {
        let apps = policy.apps.map { app -> HTML in
            "<li><strong>\(app.displayName)</strong>: <code>\(app.appID)</code> on \(app.domains.map { "<code>\($0)</code>" as HTML }.joined(separator: ", "))</li>"
        }.joined(separator: "\n")
        let reset: HTML =
            policy.primary.passwordReset.map {
                "<li><a href=\"\($0.path)\">\($0.path)</a>: the reset page people reach without the app</li>\n"
            } ?? ""
        return page(
            title: "deeplinks",
            body: """
                <h1>deeplinks is running</h1>
                <p>This server hosts the association files, the smart links of <code>\(policy.linkDomain)</code> and the password-reset journey for:</p>
                <ul>\(apps)</ul>
                <h2>Check it</h2>
                <ul>
                <li><a href="/.well-known/apple-app-site-association">apple-app-site-association</a> and <a href="/.well-known/assetlinks.json">assetlinks.json</a>, as iOS and Android fetch them</li>
                <li><a href="/healthz">/healthz</a>: the database (with a write), the mail queue, warnings</li>
                <li><a href="/metrics">/metrics</a>: Prometheus text (loopback and allowed networks only)</li>
                \(reset)</ul>
                <h2>Docs</h2>
                <p>The repository's docs/production.md (running, replicas, backups, key rotation), and <code>deeplinks --help</code>:
                <code>deeplinks aasa match --explain</code> tells whether a URL opens the app, and why.</p>
                """
        )
    }

    static func page(title: String, head: HTML = .empty, body: HTML) -> HTML {
        PageShell.document(title: title, stylesheet: "/assets/site.css", head: head, body: "<main>\n\(body)\n</main>")
    }

    static func openGraphTags(_ link: SmartLink, url: String, appName: String) -> HTML {
        var tags: [HTML] = [
            #"<meta property="og:type" content="website">"#,
            #"<meta property="og:url" content="\#(url)">"#,
            #"<meta property="og:title" content="\#(link.preview.title ?? appName)">"#,
            #"<meta name="twitter:card" content="\#(link.preview.image == nil ? "summary" : "summary_large_image")">"#,
        ]
        if let description = link.preview.description {
            tags.append(#"<meta property="og:description" content="\#(description)">"#)
            tags.append(#"<meta name="description" content="\#(description)">"#)
        }
        if let image = link.preview.image {
            tags.append(#"<meta property="og:image" content="\#(image)">"#)
        }
        return tags.joined(separator: "\n")
    }

    static func openGraph(_ link: SmartLink, url: String, appName: String) -> HTML {
        page(
            title: link.preview.title ?? appName,
            head: openGraphTags(link, url: url, appName: appName),
            body:
                "<h1>\(link.preview.title ?? appName)</h1><p>\(link.preview.description ?? "")</p>"
        )
    }

    /// For iPhone and iPad: the Smart App Banner (`app-argument` = the link) opens the installed app with
    /// the link; "Open in the app" is the app's universal link (cross-domain from the link domain, so iOS
    /// hands it to the app); without the app, the App Store and the web destination. No custom scheme: iOS
    /// shows "invalid address" for one that no installed app claims.
    /// - Parameters:
    ///   - inAppBrowser: the social app whose browser shows the page: it keeps universal links to itself, so
    ///     the page first says how to open it in Safari, where the banner and the button work.
    ///   - stored: whether the link is stored (it has a code to defer); a Firebase long link is not.
    static func landing(
        _ link: SmartLink,
        policy routes: LinkPolicy,
        web: String?,
        appArgument: String? = nil,
        inAppBrowser: InAppBrowser? = nil,
        stored: Bool = true,
        platform: ClientPlatform = .iPhone
    ) -> HTML {
        let app = routes.app(for: link)
        let name = app.displayName
        let short = appArgument ?? routes.shortURL(link.code)
        var head = openGraphTags(link, url: short, appName: app.displayName)
        var actions: [HTML] = [
            #"<p><a class="button" href="\#(routes.appURL(link))">Open in the \#(name) app</a></p>"#
        ]
        if platform == .android, let android = app.android {
            actions.append(
                #"<p><a class="button secondary" href="\#(android.playStoreURL)" rel="noopener">Get \#(name) on Google Play</a></p>"#
            )
        } else if let store = app.appStoreID, let storeURL = app.appStoreURL(campaign: link.campaign ?? link.code) {
            let affiliate: HTML = app.bannerCampaign(link.campaign ?? link.code).map { ", affiliate-data=\($0)" } ?? ""
            head +=
                "\n"
                + #"<meta name="apple-itunes-app" content="app-id=\#(store)\#(affiliate), app-argument=\#(short)">"#
            // deferred.js leaves the link on the pasteboard on the way (DeferredLinks); without script, a plain link.
            let deferred: HTML = stored ? #" id="get-app" data-deferred="/v1/links/\#(link.code)/deferred""# : ""
            actions.append(
                #"<p><a class="button secondary"\#(deferred) href="\#(storeURL)" rel="noopener">Get \#(name) on the App Store</a></p>"#
            )
            if stored { head += "\n" + #"<script src="/assets/deferred.js" defer></script>"# }
        }
        if let web {
            actions.append(#"<p><a href="\#(web)" rel="noopener">Continue on the web</a></p>"#)
        }
        if let inAppBrowser {
            actions.insert(
                #"<p class="notice">\#(inAppBrowser.rawValue) opens links in its own browser, which cannot open the \#(name) app. Tap ••• (or the share button) and choose “Open in Safari” (or “Open in browser”), then “Open in the \#(name) app”.</p>"#,
                at: 0
            )
        }
        return page(
            title: link.preview.title ?? app.displayName,
            head: head,
            body: "<h1>\(link.preview.title ?? app.displayName)</h1>\n"
                + (link.preview.description.map { "<p>\($0)</p>\n" } ?? "")
                + actions.joined(separator: "\n")
        )
    }

    /// For a Mac agent without a client hint: platform.js comes back with `_platform=ipad` or `mac` in the
    /// query; without script, as a Mac.
    static func probe(code: String, query: String?) -> HTML {
        let back = "/\(code)?" + (query.map { $0 + "&" } ?? "") + "_platform=mac"
        return page(
            title: "Opening…",
            head: #"<script src="/assets/platform.js" defer></script>"# + "\n"
                + #"<noscript><meta http-equiv="refresh" content="0;url=\#(back)"></noscript>"#,
            body: "<p>Opening…</p>"
        )
    }

    /// `?d=1`: what each platform gets, and whether iOS would open the app, FDL-style.
    /// What `?d=1` shows: each platform's outcome (with this request's language, query, country and time when
    /// the link has rules), the rules as they judge this very request, and the checks.
    /// - Parameter visitor: this request's facts as one platform or another (``RuleVisitor``).
    static func decisions(
        _ link: SmartLink,
        policy routes: LinkPolicy,
        now: Int64,
        you: ClientPlatform,
        health: String? = nil,
        visitor: (ClientPlatform) -> RuleVisitor
    ) -> HTML {
        var rows: [HTML] = []
        for platform in ClientPlatform.allCases {
            let outcome = routes.outcome(link, platform: platform, now: now) { visitor(platform) }
            rows.append("<tr><th>\(platform.rawValue)</th><td>\(outcome)</td></tr>")
        }
        var traced: [HTML] = []
        if let rules = link.rules {
            // The rules' one evaluation, told which condition each rule passed over failed on.
            var yours = visitor(you)
            var verdicts = Array(repeating: "not tried: an earlier rule matched", count: rules.count)
            let outcome = link.ruleOutcome(&yours) { index, condition, visitor in
                verdicts[index] = "does not match: \(condition.miss(&visitor))"
            }
            switch outcome {
            case .hit(let hit): verdicts[hit.index] = "matches: this is where you go"
            case .needsPlatform(let index):
                verdicts[index] = "needs to know whether you are on an iPad or a Mac (the touch check asks)"
            case .none: break
            }
            traced = rules.enumerated().map { index, rule -> HTML in
                "<li><strong>\(index + 1). \(rule.name)</strong>: \(verdicts[index])</li>"
            }
            let facts = RuleConditions.all.compactMap { $0.fact(&yours) }.joined(separator: ", ")
            traced.insert("<h2>The rules, for this request (\(facts))</h2><ul>", at: 0)
            traced.append("</ul>")
        }
        let inApp = InAppBrowser.allCases.map(\.rawValue).joined(separator: ", ")
        rows.append(
            link.route == nil
                ? "<tr><th>any platform in an in-app browser (\(inApp))</th><td>the same 302 as its platform: a web page opens there too</td></tr>"
                : "<tr><th>iphone or ipad in an in-app browser (\(inApp))</th><td>landing page that first says how to open it in Safari: those browsers keep universal links to themselves</td></tr>"
        )
        var checks: [HTML] = []
        let app = routes.app(for: link)
        let opened = link.route == nil ? [] : [("Open in the app", routes.appURL(link))]
        for (label, url) in [("the short link", routes.shortURL(link.code))] + opened {
            let decision = routes.opens(app, url)
            let verdict =
                decision.verdict == .match ? "opens the app" : "does not open the app (\(decision.verdict.rawValue))"
            checks.append("<li>\(label) <code>\(url)</code>: iOS \(verdict)</li>")
        }
        let landing = routes.settings.landingDomain ?? routes.linkDomain
        if landing == routes.linkDomain, link.route != nil {
            checks.append(
                "<li>the landing page is on the link domain: a tap there stays on one domain, so iOS opens Safari, not the app. Set a landing domain.</li>"
            )
        }
        if let health { checks.append("<li>\(health)</li>") }
        if link.expiresAt != nil {
            // When is the console's to show: this page is public.
            checks.append(
                "<li>has an expiry date (the console shows it), then goes to \(link.expiredURL ?? "an 'expired' page")</li>"
            )
        }
        return page(
            title: "Link \(link.code): decisions",
            body: """
                <h1>Link <code>\(link.code)</code></h1>
                <p>\(link.route.map { "Opens <code>\($0)</code> in \(app.displayName) (<code>\(app.bundleID)</code>)." } ?? "A web link: it never offers the app; each platform goes to its destination, else <code>\(link.destinations.fallback ?? "")</code>.")</p>
                <table>\(rows.joined())</table>
                \(traced.joined())
                <ul>\(checks.joined())</ul>
                """
        )
    }

    /// Clicks per day as an SVG bar chart drawn here (no script, so the page keeps the strict CSP), with
    /// the numbers in a table beside it for screen readers.
    static func stats(_ link: SmartLink, rows: [LinkStore.ClickRow]) -> HTML {
        page(
            title: "Clicks on \(link.code)",
            body: "<h1>Clicks on <code>\(link.code)</code></h1>\n" + statsBody(link, rows: rows)
        )
    }

    /// The chart and its table (also on the console's link page).
    static func statsBody(_ link: SmartLink, rows: [LinkStore.ClickRow]) -> HTML {
        var perDay: [String: (people: Int64, bots: Int64, scans: Int64)] = [:]
        for row in rows {
            var day = perDay[row.day] ?? (0, 0, 0)
            if row.bot { day.bots += row.clicks } else { day.people += row.clicks }
            if !row.bot, row.source == ClickSource.qr.rawValue { day.scans += row.clicks }
            perDay[row.day] = day
        }
        let days = perDay.keys.sorted()
        let buckets = chartBuckets(perDay.mapValues(\.people))
        let peak = max(1, buckets.map(\.people).max() ?? 1)
        let height = 200
        // The chart fits the page: each bar a share of the width, time linear (empty days drawn as empty).
        let slot = 100.0 / Double(max(buckets.count, 1))
        let labelEvery = max(1, Int((Double(buckets.count) / 12).rounded(.up)))
        var bars: [HTML] = []
        for (index, bucket) in buckets.enumerated() {
            let barHeight = Int(Double(bucket.people) / Double(peak) * Double(height))
            let x = Self.percent(slot * Double(index) + slot * 0.1)
            bars.append(
                #"<rect class="bar" data-day="\#(bucket.day)" data-clicks="\#(bucket.people)" x="\#(x)" y="\#(height - barHeight)" width="\#(Self.percent(slot * 0.8))" height="\#(barHeight)" fill="rgb(0,102,204)"><title>\#(bucket.label): \#(bucket.people)</title></rect>"#
            )
            if index % labelEvery == 0 {
                bars.append(
                    #"<text x="\#(Self.percent(slot * (Double(index) + 0.5)))" y="\#(height + 16)" font-size="10" text-anchor="middle">\#(bucket.day.suffix(5))</text>"#
                )
            }
        }
        let grouping =
            buckets.first.map { $0.label.hasPrefix("week") } == true ? " (weeks: the span is over a month)" : ""
        let table = days.map { day -> HTML in
            "<tr><td>\(day)</td><td>\(perDay[day]!.people)</td><td>\(perDay[day]!.scans)</td><td>\(perDay[day]!.bots)</td></tr>"
        }.joined()
        let total = perDay.values.reduce(0) { $0 + $1.people }
        let scans = perDay.values.reduce(0) { $0 + $1.scans }
        guard !rows.isEmpty else { return #"<p id="chart">No clicks yet.</p>"# }
        return """
            <p>\(total) clicks by people (\(scans) of them from the QR code); link-preview fetches and mail security scanners are counted apart.</p>
            <svg id="chart" role="img" aria-label="Clicks per day\(grouping)" width="100%" height="\(height + 24)" shape-rendering="crispEdges">\(bars.joined())</svg>
            <table><thead><tr><th>Day</th><th>Clicks</th><th>From the QR code</th><th>Previews and scanners</th></tr></thead><tbody>\(table)</tbody></table>
            """
    }

    /// The chart's bars: every day from the first click to the last (none skipped; at least the 14 days up to the
    /// last), or past a month one bar per week (starting Monday), so that the chart's width says how much time passed.
    static func chartBuckets(_ perDay: [String: Int64]) -> [(day: String, label: String, people: Int64)] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "yyyy-MM-dd"
        let dated = perDay.compactMap { day, people in formatter.date(from: day).map { ($0, people) } }
        guard let earliest = dated.map(\.0).min(), let last = dated.map(\.0).max() else { return [] }
        let dayLength: TimeInterval = 86_400
        // At least two weeks, ending on the last day clicked: a day is drawn as a day, with the days before it,
        // never as one bar the width of the chart.
        let first = min(earliest, last.addingTimeInterval(-13 * dayLength))
        let span = Int((last.timeIntervalSince(first) / dayLength).rounded())
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        var buckets: [(day: String, label: String, people: Int64)] = []
        for offset in 0...span {
            let date = first.addingTimeInterval(Double(offset) * dayLength)
            let people = perDay[formatter.string(from: date)] ?? 0
            if span <= 31 {
                buckets.append((formatter.string(from: date), formatter.string(from: date), people))
                continue
            }
            let monday = calendar.dateInterval(of: .weekOfYear, for: date)?.start ?? date
            let key = formatter.string(from: monday)
            if buckets.last?.day == key {
                buckets[buckets.count - 1].people += people
            } else {
                buckets.append((key, "week of \(key)", people))
            }
        }
        return buckets
    }

    private static func percent(_ value: Double) -> String {
        String(format: "%.3f%%", value)
    }

    static let notFound =
        page(
            title: "No such link",
            body: "<h1>This link does not exist</h1><p>Check the address, or ask whoever sent it for a new one.</p>"
        )

    /// A path of the app opened without it, when the app has no website configured: the App Store, and the
    /// Smart App Banner whose Open hands the app this very URL.
    /// An app path opened in a browser: the store of the visitor's platform (Google Play on Android, never Apple's
    /// store there), and the Smart App Banner for Safari.
    /// The App Store campaign of an app path opened without the app (no short link to name one).
    static let appPathCampaign = "app-path"

    static func appPath(_ app: AppConfiguration, url: String, platform: ClientPlatform) -> HTML {
        let name = app.displayName
        let banner: HTML =
            platform == .android
            ? ""
            : app.appStoreID.map {
                let affiliate: HTML = app.bannerCampaign(Self.appPathCampaign).map { ", affiliate-data=\($0)" } ?? ""
                return #"<meta name="apple-itunes-app" content="app-id=\#($0)\#(affiliate), app-argument=\#(url)">"#
            } ?? ""
        let store: HTML
        if platform == .android {
            store =
                app.android.map {
                    #"<p><a class="button" href="\#($0.playStoreURL)" rel="noopener">Get \#(name) on Google Play</a></p>"#
                } ?? "<p>\(name) is not available for Android.</p>"
        } else {
            store =
                app.appStoreURL(campaign: Self.appPathCampaign).map {
                    #"<p><a class="button" href="\#($0)" rel="noopener">Get \#(name) on the App Store</a></p>"#
                } ?? ""
        }
        return page(
            title: app.displayName,
            head: banner,
            body: """
                <h1>This opens in the \(name) app</h1>
                <p>With the app installed, this link opens it on this page's screen. Without it, get the app, then open the link again.</p>
                \(store)
                """
        )
    }

    static let expired =
        page(title: "Expired link", body: "<h1>This link has expired</h1><p>Ask whoever sent it for a new one.</p>")
    /// A link of rules only, past its last rule's window.
    static let ended = page(
        title: "This link has ended",
        body: "<h1>This link has ended</h1><p>What it pointed to was available for a limited time, which is over.</p>"
    )
    /// A link of rules only, none of which matches this visitor (yet).
    static let nothingForThisVisitor = page(
        title: "Nothing here for you",
        body:
            "<h1>This link leads nowhere for you right now</h1><p>It may open at another time, or on another device.</p>"
    )
}
