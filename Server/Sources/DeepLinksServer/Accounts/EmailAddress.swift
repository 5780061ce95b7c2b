import Foundation

/// An email address as submitted, checked, with the form accounts are matched by (R6).
///
/// Matching uses NFKC and lower case on both parts, so `User@Example.COM` finds `user@example.com`, while
/// letters from other scripts stay themselves: `user@gıthub.com` (dotless ı) never matches `user@github.com`.
/// Mail always goes to the address stored with the account, never to the one submitted.
public struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address as the user typed it, trimmed: what they see in mail and on pages.
    public let display: String
    /// The matching key: NFKC, lower-cased.
    public let normalized: String

    /// RFC 5321's limit on a path: 254 octets for the address.
    public static let maxOctets = 254

    public enum Problem: String, Error, Sendable {
        case empty, tooLong = "too_long", controlCharacter = "control_character", notOneAt = "not_one_at"
        case emptyPart = "empty_part", whitespace, invalidDomain = "invalid_domain"
    }

    public init(_ string: String) throws(Problem) {
        // Only ASCII spaces are trimmed: Foundation's `.whitespaces` also drops U+200B, which would
        // make `user@example.com<ZWSP>` match `user@example.com`.
        let trimmed = string.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        guard !trimmed.isEmpty else { throw .empty }
        guard trimmed.utf8.count <= Self.maxOctets else { throw .tooLong }
        // CR, LF and NUL would inject headers or SMTP commands; no control character belongs in an address.
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }) else {
            throw .controlCharacter
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.isWhitespace }) else { throw .whitespace }
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw .notOneAt }
        guard !parts[0].isEmpty, !parts[1].isEmpty, parts[0].utf8.count <= 64 else { throw .emptyPart }
        let domain = parts[1]
        guard !domain.hasPrefix("."), !domain.hasSuffix("."), !domain.contains(".."),
              !domain.contains(where: { "[]()<>,;:\\\"/".contains($0) })
        else { throw .invalidDomain }
        display = trimmed
        normalized = trimmed.precomposedStringWithCompatibilityMapping.lowercased()
    }

    public var description: String { display }

    /// `u***@example.com`: enough for a person to recognise their address, not enough to learn one.
    public static func masked(_ address: String) -> String {
        guard let at = address.lastIndex(of: "@") else { return "***" }
        let local = address[..<at]
        return (local.first.map(String.init) ?? "") + "***" + address[at...]
    }
}
