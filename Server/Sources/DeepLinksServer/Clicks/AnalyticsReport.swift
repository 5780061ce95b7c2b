import DeepLinksStorage
import Foundation

/// One link's analytics, or every link's: the series of clicks (by class) and visitors over a range of days, by
/// day or by hour, a breakdown by one dimension, and for every link the top links. What `GET /v1/analytics`,
/// `GET /v1/links/{code}/analytics` and the console's analytics pages show, in JSON or CSV.
struct AnalyticsReport: Encodable, Sendable {
    /// What a range of the report is cut by.
    enum Interval: String, Encodable, Sendable, CaseIterable {
        case day, hour
    }

    /// What a breakdown groups clicks by: a facet the analytics keep (with classes), or a count the stats keep
    /// (people's clicks only).
    enum Dimension: String, Encodable, Sendable, CaseIterable {
        case country, region, city, os, browser, inApp = "in_app", platform, referrer, source, rule
        case visitorClass = "class"

        /// Its label on the console.
        var label: String {
            switch self {
            case .country: "Country"
            case .region: "Region"
            case .city: "City"
            case .os: "OS"
            case .browser: "Browser"
            case .inApp: "In-app browser"
            case .platform: "Platform"
            case .referrer: "Referrer"
            case .source: "Source"
            case .rule: "Rule and variant"
            case .visitorClass: "Class"
            }
        }
    }

    /// A bucket of the series: clicks of each class, and people's visitors (a browser on an address for a day).
    struct Point: Encodable, Sendable {
        let start: String
        var people: Int64 = 0
        var visitors: Int64 = 0
        var scanners: Int64 = 0
        var previews: Int64 = 0
    }

    /// A value of the breakdown, with the clicks of each class (only people for platform, referrer, source, rule).
    struct Share: Encodable, Sendable {
        let value: String
        var people: Int64 = 0
        var scanners: Int64 = 0
        var previews: Int64 = 0
    }

    struct Breakdown: Encodable, Sendable {
        let dimension: Dimension
        let rows: [Share]
    }

    struct TopLink: Encodable, Sendable {
        let code: String
        let clicks: Int64
        let visitors: Int64
    }

    /// The link's code; nil for every link.
    let code: String?
    let from: String
    let to: String
    let interval: Interval
    /// The sums over the range: people's visitors are the sum of each day's (a visitor on two days counts twice).
    let totals: Point
    /// Every bucket of the range, in order (empty ones included).
    let series: [Point]
    let breakdown: Breakdown?
    /// For every link: the links with the most people's clicks over the range.
    let links: [TopLink]?

    /// The most days a daily report spans (a year and more: the daily retention), and an hourly one.
    static let maxDays = 800, maxHourlyDays = 31
    static let breakdownLimit = 100

    /// The query of a report: `from`, `to` (`YYYY-MM-DD`, UTC, inclusive; the last 30 days, or 2 for hours, by
    /// default), `interval` (`day`, `hour`), `breakdown` (a ``Dimension``). Throws `invalid_parameter` with the
    /// reason for anything else.
    struct Query: Sendable {
        var from: String
        var to: String
        var interval: Interval
        var breakdown: Dimension?

        init(_ parameters: [String: String], today: String) throws {
            func parameter(_ name: String) -> String? { parameters[name].flatMap { $0.isEmpty ? nil : $0 } }
            guard let interval = Interval(rawValue: parameter("interval") ?? "day") else {
                throw APIError.invalidParameter("interval", "is day or hour")
            }
            self.interval = interval
            if let name = parameter("breakdown") {
                guard let dimension = Dimension(rawValue: name) else {
                    throw APIError.invalidParameter(
                        "breakdown",
                        "is one of " + Dimension.allCases.map(\.rawValue).joined(separator: ", ")
                    )
                }
                breakdown = dimension
            }
            let to = parameter("to") ?? today
            guard let last = AnalyticsReport.date(to) else {
                throw APIError.invalidParameter("to", "is a day, YYYY-MM-DD")
            }
            let span = interval == .hour ? 1 : 29
            let from = parameter("from") ?? AnalyticsReport.dayString(last.addingTimeInterval(Double(-span) * 86_400))
            guard let first = AnalyticsReport.date(from) else {
                throw APIError.invalidParameter("from", "is a day, YYYY-MM-DD")
            }
            let days = Int((last.timeIntervalSince(first) / 86_400).rounded()) + 1
            guard days >= 1 else { throw APIError.invalidParameter("from", "is on or before 'to'") }
            let most = interval == .hour ? AnalyticsReport.maxHourlyDays : AnalyticsReport.maxDays
            guard days <= most else {
                throw APIError.invalidParameter("from", "is at most \(most) days before 'to' by \(interval.rawValue)")
            }
            (self.from, self.to) = (from, to)
        }
    }

    /// The report of `code` (every link when nil).
    static func make(code: String?, query: Query, database: Database) async throws -> AnalyticsReport {
        let hourly = query.interval == .hour
        let (first, last) = hourly ? (query.from + "T00", query.to + "T23") : (query.from, query.to)
        var points: [String: Point] = [:]
        for row in try await AnalyticsStore.series(
            code: code,
            from: first,
            to: last,
            hourly: hourly,
            database: database
        ) {
            var point = points[row.bucket] ?? Point(start: row.bucket)
            switch VisitorClass(rawValue: row.class) {
            case .people?:
                point.people += row.clicks
                point.visitors += row.visitors
            case .scanners?: point.scanners += row.clicks
            case .previews?: point.previews += row.clicks
            case nil: break
            }
            points[row.bucket] = point
        }
        let series = buckets(from: query.from, to: query.to, hourly: hourly).map { points[$0] ?? Point(start: $0) }
        var totals = Point(start: query.from)
        for point in series {
            totals.people += point.people
            totals.visitors += point.visitors
            totals.scanners += point.scanners
            totals.previews += point.previews
        }
        var breakdown: Breakdown?
        if let dimension = query.breakdown {
            breakdown = try await Self.breakdown(
                dimension,
                code: code,
                query: query,
                totals: totals,
                database: database
            )
        }
        let links =
            code == nil
            ? try await AnalyticsStore.topLinks(from: query.from, to: query.to, limit: 20, database: database).map {
                TopLink(code: $0.code, clicks: $0.clicks, visitors: $0.visitors)
            } : nil
        return AnalyticsReport(
            code: code,
            from: query.from,
            to: query.to,
            interval: query.interval,
            totals: totals,
            series: series,
            breakdown: breakdown,
            links: links
        )
    }

    /// The clicks of `code` (every link when nil) over the query's days by `dimension`: at most
    /// ``breakdownLimit`` values, most people's clicks first. `totals` are the report's (the class breakdown).
    static func breakdown(
        _ dimension: Dimension,
        code: String?,
        query: Query,
        totals: Point,
        database: Database
    ) async throws -> Breakdown {
        Breakdown(
            dimension: dimension,
            rows: try await shares(dimension, code: code, query: query, totals: totals, database: database)
        )
    }

    private static func shares(
        _ dimension: Dimension,
        code: String?,
        query: Query,
        totals: Point,
        database: Database
    ) async throws -> [Share] {
        func counted(_ table: String, _ column: String) async throws -> [Share] {
            try await AnalyticsStore.counted(
                in: table,
                by: column,
                code: code,
                from: query.from,
                to: query.to,
                limit: breakdownLimit,
                database: database
            ).map { Share(value: $0.value, people: $0.clicks) }
        }
        switch dimension {
        case .visitorClass:
            return [
                Share(value: "people", people: totals.people), Share(value: "scanners", scanners: totals.scanners),
                Share(value: "previews", previews: totals.previews),
            ]
        case .platform: return try await counted("link_clicks", "platform")
        case .source: return try await counted("link_clicks", "source")
        case .referrer: return try await counted("link_referrers", "referrer")
        case .rule:
            return try await counted(
                "link_rule_clicks",
                "rule || CASE WHEN variant = '' THEN '' ELSE '/' || variant END"
            )
        case .country, .region, .city, .os, .browser, .inApp:
            var shares: [String: Share] = [:]
            var order: [String] = []
            for row in try await AnalyticsStore.facet(
                dimension.rawValue,
                code: code,
                from: query.from,
                to: query.to,
                limit: breakdownLimit * 2,
                database: database
            ) {
                if shares[row.value] == nil { order.append(row.value) }
                var share = shares[row.value] ?? Share(value: row.value)
                if row.class == VisitorClass.scanners.rawValue {
                    share.scanners += row.clicks
                } else {
                    share.people += row.clicks
                }
                shares[row.value] = share
            }
            return order.compactMap { shares[$0] }.sorted { ($1.people, $0.value) < ($0.people, $1.value) }
                .prefix(breakdownLimit).map { $0 }
        }
    }

    // MARK: Days and hours

    /// Every bucket from `from` to `to`: the days, or each day's 24 hours.
    static func buckets(from: String, to: String, hourly: Bool) -> [String] {
        guard let first = date(from), let last = date(to) else { return [] }
        var days: [String] = []
        var day = first
        while day <= last {
            days.append(dayString(day))
            day = day.addingTimeInterval(86_400)
        }
        guard hourly else { return days }
        return days.flatMap { day in (0..<24).map { day + ($0 < 10 ? "T0" : "T") + String($0) } }
    }

    static func date(_ text: String) -> Date? {
        guard text.count == 10 else { return nil }
        let parsed = formatter.date(from: text)
        return parsed.flatMap { dayString($0) == text ? $0 : nil }
    }

    static func dayString(_ date: Date) -> String { ClickCounter.day(Int64(date.timeIntervalSince1970 * 1000)) }

    private static let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter
    }()

    // MARK: CSV

    /// The report as CSV: the breakdown's rows when it has one, else the series.
    var csv: String {
        var lines: [String]
        if let breakdown {
            lines = ["\(breakdown.dimension.rawValue),people,scanners,previews"]
            lines += breakdown.rows.map { "\(LinkExport.cell($0.value)),\($0.people),\($0.scanners),\($0.previews)" }
        } else {
            lines = ["\(interval.rawValue),people,visitors,scanners,previews"]
            lines += series.map { "\($0.start),\($0.people),\($0.visitors),\($0.scanners),\($0.previews)" }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// The CSV's file name: `analytics-CODE-FROM-TO[-DIMENSION].csv`.
    var fileName: String {
        ["analytics", code ?? "all-links", from, to, breakdown?.dimension.rawValue].compactMap { $0 }
            .joined(separator: "-") + ".csv"
    }
}
