import Crypto
import Foundation
import Logging
import SQLKit

/// The durable queue of outgoing mail: a message is a row written in the transaction that decided to send
/// it, so no mail is lost while the SMTP server is down and none is sent for a change that rolled back.
///
/// Rows are sealed (ChaChaPoly under a subkey of the server's secret) because a reset message carries a
/// live link: a copy of the database must not yield one (T2). A sent message's body is erased.
public struct MailOutbox: Sendable {
    let key: SymmetricKey
    let clock: WallClock

    init(keys: SecretKeys, clock: WallClock) {
        self.key = keys.subkey("mail outbox")
        self.clock = clock
    }

    /// Adds `mail` to the queue, on the caller's connection (inside its transaction).
    func enqueue(_ mail: OutgoingMail, kind: String, on sql: any SQLDatabase) async throws {
        let sealed = try ChaChaPoly.seal(JSONEncoder().encode(mail), using: key).combined.base64EncodedString()
        let now = clock.milliseconds()
        try await sql.raw(
            """
            INSERT INTO mail_outbox (kind, sealed_message, created_at, next_attempt_at)
            VALUES (\(bind: kind), \(bind: sealed), \(bind: now), \(bind: now))
            """
        ).run()
    }

    func open(_ sealed: String) throws -> OutgoingMail {
        guard let data = Data(base64Encoded: sealed) else { throw MailDeliveryError("a queued message is not base64", permanent: true) }
        let opened = try ChaChaPoly.open(ChaChaPoly.SealedBox(combined: data), using: key)
        return try JSONDecoder().decode(OutgoingMail.self, from: opened)
    }
}

/// Sends what the outbox holds: due messages first, with exponential backoff (2 s doubling, at most
/// 15 min) after a temporary failure, and no retry after a permanent one (a 5xx answer).
struct MailSender: Sendable {
    let database: Database
    let outbox: MailOutbox
    let transport: any MailTransport
    let sender: String
    let messageDomain: String
    let logger: Logger

    /// Sends every due message.
    func drain() async {
        while true {
            let now = outbox.clock.milliseconds()
            guard let rows = try? await database.withConnection({ sql in
                try await sql.raw(
                    """
                    SELECT id, sealed_message, attempts FROM mail_outbox
                    WHERE sent_at IS NULL AND next_attempt_at <= \(bind: now) ORDER BY id LIMIT 20
                    """
                ).all()
            }), !rows.isEmpty else { return }
            var progressed = false
            for row in rows {
                guard let id = try? row.decode(column: "id", as: Int64.self),
                      let sealed = try? row.decode(column: "sealed_message", as: String.self),
                      let attempts = try? row.decode(column: "attempts", as: Int64.self)
                else { continue }
                if await deliver(id: id, sealed: sealed, attempts: attempts) { progressed = true }
            }
            if !progressed { return }
        }
    }

    private func deliver(id: Int64, sealed: String, attempts: Int64) async -> Bool {
        let now = outbox.clock.milliseconds()
        do {
            let mail = try outbox.open(sealed)
            let rendered = mail.rendered(
                from: sender, date: Date(timeIntervalSince1970: Double(now) / 1000),
                messageID: "\(Base64URL.encode(SecureBytes.random(count: 12)))@\(messageDomain)"
            )
            try await transport.deliver(mail, rendered: rendered)
            _ = try? await database.withConnection { sql in
                try await sql.raw("UPDATE mail_outbox SET sent_at = \(bind: now), sealed_message = '', attempts = \(bind: attempts + 1), last_error = NULL WHERE id = \(bind: id)").run()
            }
            logger.info("mail sent", metadata: ["outbox_id": "\(id)"])
            return true
        } catch {
            let failure = error as? MailDeliveryError ?? MailDeliveryError(String(describing: type(of: error)) + ": the message cannot be opened", permanent: true)
            let delay = min(Int64(2_000) << min(attempts, 20), 15 * 60 * 1000)
            let next = failure.isPermanent ? Int64.max : now + delay
            _ = try? await database.withConnection { sql in
                try await sql.raw(
                    "UPDATE mail_outbox SET attempts = \(bind: attempts + 1), next_attempt_at = \(bind: next), last_error = \(bind: failure.reason) WHERE id = \(bind: id)"
                ).run()
            }
            logger.warning(
                "mail not sent",
                metadata: ["outbox_id": "\(id)", "attempt": "\(attempts + 1)", "reason": "\(failure.reason)", "retry": "\(failure.isPermanent ? "never" : "in \(delay / 1000) s")"]
            )
            return false
        }
    }
}

/// Wall-clock time in milliseconds since 1970, injectable so tests can move it (expiry, throttles, backoff).
public struct WallClock: Sendable {
    public let milliseconds: @Sendable () -> Int64

    public init(milliseconds: @escaping @Sendable () -> Int64) {
        self.milliseconds = milliseconds
    }

    public static let system = WallClock { Int64(Date().timeIntervalSince1970 * 1000) }
}
