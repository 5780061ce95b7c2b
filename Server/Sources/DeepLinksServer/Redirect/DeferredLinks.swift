import DeepLinks
import DeepLinksJSON
import DeepLinksSecrets
import DeepLinksStorage
import DeepLinksSupport
import Foundation

/// Deferred deep links without fingerprinting (no IP address or device traits matched). Someone without the app
/// taps "Get the app" on a landing page: the page asks for a one-time token and leaves
/// `https://LINK_DOMAIN/CODE#deferred=TOKEN` on the pasteboard on the way to the App Store. Once installed,
/// the app reads it (through `UIPasteControl`, so iOS asks nothing and nothing is read without a tap) and
/// redeems the token for the link's route. No IP address, device model or time window is matched.
///
/// A token is 128 random bits, stored only as a keyed hash, good for one redemption within an hour.
struct DeferredLinks: Sendable {
    let database: Database
    let keys: SecretKeys
    let clock: WallClock
    /// `deferred.redeemed` (the link's code) for the webhook endpoints.
    var events: WebhookEvents? = nil

    static let lifetimeMilliseconds: Int64 = 3_600_000
    static let purpose = "deferred-link"

    /// A new token for the link `code`. Expired tokens are never redeemed, and ``Pruning`` deletes them
    /// hourly (by the `expires_at` index), not each request.
    func issue(code: String) async throws -> String {
        let token = Base64URL.encode(SecureBytes.random(count: 16))
        let now = clock.milliseconds()
        let hash = keys.digest(token, purpose: Self.purpose, key: keys.current)
        try await DeferredLinkStore(database: database).insert(
            tokenHash: hash,
            code: code,
            expiresAt: now + Self.lifetimeMilliseconds
        )
        return token
    }

    /// The link code of `token`, which is used up: nil when it is unknown, used or expired.
    func redeem(_ token: String) async throws -> String? {
        let now = clock.milliseconds()
        let hashes = keys.digests(token, purpose: Self.purpose)
        return try await database.transaction { sql in
            for hash in hashes {
                guard let (code, expiresAt) = try await DeferredLinkStore.take(tokenHash: hash, on: sql) else {
                    continue
                }
                guard expiresAt > now else { return nil }
                try await events?.enqueue("deferred.redeemed", .object(["code": .string(code)]), on: sql)
                // An install the link brought (the token is taken once: counted once, on any replica).
                try await FunnelStore.add(
                    .init(code: code, day: ClickCounter.day(now), kind: .install, name: ""),
                    on: sql
                )
                return code
            }
            return nil
        }
    }

    /// The shape of a token: 22 base64url characters (16 bytes).
    static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == 22 && CharacterRule.base64URL.allows(token)
    }
}
