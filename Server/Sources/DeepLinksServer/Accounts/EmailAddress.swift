import Foundation

/// An email address as submitted, checked, with the form accounts are matched by (R6).
///
/// Matching uses NFKC and lower case on both parts, so `User@Example.COM` finds `user@example.com`, while
/// letters from other scripts stay themselves: `user@gıthub.com` (dotless ı) never matches `user@github.com`.
/// Mail always goes to the address stored with the account, never to the one submitted.
package struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address as the user typed it, trimmed: what they see in mail and on pages.
    package let display: String
    /// The matching key: NFKC, lower-cased.
    package let normalized: String

    /// RFC 5321's limit on a path: 254 octets for the address.
    package static let maxOctets = 254

    package init(_ string: String) throws(EmailAddressError) {
        // Only ASCII spaces are trimmed: Foundation's `.whitespaces` also drops U+200B, which would
        // make `user@example.com<ZWSP>` match `user@example.com`.
        let trimmed = string.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        guard !trimmed.isEmpty else { throw .empty }
        guard trimmed.utf8.count <= Self.maxOctets else { throw .tooLong }
        // CR, LF and NUL would inject headers or SMTP commands; no control character belongs in an address.
        guard
            !trimmed.unicodeScalars.contains(where: {
                $0.properties.generalCategory == .control || $0.properties.generalCategory == .format
            })
        else {
            throw .controlCharacter
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.isWhitespace }) else { throw .whitespace }
        // A quoted local part may hold an "@"; the domain never does.
        guard let at = trimmed.lastIndex(of: "@") else { throw .notOneAt }
        let local = trimmed[..<at]
        let domain = trimmed[trimmed.index(after: at)...]
        guard local.first == "\"" || !local.contains("@") else { throw .notOneAt }
        guard !local.isEmpty, !domain.isEmpty, local.utf8.count <= 64 else { throw .emptyPart }
        guard Self.isValidLocalPart(local) else { throw .invalidLocalPart }
        guard !domain.hasPrefix("."), !domain.hasSuffix("."), !domain.contains(".."),
            !domain.contains(where: { "[]()<>,;:\\\"/".contains($0) })
        else { throw .invalidDomain }
        display = trimmed
        normalized = trimmed.precomposedStringWithCompatibilityMapping.lowercased()
    }

    package var description: String { display }

    /// RFC 5322's dot-atom (RFC 6531 adds any non-ASCII character) or a quoted string: `a.b+c@`, `"a..b"@`.
    /// `x<y@example.com` is refused: in a `To:` header it would read as another address.
    static func isValidLocalPart(_ local: Substring) -> Bool {
        if local.count >= 2, local.first == "\"", local.last == "\"" {
            var escaped = false
            for scalar in local.dropFirst().dropLast().unicodeScalars {
                if escaped { escaped = false; continue }
                if scalar == "\\" { escaped = true; continue }
                if scalar == "\"" { return false }
            }
            return !escaped
        }
        let atext = Set("!#$%&'*+-/=?^_`{|}~".unicodeScalars)
        return local.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { atom in
            !atom.isEmpty
                && atom.unicodeScalars.allSatisfy { scalar in
                    !scalar.isASCII || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                        || ("0"..."9").contains(scalar) || atext.contains(scalar)
                }
        }
    }

    /// `u***@example.com`: enough for a person to recognise their address, not enough to learn one.
    package static func masked(_ address: String) -> String {
        guard let at = address.lastIndex(of: "@") else { return "***" }
        let local = address[..<at]
        return (local.first.map(String.init) ?? "") + "***" + address[at...]
    }
}

/// Why a string is not an email address; the raw value is the reason the API answers with.
package enum EmailAddressError: String, Error, Sendable {
    case empty, tooLong = "too_long", controlCharacter = "control_character", notOneAt = "not_one_at"
    case emptyPart = "empty_part", whitespace, invalidDomain = "invalid_domain", invalidLocalPart =
        "invalid_local_part"
}
