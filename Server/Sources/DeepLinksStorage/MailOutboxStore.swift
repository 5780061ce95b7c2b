import SQLKit

/// The `mail_outbox` table: the durable queue of outgoing mail. The only place its SQL is written; sealing,
/// rendering, delivery and the retry policy are the server's `MailOutbox` and `MailSender`.
public struct MailOutboxStore: Sendable {
    /// `next_attempt_at` of a message that will not be tried again: failed for good, or dropped (body erased).
    public static let never = Int64.max

    /// A message to queue: sealed already, its Message-ID chosen (so a rare duplicate carries the same one).
    package struct NewMessage: Sendable {
        package var kind: String
        package var sealed: String
        package var createdAt: Int64
        package var messageID: String
        package var keyVersion: Int
        /// The stored hash of the reset token the message carries, when it carries one.
        package var resetTokenHash: String?

        package init(
            kind: String,
            sealed: String,
            createdAt: Int64,
            messageID: String,
            keyVersion: Int,
            resetTokenHash: String?
        ) {
            self.kind = kind
            self.sealed = sealed
            self.createdAt = createdAt
            self.messageID = messageID
            self.keyVersion = keyVersion
            self.resetTokenHash = resetTokenHash
        }
    }

    /// A message a sender claimed: no other server sends it until the lease ends.
    package struct Claimed: Record {
        package let id: Int64
        package let kind: String
        package let sealed: String
        /// Attempts so far, this one included.
        package let attempts: Int64
        package let messageID: String?
        package let keyVersion: Int?
        package let resetTokenHash: String?

        /// The columns (as the decoder reads them, in camel case) of the fields named otherwise.
        enum CodingKeys: String, CodingKey {
            case id, kind, sealed = "sealedMessage", attempts, messageID = "messageId", keyVersion, resetTokenHash
        }
    }

    /// A row as `deeplinks outbox` lists it: never its content.
    package struct Listed: Record {
        package let id: Int64
        package let kind: String
        package let createdAt: Int64
        package let attempts: Int
        package let sentAt: Int64?
        package let nextAttemptAt: Int64
        package let lastError: String?
        /// The body was erased (sent, or dropped because its reset link died first).
        package let erased: Bool
    }

    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// Queues `message` on the caller's connection, inside its transaction: no mail for a change that rolled back.
    package static func insert(_ message: NewMessage, on sql: DatabaseConnection) async throws {
        try await sql.raw(
            """
            INSERT INTO mail_outbox (kind, sealed_message, created_at, next_attempt_at, message_id, key_version, reset_token_hash)
            VALUES (\(bind: message.kind), \(bind: message.sealed), \(bind: message.createdAt), \(sql.outboxDue(message.createdAt)), \(bind: message.messageID), \(bind: message.keyVersion), \(bind: message.resetTokenHash))
            """
        ).run()
    }

    /// Claims the oldest due message for `lease` milliseconds (``Database/claimDue(_:now:lease:databaseClock:returning:)``).
    package func claimDue(now: Int64, lease: Int64, databaseClock: Bool = true) async throws -> Claimed? {
        let row = try await database.claimDue(
            .mail,
            now: now,
            lease: lease,
            databaseClock: databaseClock,
            returning: "id, kind, sealed_message, attempts, message_id, key_version, reset_token_hash"
        )
        guard let row else { return nil }
        return try row.record(Claimed.self)
    }

    /// Records a claimed message's outcome: sent, or when to try again and why not; `erase` empties its body.
    package func record(_ id: Int64, sentAt: Int64?, nextAttemptAt: Int64, error: String?, erase: Bool) async throws {
        let body: SQLQueryString = erase ? ", sealed_message = ''" : ""
        try await database.withConnection { sql in
            try await sql.raw(
                "UPDATE mail_outbox SET sent_at = \(bind: sentAt), next_attempt_at = \(bind: nextAttemptAt), last_error = \(bind: error)\(body) WHERE id = \(bind: id)"
            ).run()
        }
    }

    /// The newest `limit` messages that are not sent, or every message with `includeSent`.
    package func list(includeSent: Bool, limit: Int) async throws -> [Listed] {
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
            try row.record(Listed.self)
        }
    }

    /// Makes failed messages (`ids`, or every failed one when empty) due at `now`; returns how many.
    package func requeueFailed(ids: [Int64], now: Int64) async throws -> Int {
        let which: SQLQueryString = ids.isEmpty ? "" : "AND id IN (\(binds: ids))"
        return try await database.withConnection { sql in
            try await sql.raw(
                """
                UPDATE mail_outbox SET next_attempt_at = \(bind: now), last_error = NULL
                WHERE sent_at IS NULL AND sealed_message <> '' AND next_attempt_at = \(bind: Self.never) \(which) RETURNING id
                """
            ).all().count
        }
    }

    /// Messages waiting to be sent (`queued`), and failed for good and not requeued (`failed`).
    package func pending() async throws -> (queued: Int, failed: Int) {
        let row = try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT
                  (SELECT COUNT(*) FROM mail_outbox WHERE sent_at IS NULL AND next_attempt_at < \(bind: Self.never)) AS queued,
                  (SELECT COUNT(*) FROM mail_outbox WHERE sent_at IS NULL AND next_attempt_at = \(bind: Self.never) AND sealed_message <> '') AS failed
                """
            ).first()
        }
        return (
            try row?.decode(column: "queued", as: Int.self) ?? 0, try row?.decode(column: "failed", as: Int.self) ?? 0
        )
    }
}
