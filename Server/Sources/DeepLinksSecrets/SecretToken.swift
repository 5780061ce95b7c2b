import Crypto
import DeepLinks
import DeepLinksSupport
import Foundation

/// Secret tokens: 32 bytes (256 bits) from the CSPRNG, base64url (43 characters), nothing embedded (T1).
package enum SecretToken {
    package static func generate() -> String { Base64URL.encode(SecureBytes.random(count: 32)) }

    /// The shape of a token: 43 to 128 characters of the base64url alphabet.
    package static func isWellFormed(_ token: String) -> Bool {
        (43...128).contains(token.utf8.count) && CharacterRule.base64URL.allows(token)
    }
}
