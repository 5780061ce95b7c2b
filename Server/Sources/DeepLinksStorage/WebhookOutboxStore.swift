import SQLKit

/// The `webhook_outbox` table: one row per event and endpoint. The only place its SQL is written; the events, the
/// signature and the retry policy are the server's `WebhookEvents` and `WebhookSender`.
package struct WebhookOutboxStore: Sendable {
    /// An event a sender claimed for one endpoint: no other server sends it until the lease ends.
    package struct Claimed: Record {
        package let id: Int64
        package let endpoint: String
        package let eventID: String
        package let type: String
        /// The event's JSON, as signed and sent.
        package let body: String
        package let createdAt: Int64
        /// Attempts so far, this one included.
        package let attempts: Int64

        /// The columns (as the decoder reads them, in camel case) of the fields named otherwise.
        enum CodingKeys: String, CodingKey {
            case id, endpoint, eventID = "eventId", type = "eventType", body, createdAt, attempts
        }
    }

    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// Queues many events at once (an import's), each for every endpoint, in one statement per
    /// ``LinkDocumentStore/bulkRows`` rows.
    package static func insert(
        _ events: [(eventID: String, type: String, body: String)],
        at now: Int64,
        for endpoints: [String],
        on sql: DatabaseConnection
    ) async throws {
        let rows = events.flatMap { event in endpoints.map { (endpoint: $0, event: event) } }
        for start in stride(from: 0, to: rows.count, by: LinkDocumentStore.bulkRows) {
            let values = rows[start..<min(start + LinkDocumentStore.bulkRows, rows.count)].map {
                row -> SQLQueryString in
                "(\(bind: row.endpoint), \(bind: row.event.eventID), \(bind: row.event.type), \(bind: row.event.body), \(bind: now), \(sql.outboxDue(now)), 0)"
            }
            try await sql.raw(
                "INSERT INTO webhook_outbox (endpoint, event_id, event_type, body, created_at, next_attempt_at, attempts) VALUES \(values.joined(separator: ", "))"
            ).run()
        }
    }

    /// Claims the oldest due event for `lease` milliseconds (``Database/claimDue(_:now:lease:databaseClock:returning:)``).
    package func claimDue(now: Int64, lease: Int64, databaseClock: Bool = true) async throws -> Claimed? {
        guard
            let row = try await database.claimDue(
                .webhooks,
                now: now,
                lease: lease,
                databaseClock: databaseClock,
                returning: "id, endpoint, event_id, event_type, body, created_at, attempts"
            )
        else { return nil }
        return try row.record(Claimed.self)
    }

    /// Records a claimed event's outcome: sent (its body erased: the receiver has it, and the row stays only for
    /// `deeplinks outbox` and the pruning's seven days), or when to try again and why not.
    package func record(_ id: Int64, sentAt: Int64?, nextAttemptAt: Int64, error: String?) async throws {
        try await database.withConnection { sql in
            try await sql.raw(
                "UPDATE webhook_outbox SET sent_at = \(bind: sentAt), next_attempt_at = \(bind: nextAttemptAt), last_error = \(bind: error)\(unsafeRaw: sentAt == nil ? "" : ", body = ''") WHERE id = \(bind: id)"
            ).run()
        }
    }
}
