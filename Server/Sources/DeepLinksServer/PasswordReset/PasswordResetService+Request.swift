import Crypto
import DeepLinksMail
import DeepLinksSecrets
import DeepLinksStorage
import DeepLinksSupport
import Foundation
import Hummingbird
import Logging
import Prometheus

/// Requests: recorded at once (`password_reset_requests`), turned into one live link and its mail by
/// ``ResetRequestsJob``, within the caps.
extension PasswordResetService {
    func request(email submitted: String, client: Client) async throws {
        let email = try AccountService.address(submitted)
        let key = keys.digest(email.normalized, purpose: "reset address", key: keys.current)
        let network = hashed(ClientNetwork.key(client.address))
        let now = clock.milliseconds()
        try await database.withConnection { sql in
            try await PasswordResetStore.insertRequest(
                address: email.normalized,
                addressKey: key,
                clientKey: network,
                at: now,
                on: sql
            )
            // Who asked is known now; which account, only to the background job.
            try await audit("reset.received", account: nil, client: client, on: sql)
        }
        wake()
    }

    /// Stores `token` as the account's one live token (a new one supersedes the old, T5), and queues the mail
    /// carrying it unless `mail` is false (the backend sends its own: `deliver: "return"`).
    func issue(
        _ token: String,
        account: PasswordResetStore.ResetAccount,
        mail: Bool,
        now: Int64,
        on sql: DatabaseConnection
    ) async throws {
        let display = account.display
        let tokenHash = keys.digest(token, purpose: "reset", key: keys.current)
        try await PasswordResetStore.replaceToken(
            of: account,
            tokenHash: tokenHash,
            keyVersion: keys.current.version,
            expiresAt: now + settings.tokenLifetimeSeconds * 1000,
            at: now,
            on: sql
        )
        if mail {
            let message = ResetMail.reset(
                to: display,
                universal: try links.universal(token: token, email: display),
                scheme: try links.customScheme(token: token, email: display),
                appName: appName,
                lifetimeMinutes: settings.tokenLifetimeSeconds / 60
            )
            try await outbox.enqueue(message, kind: "password-reset", resetTokenHash: tokenHash, on: sql)
        }
        try await audit("reset.requested", account: account.id, client: nil, on: sql)
    }
}
