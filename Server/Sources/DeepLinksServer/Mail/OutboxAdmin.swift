import DeepLinksStorage
import Foundation
import SQLKit

/// What `deeplinks outbox` shows and does: the queued and failed messages (never their content), and a
/// requeue of failed ones, on the database every server shares.
public struct OutboxAdmin: Sendable {
    public struct Entry: Sendable, Equatable {
        public let id: Int64
        public let kind: String
        public let createdAt: Date
        public let attempts: Int
        /// `queued`, `retrying`, `failed` (will not be retried until requeued), `dropped` (its reset link died
        /// first) or `sent`.
        public let status: String
        public let lastError: String?
    }

    let database: Database
    let clock: WallClock

    public init(database: Database, clock: WallClock = .system) {
        self.database = database
        self.clock = clock
    }

    /// The newest `limit` messages that are not sent, or every message with `includeSent`.
    public func list(includeSent: Bool = false, limit: Int = 100) async throws -> [Entry] {
        let filter: SQLQueryString = includeSent ? "" : "WHERE sent_at IS NULL"
        let rows = try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT id, kind, created_at, attempts, sent_at, next_attempt_at, last_error, sealed_message = '' AS erased
                FROM mail_outbox \(filter) ORDER BY id DESC LIMIT \(bind: limit)
                """
            ).all()
        }
        return try rows.map { row in
            let attempts = try row.decode(column: "attempts", as: Int.self)
            let status: String
            if try row.decode(column: "sent_at", as: Int64?.self) != nil {
                status = "sent"
            } else if try row.decode(column: "next_attempt_at", as: Int64.self) == MailOutbox.never {
                status = try row.decode(column: "erased", as: Bool.self) ? "dropped" : "failed"
            } else {
                status = attempts == 0 ? "queued" : "retrying"
            }
            return Entry(
                id: try row.decode(column: "id", as: Int64.self),
                kind: try row.decode(column: "kind", as: String.self),
                createdAt: Date(
                    timeIntervalSince1970: Double(try row.decode(column: "created_at", as: Int64.self)) / 1000
                ),
                attempts: attempts,
                status: status,
                lastError: try row.decode(column: "last_error", as: String?.self)
            )
        }
    }

    /// Makes failed messages due now (`ids`, or every failed one when empty); returns how many.
    public func requeue(ids: [Int64]) async throws -> Int {
        let now = clock.milliseconds()
        let which: SQLQueryString = ids.isEmpty ? "" : "AND id IN (\(binds: ids))"
        return try await database.withConnection { sql in
            try await sql.raw(
                """
                UPDATE mail_outbox SET next_attempt_at = \(bind: now), last_error = NULL
                WHERE sent_at IS NULL AND sealed_message <> '' AND next_attempt_at = \(bind: MailOutbox.never) \(which) RETURNING id
                """
            ).all().count
        }
    }
}
