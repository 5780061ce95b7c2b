import Crypto
import DeepLinks
import DeepLinksSupport
import Foundation

/// The server's versioned secret keys (the "pepper"): reset tokens and session tokens are stored only as
/// an HMAC-SHA-256 under one of them, so a copy of the database yields nothing usable as a link (T2).
///
/// The newest version signs new tokens; every listed version still verifies, so adding a key rotates
/// without breaking links in flight. Configured as `DEEPLINKS_SECRET_KEYS="2:BASE64,1:BASE64"`.
public struct SecretKeys: Sendable {
    public struct Key: Sendable {
        public let version: Int
        package let key: SymmetricKey
    }

    public let keys: [Key]
    public var current: Key { keys[0] }

    /// - Parameter keys: version and key material (at least 32 bytes each).
    ///   - setting: what errors name (`secret keys`, `hook secrets`).
    public init(_ keys: [(version: Int, bytes: [UInt8])], setting: String = "secret keys") throws(ConfigurationError) {
        guard !keys.isEmpty else {
            throw ConfigurationError(setting: setting, reason: "at least one key is needed")
        }
        for key in keys where key.bytes.count < 32 {
            throw ConfigurationError(
                setting: setting,
                reason: "key version \(key.version) has \(key.bytes.count) bytes; use at least 32"
            )
        }
        guard Set(keys.map(\.version)).count == keys.count else {
            throw ConfigurationError(setting: setting, reason: "two keys have the same version")
        }
        self.keys = keys.sorted { $0.version > $1.version }.map {
            Key(version: $0.version, key: SymmetricKey(data: $0.bytes))
        }
    }

    /// Parses `VERSION:BASE64[,VERSION:BASE64...]`. The message never repeats key material.
    public init(parsing string: String, setting: String = "secret keys") throws(ConfigurationError) {
        var parsed: [(version: Int, bytes: [UInt8])] = []
        for (index, item) in string.split(separator: ",").enumerated() {
            let pair = item.split(separator: ":", maxSplits: 1)
            guard pair.count == 2, let version = Int(pair[0].trimmingCharacters(in: .whitespaces)), version > 0,
                let bytes = Data(base64Encoded: pair[1].trimmingCharacters(in: .whitespaces))
                    ?? Base64URL.decode(String(pair[1])).map({ Data($0) })
            else {
                throw ConfigurationError(
                    setting: setting,
                    reason: "item \(index + 1) is not VERSION:BASE64 (a positive version, a colon, base64 key bytes)"
                )
            }
            parsed.append((version, Array(bytes)))
        }
        try self.init(parsed, setting: setting)
    }

    /// A fresh random key, for tests and a first development start.
    public static func random(version: Int = 1) -> SecretKeys {
        try! SecretKeys([(version, SecureBytes.random(count: 32))])
    }

    /// `VERSION:BASE64` of the current key, to persist a generated development key.
    package var serialized: String {
        "\(current.version):" + current.key.withUnsafeBytes { Data($0).base64EncodedString() }
    }

    /// The stored form of `secret` under `key`, with a purpose label so a session hash never equals a reset hash.
    package func digest(_ secret: String, purpose: String, key: Key) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array("\(purpose)\u{0}\(secret)".utf8), using: key.key)
        return "v\(key.version)$" + Hex.encode(mac)
    }

    /// The stored forms of `secret` under every key, newest first: what a lookup searches for.
    package func digests(_ secret: String, purpose: String) -> [String] {
        keys.map { digest(secret, purpose: purpose, key: $0) }
    }

    /// A subkey for one purpose (sealing queued mail, hashing IP addresses), derived with HKDF from `key`
    /// (the current one unless given).
    package func subkey(_ purpose: String, of key: Key? = nil) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: (key ?? current).key, info: Array(purpose.utf8), outputByteCount: 32)
    }
}
