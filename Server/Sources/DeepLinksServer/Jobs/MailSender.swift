import Crypto
import DeepLinksMail
import DeepLinksStorage
import DeepLinksSupport
import Foundation
import Logging
import Prometheus

/// The mail job: sends what ``MailOutbox`` queued in `mail_outbox` (reset mail, sign-up mail), oldest first, with exponential backoff (2 s doubling, at most 15 min) after a
/// temporary failure, and no retry after a permanent one (the recipient or the message refused).
///
/// Each message is claimed before it is sent, by one conditional `UPDATE ... RETURNING` that moves its
/// `next_attempt_at` past a lease (PostgreSQL skips rows another server has locked: `FOR UPDATE SKIP LOCKED`;
/// SQLite has one writer). So two servers never send the same row; a server killed mid-send leaves the row
/// to be claimed again when the lease ends, with the same Message-ID.
struct MailSender: BackgroundJob {
    var name: String { "mail" }

    let database: Database
    var store: MailOutboxStore { MailOutboxStore(database: database) }
    let outbox: MailOutbox
    let transport: any MailTransport
    let sender: String
    let logger: Logger
    var metrics: ServerMetrics? = nil
    /// Signs each message with DKIM when the operator configured a key.
    var signer: DKIMSigner? = nil
    /// How long a claim lasts: longer than one delivery may take (``SMTPTransport`` gives up after 30 s).
    var lease: Int64 = 45_000

    /// The address in a From value: `Name <a@b>` gives `a@b`, a bare address itself.
    static func address(in from: String) -> String {
        guard let open = from.lastIndex(of: "<"), let close = from.lastIndex(of: ">"), open < close else {
            return from.trimmingCharacters(in: .whitespaces)
        }
        return String(from[from.index(after: open)..<close])
    }

    func run() async throws { try await drain() }

    /// Sends every due message, one claim at a time; returns when none is due (or the task is cancelled).
    func drain() async throws {
        while !Task.isCancelled, let claimed = try await claim() {
            await deliver(claimed)
        }
    }

    /// Claims the oldest due message, or returns nil when none is due.
    func claim() async throws -> MailOutboxStore.Claimed? {
        try await store.claimDue(now: outbox.clock.milliseconds(), lease: lease, databaseClock: outbox.clock.isSystem)
    }

    private func deliver(_ claimed: MailOutboxStore.Claimed) async {
        let now = outbox.clock.milliseconds()
        let id = claimed.id
        do {
            if let hash = claimed.resetTokenHash, !(try await isLive(resetTokenHash: hash, now: now)) {
                try await finish(
                    id,
                    sentAt: nil,
                    next: MailOutboxStore.never,
                    error: "not sent: its reset link was superseded, used or expired first",
                    erase: true
                )
                logger.info("mail dropped: its reset link is no longer live", metadata: ["outbox_id": "\(id)"])
                metrics?.mailDropped.increment()
                return
            }
            let mail = try outbox.open(claimed.sealed, keyVersion: claimed.keyVersion)
            let date = Date(timeIntervalSince1970: Double(now) / 1000)
            let unsigned = mail.rendered(
                from: sender,
                date: date,
                messageID: claimed.messageID
                    ?? "\(Base64URL.encode(SecureBytes.random(count: 16)))@\(outbox.messageDomain)"
            )
            let rendered = try signer?.sign(unsigned, at: date) ?? unsigned
            try await transport.deliver(mail, rendered: rendered)
            do {
                try await finish(id, sentAt: outbox.clock.milliseconds(), next: now, error: nil, erase: true)
            } catch {
                // Sent but not marked: when the lease ends it is sent again, with the same Message-ID.
                logger.warning(
                    "mail sent but not marked as sent",
                    metadata: ["outbox_id": "\(id)", "reason": "\(Database.reason(error))"]
                )
            }
            logger.info("mail sent", metadata: ["outbox_id": "\(id)", "kind": "\(claimed.kind)"])
            metrics?.mailSent.increment()
        } catch {
            let failure = error as? MailDeliveryError ?? MailDeliveryError(Database.reason(error))
            let attempts = claimed.attempts
            let delay = min(Int64(2_000) << min(attempts - 1, 20), 15 * 60 * 1000)
            try? await finish(
                id,
                sentAt: nil,
                next: failure.isPermanent ? MailOutboxStore.never : now + delay,
                error: failure.reason
            )
            logger.warning(
                "mail not sent",
                metadata: [
                    "outbox_id": "\(id)", "attempt": "\(attempts)", "reason": "\(failure.reason)",
                    "retry": "\(failure.isPermanent ? "never (deeplinks outbox requeue)" : "in \(delay / 1000) s")",
                ]
            )
            metrics?.mailFailed.increment()
        }
    }

    private func isLive(resetTokenHash hash: String, now: Int64) async throws -> Bool {
        try await PasswordResetStore(database: database).isLive(tokenHash: hash, now: now)
    }

    /// Records the outcome of a claimed message: sent, or when to try again and why not. A sent or dropped
    /// message's body is erased.
    private func finish(_ id: Int64, sentAt: Int64?, next: Int64, error: String?, erase: Bool = false) async throws {
        try await store.record(id, sentAt: sentAt, nextAttemptAt: next, error: error, erase: erase)
    }
}
