import DeepLinksStorage
import Foundation

/// One link's funnel over a range of days, or every link's: clicks by class (people, scanners, previews), opens
/// the app reported by channel, installs (deferred links redeemed), goals by name, and the rates between them.
/// `GET /v1/links/{code}/funnel`, `GET /v1/funnel`, JSON or CSV.
///
/// A click is a tap the server saw: when a universal link opens the app, iOS never asks the server, so a tap is a
/// click *or* an open, never both. `appShare` is opens over opens and people's clicks: of the taps the server and
/// the app together saw, the share that reached the app.
struct FunnelReport: Encodable, Sendable {
    struct Clicks: Encodable, Sendable {
        var people: Int64 = 0
        var scanners: Int64 = 0
        var previews: Int64 = 0
    }

    struct Opens: Encodable, Sendable {
        var universalLink: Int64 = 0
        var customScheme: Int64 = 0
        var deferred: Int64 = 0
        var total: Int64 { universalLink + customScheme + deferred }

        enum CodingKeys: String, CodingKey { case universalLink, customScheme, deferred, total }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(universalLink, forKey: .universalLink)
            try container.encode(customScheme, forKey: .customScheme)
            try container.encode(deferred, forKey: .deferred)
            try container.encode(total, forKey: .total)
        }
    }

    struct Goal: Encodable, Sendable {
        let name: String
        let count: Int64
    }

    /// Nil where the denominator is 0.
    struct Rates: Encodable, Sendable {
        let appShare: Double?
        let installsPerClick: Double?
        let goalsPerOpen: Double?
    }

    let code: String?
    let from: String
    let to: String
    let clicks: Clicks
    let opens: Opens
    let installs: Int64
    let goals: [Goal]
    let rates: Rates

    static func make(code: String?, from: String, to: String, database: Database) async throws -> FunnelReport {
        var clicks = Clicks()
        for point in try await AnalyticsStore.series(code: code, from: from, to: to, hourly: false, database: database)
        {
            switch VisitorClass(rawValue: point.class) {
            case .people?: clicks.people += point.clicks
            case .scanners?: clicks.scanners += point.clicks
            case .previews?: clicks.previews += point.clicks
            case nil: break
            }
        }
        var opens = Opens()
        var installs: Int64 = 0
        var goals: [Goal] = []
        for row in try await FunnelStore.counts(code: code, from: from, to: to, database: database) {
            switch (FunnelStore.Kind(rawValue: row.kind), row.name) {
            case (.open?, "universal_link"): opens.universalLink += row.count
            case (.open?, "custom_scheme"): opens.customScheme += row.count
            case (.open?, "deferred"): opens.deferred += row.count
            case (.install?, _): installs += row.count
            case (.goal?, let name): goals.append(Goal(name: name, count: row.count))
            default: break
            }
        }
        func rate(_ part: Int64, _ whole: Int64) -> Double? {
            whole > 0 ? (Double(part) / Double(whole) * 10_000).rounded() / 10_000 : nil
        }
        let reached = goals.reduce(0) { $0 + $1.count }
        return FunnelReport(
            code: code,
            from: from,
            to: to,
            clicks: clicks,
            opens: opens,
            installs: installs,
            goals: goals,
            rates: Rates(
                appShare: rate(opens.total, opens.total + clicks.people),
                installsPerClick: rate(installs, clicks.people),
                goalsPerOpen: rate(reached, opens.total)
            )
        )
    }

    /// The CSV's file name: `funnel-CODE-FROM-TO.csv`.
    var fileName: String { ["funnel", code ?? "all-links", from, to].joined(separator: "-") + ".csv" }

    /// The funnel as CSV: one `step,count` line per number, in the funnel's order.
    var csv: String {
        var lines = [
            "step,count", "clicks by people,\(clicks.people)", "clicks by scanners,\(clicks.scanners)",
            "clicks by previews,\(clicks.previews)", "opens by universal link,\(opens.universalLink)",
            "opens by custom scheme,\(opens.customScheme)", "opens by deferred link,\(opens.deferred)",
            "installs,\(installs)",
        ]
        lines += goals.map { "goal \(LinkExport.cell($0.name)),\($0.count)" }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}
