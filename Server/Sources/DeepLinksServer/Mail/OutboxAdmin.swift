import DeepLinksStorage
import Foundation

/// What `deeplinks outbox` shows and does: the queued and failed messages (never their content), and a
/// requeue of failed ones, on the database every server shares.
package struct OutboxAdmin: Sendable {
    package struct Entry: Sendable, Equatable {
        package let id: Int64
        package let kind: String
        package let createdAt: Date
        package let attempts: Int
        /// `queued`, `retrying`, `failed` (will not be retried until requeued), `dropped` (its reset link died
        /// first) or `sent`.
        package let status: String
        package let lastError: String?
    }

    let database: Database
    let clock: WallClock

    package init(database: Database, clock: WallClock = .system) {
        self.database = database
        self.clock = clock
    }

    /// The newest `limit` messages that are not sent, or every message with `includeSent`.
    package func list(includeSent: Bool = false, limit: Int = 100) async throws -> [Entry] {
        try await MailOutboxStore(database: database).list(includeSent: includeSent, limit: limit).map { row in
            let status =
                if row.sentAt != nil {
                    "sent"
                } else if row.nextAttemptAt == MailOutboxStore.never {
                    row.erased ? "dropped" : "failed"
                } else {
                    row.attempts == 0 ? "queued" : "retrying"
                }
            return Entry(
                id: row.id,
                kind: row.kind,
                createdAt: Date(timeIntervalSince1970: Double(row.createdAt) / 1000),
                attempts: row.attempts,
                status: status,
                lastError: row.lastError
            )
        }
    }

    /// Makes failed messages due now (`ids`, or every failed one when empty); returns how many.
    package func requeue(ids: [Int64]) async throws -> Int {
        try await MailOutboxStore(database: database).requeueFailed(ids: ids, now: clock.milliseconds())
    }
}
