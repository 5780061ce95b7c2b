import Foundation
import SQLKit
import Synchronization

/// Counts clicks in memory and writes them in batches (a background job, every second), so a redirect
/// never waits for the database. Keeps aggregates only: link, day, platform, bot or not.
final class ClickCounter: Sendable {
    struct Key: Hashable {
        let code: String
        let day: String
        let platform: String
        let bot: Bool
    }

    private let pending = Mutex<[Key: Int64]>([:])
    let database: Database

    init(database: Database) {
        self.database = database
    }

    func count(code: String, platform: ClientPlatform, at milliseconds: Int64) {
        let key = Key(code: code, day: Self.day(milliseconds), platform: platform.rawValue, bot: platform == .previewBot)
        pending.withLock { $0[key, default: 0] += 1 }
    }

    /// Adds the pending counts to the table; on failure they are kept for the next flush.
    func flush() async throws {
        let batch = pending.withLock { counts in
            defer { counts.removeAll() }
            return counts
        }
        guard !batch.isEmpty else { return }
        do {
            try await database.transaction { sql in
                for (key, clicks) in batch {
                    try await sql.raw(
                        """
                        INSERT INTO link_clicks (code, day, platform, bot, clicks) VALUES (\(bind: key.code), \(bind: key.day), \(bind: key.platform), \(bind: key.bot), \(bind: clicks))
                        ON CONFLICT (code, day, platform, bot) DO UPDATE SET clicks = link_clicks.clicks + excluded.clicks
                        """
                    ).run()
                }
            }
        } catch {
            pending.withLock { counts in
                for (key, clicks) in batch { counts[key, default: 0] += clicks }
            }
            throw error
        }
    }

    static func day(_ milliseconds: Int64) -> String {
        let days = milliseconds / 86_400_000
        let date = Date(timeIntervalSince1970: Double(days) * 86_400)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }
}
