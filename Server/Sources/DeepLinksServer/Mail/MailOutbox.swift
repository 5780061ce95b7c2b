import Crypto
import DeepLinksMail
import DeepLinksSecrets
import DeepLinksStorage
import DeepLinksSupport
import Foundation
import Logging
import Prometheus

/// The durable queue of outgoing mail: a message is a row written in the transaction that decided to send
/// it, so no mail is lost while the SMTP server is down and none is sent for a change that rolled back.
///
/// Rows are sealed (ChaChaPoly under a subkey of the server's secret) because a reset message carries a
/// live link: a copy of the database must not yield one (T2). A row keeps the version of the key it was
/// sealed under, so it still opens after a rotation (`2:new,1:old`). A sent message's body is erased.
///
/// Several servers may share the database: the mail job claims a row before sending it (``MailSender``, in Jobs/),
/// and the Message-ID is chosen when the row is queued, so the rare duplicate (a crash between the SMTP
/// server's 250 and the row's update) carries the same Message-ID and receivers can drop it.
package struct MailOutbox: Sendable {
    let keys: SecretKeys
    let clock: WallClock
    /// The right-hand side of Message-IDs.
    let messageDomain: String

    init(keys: SecretKeys, clock: WallClock, messageDomain: String) {
        self.keys = keys
        self.clock = clock
        self.messageDomain = messageDomain
    }

    /// Adds `mail` to the queue, on the caller's connection (inside its transaction).
    ///
    /// - Parameter resetTokenHash: the stored hash of the reset token the message carries: when that token is
    ///   no longer live at sending time (superseded by a newer link, expired, used), the message is dropped.
    func enqueue(_ mail: OutgoingMail, kind: String, resetTokenHash: String? = nil, on sql: DatabaseConnection)
        async throws
    {
        let key = keys.current
        let sealed = try ChaChaPoly.seal(JSONEncoder().encode(mail), using: keys.subkey("mail outbox", of: key))
            .combined.base64EncodedString()
        let messageID = "\(Base64URL.encode(SecureBytes.random(count: 16)))@\(messageDomain)"
        let message = MailOutboxStore.NewMessage(
            kind: kind,
            sealed: sealed,
            createdAt: clock.milliseconds(),
            messageID: messageID,
            keyVersion: key.version,
            resetTokenHash: resetTokenHash
        )
        try await MailOutboxStore.insert(message, on: sql)
    }

    /// Opens a sealed row: under the key version it names first, then under every other configured key.
    func open(_ sealed: String, keyVersion: Int?) throws(MailDeliveryError) -> OutgoingMail {
        guard let data = Data(base64Encoded: sealed), let box = try? ChaChaPoly.SealedBox(combined: data) else {
            throw MailDeliveryError("the queued message is damaged (not a sealed box)", permanent: true)
        }
        let ordered = keys.keys.filter { $0.version == keyVersion } + keys.keys.filter { $0.version != keyVersion }
        for key in ordered {
            if let opened = try? ChaChaPoly.open(box, using: keys.subkey("mail outbox", of: key)),
                let mail = try? JSONDecoder().decode(OutgoingMail.self, from: opened)
            {
                return mail
            }
        }
        let version = keyVersion.map { "key version \($0)" } ?? "an unknown key version"
        throw MailDeliveryError(
            "the queued message was sealed under \(version), which DEEPLINKS_SECRET_KEYS no longer lists: add that key back and requeue it",
            permanent: true
        )
    }
}
