import Foundation

/// What a new password must be (NIST SP 800-63B-4): long enough, not too long, not common, not the
/// user's own address or the app's name. No composition rules, no truncation.
///
/// Length counts Unicode code points after NFKC, the form that is hashed. The size ceiling is checked on
/// the raw bytes first, so an oversized input is refused before any normalisation, comparison or hashing (C2).
public struct PasswordPolicy: Sendable {
    /// 15 when the password is the only factor; 8 is allowed when it is a second factor.
    public var minimumLength = 15
    public var maximumLength = 256
    /// Bytes of the submitted string, checked before anything else.
    public var maximumBytes = 1024
    /// Words that make a password guessable in context, besides the address: the app's name, say.
    public var contextWords: [String] = []

    public init() {}

    /// Why a password is refused, as stable codes for clients.
    public enum Reason: String, Sendable, Codable {
        case tooShort = "too_short"
        case tooLong = "too_long"
        case common
        case containsEmail = "contains_email"
        case containsContextWord = "contains_context_word"
        case repetitive
    }

    /// The reasons `password` is refused; empty when it is acceptable.
    public func problems(_ password: String, email: String?) -> [Reason] {
        guard password.utf8.count <= maximumBytes else { return [.tooLong] }
        let normalized = Self.normalize(password)
        let length = normalized.unicodeScalars.count
        if length > maximumLength { return [.tooLong] }
        var reasons: [Reason] = []
        if length < minimumLength { reasons.append(.tooShort) }
        let lowered = normalized.lowercased()
        if Self.isCommon(lowered) { reasons.append(.common) }
        if let email, let local = email.split(separator: "@").first, local.count >= 3,
            lowered.contains(local.lowercased())
        {
            reasons.append(.containsEmail)
        }
        if contextWords.contains(where: { $0.count >= 3 && lowered.contains($0.lowercased()) }) {
            reasons.append(.containsContextWord)
        }
        if Set(lowered.unicodeScalars).count <= 2 || Self.isSequence(lowered) { reasons.append(.repetitive) }
        return reasons
    }

    /// The form that is hashed and compared: NFKC, so the same passphrase typed on two keyboards matches.
    public static func normalize(_ password: String) -> String {
        password.precomposedStringWithCompatibilityMapping
    }

    /// A blocklisted word, alone or padded with digits and symbols (`password1234567!`), or repeated.
    static func isCommon(_ lowered: String) -> Bool {
        if commonPasswords.contains(lowered) { return true }
        let core = lowered.trimmingCharacters(in: CharacterSet.letters.inverted)
        if core.isEmpty { return commonPasswords.contains(lowered) }
        if commonWords.contains(core) || commonPasswords.contains(core) { return true }
        // `passwordpasswordpassword`: a common word repeated.
        return commonWords.contains { word in
            core.count % word.count == 0 && String(repeating: word, count: core.count / word.count) == core
        }
    }

    /// `123456789012345`, `abcdefghijklmnop`, `987654321098765`: a run of consecutive characters.
    static func isSequence(_ lowered: String) -> Bool {
        let values = lowered.unicodeScalars.map { Int($0.value) }
        guard values.count >= 4 else { return false }
        let steps = zip(values, values.dropFirst()).map { $1 - $0 }
        let wraps: Set<Int> = [1, -1, -9, 9]  // 9 → 0 and 0 → 9 continue a digit run
        return steps.allSatisfy { wraps.contains($0) }
            && (steps.allSatisfy { $0 == 1 || $0 == -9 } || steps.allSatisfy { $0 == -1 || $0 == 9 })
    }

    /// Passwords that breach corpora rank first; keyboard walks long enough to pass a length rule.
    static let commonPasswords: Set<String> = [
        "123456789012345", "1234567890123456", "qwertyuiopasdfgh", "qwertyuiopasdfghjkl", "1q2w3e4r5t6y7u8i",
        "1qaz2wsx3edc4rfv", "qazwsxedcrfvtgb", "zaq12wsxcde34rfv", "passwordpassword", "iloveyouiloveyou",
        "correcthorsebatterystaple", "correct horse battery staple", "aaaaaaaaaaaaaaa", "letmeinletmein",
        "qwertyqwertyqwerty", "asdfghjklasdfghjkl", "abc123abc123abc123",
    ]

    /// Words that, padded with digits or repeated, make most "long" breached passwords.
    static let commonWords: Set<String> = [
        "password", "passw", "passwort", "motdepasse", "contraseña", "qwerty", "qwertyuiop", "letmein", "welcome",
        "iloveyou", "admin", "administrator", "monkey", "dragon", "football", "baseball", "superman", "batman",
        "sunshine", "princess", "shadow", "master", "trustno", "login", "starwars", "whatever", "freedom",
        "changeme", "secret", "abc", "abcdef", "default", "test", "guest", "root", "hello", "summer", "winter",
    ]
}
