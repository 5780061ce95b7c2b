import AppSiteAssociation
import Foundation
import Prometheus
import SQLKit
import Synchronization

/// Counts clicks in memory and writes them in batches (a background job, every second), so a redirect
/// never waits for the database. Keeps aggregates only: link, day, platform, bot or not, and source.
final class ClickCounter: Sendable {
    struct Key: Hashable {
        let code: String
        let day: String
        let platform: String
        let bot: Bool
        let source: ClickSource
    }

    private let pending = Mutex<[Key: Int64]>([:])
    let database: Database
    let metrics: ServerMetrics?
    /// `clicks.counted` for the webhook endpoints: each flush's counts, per link, queued with them.
    let events: WebhookEvents?

    init(database: Database, metrics: ServerMetrics? = nil, events: WebhookEvents? = nil) {
        self.database = database
        self.metrics = metrics
        self.events = events
    }

    func count(code: String, platform: ClientPlatform, source: ClickSource = .link, at milliseconds: Int64) {
        let key = Key(
            code: code,
            day: Self.day(milliseconds),
            platform: platform.rawValue,
            bot: platform == .previewBot,
            source: source
        )
        pending.withLock { $0[key, default: 0] += 1 }
    }

    /// Rows per statement: six values each, well under SQLite's 32,766 and PostgreSQL's 65,535 parameters.
    static let rowsPerStatement = 1_000

    /// Adds the pending counts to the table, in one multi-row upsert per thousand keys (one statement, not one
    /// per key, so the write holds SQLite's one connection briefly); counts for a link that no longer exists are
    /// dropped. On failure they are kept for the next flush.
    func flush() async throws {
        let batch = pending.withLock { counts in
            defer { counts.removeAll() }
            return counts
        }
        guard !batch.isEmpty else { return }
        do {
            let rows = Array(batch)
            try await database.transaction { sql in
                for start in stride(from: 0, to: rows.count, by: Self.rowsPerStatement) {
                    let values = rows[start..<min(start + Self.rowsPerStatement, rows.count)].map {
                        key,
                        clicks -> SQLQueryString in
                        """
                        (\(bind: key.code), \(bind: key.day), \(bind: key.platform), \(bind: key.bot), \
                        \(bind: key.source.rawValue), \(bind: clicks))
                        """
                    }
                    try await sql.raw(
                        """
                        WITH counted (code, day, platform, bot, source, clicks) AS (VALUES \(values.joined(separator: ", ")))
                        INSERT INTO link_clicks (code, day, platform, bot, source, clicks)
                        SELECT code, day, platform, bot, source, clicks FROM counted WHERE EXISTS (SELECT 1 FROM links WHERE links.code = counted.code)
                        ON CONFLICT (code, day, platform, bot, source) DO UPDATE SET clicks = link_clicks.clicks + excluded.clicks
                        """
                    ).run()
                }
                if let events {
                    var perLink: [String: Int64] = [:]
                    for (key, clicks) in batch where !key.bot { perLink[key.code, default: 0] += clicks }
                    if !perLink.isEmpty {
                        let counts = perLink.sorted { $0.key < $1.key }.map { code, clicks in
                            JSONValue.object(["code": .string(code), "clicks": .number(Double(clicks))])
                        }
                        try await events.enqueue("clicks.counted", .object(["links": .array(counts)]), on: sql)
                    }
                }
            }
            metrics?.clicksFlushed.increment(by: Int64(batch.values.reduce(0, +)))
        } catch {
            pending.withLock { counts in
                for (key, clicks) in batch { counts[key, default: 0] += clicks }
            }
            throw error
        }
    }

    /// `YYYY-MM-DD` (UTC) of a time, by arithmetic (Howard Hinnant's days-to-civil): no calendar per click.
    static func day(_ milliseconds: Int64) -> String {
        let days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func padded(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }
}

/// Where a counted click came from: the short link itself, or its QR code (the link with `?qr=1`, as
/// `GET /v1/links/{code}/qr` draws it).
enum ClickSource: String, Sendable, Hashable {
    case link, qr
}
