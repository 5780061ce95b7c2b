import DeepLinksSecrets
import DeepLinksStorage
import DeepLinksSupport

/// Sessions: one mechanism for the app's accounts (`Bearer` tokens of the API) and the console's operators (a
/// cookie). A session token is 256 random bits (``SecretToken``) for the client, stored only as a digest
/// (``SessionStore``); it lives while it is used within `idle` and for at most `lifetime` after sign-in; its use is
/// recorded at most once a minute; sign-out, a password change or reset, or the owner's removal ends it.
struct Sessions: Sendable {
    let store: SessionStore
    let clock: WallClock
    let idle: Int64
    let lifetime: Int64
    /// Every digest a token may be stored under, the one to store first (keyed digests follow a key rotation).
    let digests: @Sendable (String) -> [String]

    /// A new session of `owner`: the token for the client.
    func start(owner: Int64) async throws -> String {
        let token = SecretToken.generate()
        try await store.insert(digest: digests(token)[0], owner: owner, now: clock.milliseconds())
        return token
    }

    /// The owner of a live session, whose use this records; nil for a malformed, unknown, idle or old token.
    func owner(of token: String) async throws -> Int64? {
        guard SecretToken.isWellFormed(token) else { return nil }
        let candidates = digests(token)
        let now = clock.milliseconds()
        guard
            let found = try await store.find(digests: candidates, createdAfter: now - lifetime, usedAfter: now - idle),
            candidates.contains(where: { SecureBytes.equal(Array($0.utf8), Array(found.digest.utf8)) })
        else { return nil }
        if found.usedAt < now - 60_000 { try await store.recordUse(digest: found.digest, at: now) }
        return found.owner
    }

    func end(_ token: String) async throws {
        try await store.delete(digests: digests(token))
    }
}
