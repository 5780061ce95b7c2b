import DeepLinksStorage
import Foundation
import Hummingbird

/// Universal-link health over a range of days: requests from iOS that reached a claimed path, per domain, cause
/// and detail, and each domain's last comparison of Apple's CDN copy. `GET /v1/universal-links/health` (JSON or
/// CSV) and the console's health page.
struct LinkHealthReport: Encodable, Sendable {
    struct Row: Encodable, Sendable {
        let domain: String
        let cause: String
        /// The in-app browser's name for `in_app_browser`; empty otherwise.
        let detail: String
        let requests: Int64
    }

    struct CDNCheck: Encodable, Sendable {
        let domain: String
        /// Milliseconds since 1970.
        let checkedAt: Int64
        let differsSince: Int64?
        let notifiedAt: Int64?
    }

    let from: String
    let to: String
    let rows: [Row]
    let cdn: [CDNCheck]

    static func make(from: String, to: String, database: Database) async throws -> LinkHealthReport {
        let rows = try await HealthStore.counts(domain: nil, from: from, to: to, database: database).map {
            Row(domain: $0.domain, cause: $0.cause, detail: $0.detail, requests: $0.requests)
        }
        let cdn = try await HealthStore.checks(database: database).map {
            CDNCheck(
                domain: $0.domain,
                checkedAt: $0.checkedAt,
                differsSince: $0.differsSince,
                notifiedAt: $0.notifiedAt
            )
        }
        return LinkHealthReport(from: from, to: to, rows: rows, cdn: cdn)
    }

    /// The report over the days `from` to `to` the query names (the last 30 by default), as JSON or CSV.
    static func response(request: Request, store: LinkStore) async throws -> Response {
        let today = ClickCounter.day(store.clock.milliseconds())
        let (query, csv) = try AnalyticsReport.range(request, of: "the health report", today: today)
        let report = try await make(from: query.from, to: query.to, database: store.database)
        guard csv else { return try JSONResponse.make(.ok, report) }
        return LinkTransfer.csvFile(report.csv, name: report.fileName)
    }

    var fileName: String { "universal-link-health-\(from)-\(to).csv" }

    /// One line per domain, cause and detail.
    var csv: String {
        (["domain,cause,detail,requests"] + rows.map { "\($0.domain),\($0.cause),\($0.detail),\($0.requests)" })
            .joined(separator: "\r\n") + "\r\n"
    }
}

extension FallThroughCause {
    /// What the cause means, for a person.
    var meaning: String {
        switch self {
        case .scanner: "A mail security scanner opened the link before the reader did (or instead)."
        case .preview: "A link-preview fetcher (Messages, Slack, WhatsApp...) read the page to draw a preview."
        case .inAppBrowser:
            "The link was opened inside an app's own browser, which does not hand universal links to iOS."
        case .sameDomain:
            "The tap was on a page of the same domain: iOS opens the app only for a tap that crosses domains."
        case .appleCDNDiffers:
            "Apple's CDN holds another copy of the association file than the one served, and that copy does not give this path to the app."
        case .openInAppTapped:
            "The landing page's \"Open in the app\" was tapped and the request still came here: the app is not installed, or the device has not installed its association."
        case .internationalDomain:
            "The domain is internationalised (xn--): iOS does not open universal links on some of them."
        case .unknown:
            "None of the above: typed or pasted into Safari, Safari chosen by a long press, or the app not installed."
        }
    }

    /// What fixes it.
    var fix: String {
        switch self {
        case .scanner, .preview: "Nothing: no person tapped. They are counted apart so they hide no real failure."
        case .inAppBrowser:
            "Give the landing page's \"Open in the app\" (cross-domain, so a tap on it opens the app), or ask readers to open in Safari."
        case .sameDomain:
            "Serve landing pages on another domain (--landing-domain), so that their \"Open in the app\" crosses domains."
        case .appleCDNDiffers:
            "Wait for Apple's CDN to follow (minutes to a day after a change); during development, use applinks:DOMAIN?mode=developer."
        case .openInAppTapped:
            "If the app is installed: reinstall it, or check its entitlement lists the domain (deeplinks doctor URL)."
        case .internationalDomain: "Use an ASCII domain for links that must open the app."
        case .unknown:
            "Run deeplinks doctor on one of the URLs; a share of these is normal (Safari chosen, app absent)."
        }
    }
}
