import Foundation

/// A compiled AASA pattern (§6, §13): `*` any run (crossing `/`), `?` one character, `$(name)` one
/// alternative of a substitution variable. Matching is whole-string (P4), by characters (P7), with
/// optional case folding (§10).
struct AASAPattern: Sendable, Hashable, CustomStringConvertible {
    enum Token: Sendable, Hashable {
        case literal(Character)
        case any  // *
        case one  // ?
        case alternatives([[Token]])  // $(custom) or $(region)/$(lang): one alternative, each its own token list
        case characterClass(CharacterClass)
        case never  // an undefined or unterminated variable: never matches (SV11)
    }

    enum CharacterClass: String, Sendable, Hashable {
        case alpha, upper, lower, alnum, digit, xdigit

        func contains(_ character: Character, caseSensitive: Bool) -> Bool {
            guard character.isASCII, let value = character.asciiValue else { return false }
            let isUpper = value >= 65 && value <= 90
            let isLower = value >= 97 && value <= 122
            let isDigit = value >= 48 && value <= 57
            switch self {
            case .alpha: return isUpper || isLower
            case .upper: return isUpper || (!caseSensitive && isLower)
            case .lower: return isLower || (!caseSensitive && isUpper)
            case .alnum: return isUpper || isLower || isDigit
            case .digit: return isDigit
            case .xdigit: return isDigit || (value >= 65 && value <= 70) || (value >= 97 && value <= 102)
            }
        }
    }

    let text: String
    let tokens: [Token]

    var description: String { text }

    /// The predefined variables of SV5.
    static let predefinedNames: Set<String> = ["alpha", "upper", "lower", "alnum", "digit", "xdigit", "region", "lang"]

    static let regionCodes: [String] = Locale.Region.isoRegions.map(\.identifier).filter {
        $0.count == 2 && $0.allSatisfy(\.isLetter)
    }.sorted()
    static let languageCodes: [String] = Locale.LanguageCode.isoLanguageCodes.map(\.identifier).sorted()

    init(_ text: String, variables: [String: [String]], caseSensitive: Bool) {
        self.text = text
        let tokens = Self.tokenize(text, variables: variables, caseSensitive: caseSensitive, allowVariables: true)
        self.tokens = caseSensitive ? tokens : Self.foldLiterals(tokens)
    }

    private static func tokenize(
        _ text: String,
        variables: [String: [String]],
        caseSensitive: Bool,
        allowVariables: Bool
    ) -> [Token] {
        var tokens: [Token] = []
        var characters = Array(text)[...]
        while let character = characters.first {
            characters = characters.dropFirst()
            switch character {
            case "*":
                if tokens.last != .any { tokens.append(.any) }
            case "?":
                tokens.append(.one)
            case "$" where allowVariables && characters.first == "(":
                guard let close = characters.firstIndex(of: ")") else {
                    tokens.append(.never)  // unterminated: never matches (SV11)
                    return tokens
                }
                let name = String(characters[characters.index(after: characters.startIndex)..<close])
                characters = characters[characters.index(after: close)...]
                if let values = variables[name] {
                    // Values may hold * and ? but never another variable (SV4).
                    tokens.append(
                        .alternatives(
                            values.map {
                                tokenize(
                                    fold($0, caseSensitive),
                                    variables: [:],
                                    caseSensitive: caseSensitive,
                                    allowVariables: false
                                )
                            }
                        )
                    )
                } else if let characterClass = CharacterClass(rawValue: name) {
                    tokens.append(.characterClass(characterClass))
                } else if name == "region" {
                    tokens.append(.alternatives(regionCodes.map { fold($0, caseSensitive).map(Token.literal) }))
                } else if name == "lang" {
                    tokens.append(.alternatives(languageCodes.map { fold($0, caseSensitive).map(Token.literal) }))
                } else {
                    tokens.append(.never)  // undefined, including $() and $(any) (SV11, Q14)
                }
            default:
                tokens.append(.literal(character))
            }
        }
        return tokens
    }

    /// `text` as compared: lower-cased when matching ignores case (C4: escapes' hex digits fold too).
    static func fold(_ text: String, _ caseSensitive: Bool) -> String {
        caseSensitive ? text : text.lowercased()
    }

    /// Whether the whole of `subject` matches. `subject` must already be folded when case-insensitive.
    func matches(_ subject: String, caseSensitive: Bool) -> Bool {
        matches(Array(subject), caseSensitive: caseSensitive)
    }

    /// Whether the whole of `subject` (already split into characters, and folded when case-insensitive) matches.
    func matches(_ subject: [Character], caseSensitive: Bool) -> Bool {
        var memo = Set<Int>()
        return Self.match(tokens, 0, subject, 0, caseSensitive, &memo, tail: [])
    }

    private static func foldLiterals(_ tokens: [Token]) -> [Token] {
        tokens.flatMap { token -> [Token] in
            if case .literal(let character) = token { return String(character).lowercased().map(Token.literal) }
            return [token]
        }
    }

    /// Backtracking match of `tokens[t...]` followed by `tail` against `subject[s...]`.
    private static func match(
        _ tokens: [Token],
        _ t: Int,
        _ subject: [Character],
        _ s: Int,
        _ caseSensitive: Bool,
        _ memo: inout Set<Int>,
        tail: [[Token]]
    ) -> Bool {
        if t == tokens.count {
            guard let next = tail.last else { return s == subject.count }
            return match(next, 0, subject, s, caseSensitive, &memo, tail: Array(tail.dropLast()))
        }
        switch tokens[t] {
        case .literal(let character):
            // Code point by code point: no Unicode normalization (P8), unlike Character's ==.
            return s < subject.count && subject[s].unicodeScalars.elementsEqual(character.unicodeScalars)
                && match(tokens, t + 1, subject, s + 1, caseSensitive, &memo, tail: tail)
        case .one:
            return s < subject.count && match(tokens, t + 1, subject, s + 1, caseSensitive, &memo, tail: tail)
        case .characterClass(let characterClass):
            return s < subject.count && characterClass.contains(subject[s], caseSensitive: caseSensitive)
                && match(tokens, t + 1, subject, s + 1, caseSensitive, &memo, tail: tail)
        case .any:
            // Memoize failures of top-level stars to keep patterns like *a*a*a* linear-ish.
            let key = tail.isEmpty ? t * (subject.count + 1) + s : -1
            if key >= 0, memo.contains(key) { return false }
            for start in s...subject.count where match(tokens, t + 1, subject, start, caseSensitive, &memo, tail: tail)
            {
                return true
            }
            if key >= 0 { memo.insert(key) }
            return false
        case .alternatives(let options):
            let continuation = tail + [Array(tokens[(t + 1)...])]
            for option in options {
                // Most alternatives are literal codes: skip those whose first character cannot match.
                if case .literal(let first) = option.first,
                    s >= subject.count || !subject[s].unicodeScalars.elementsEqual(first.unicodeScalars)
                {
                    continue
                }
                var innerMemo = Set<Int>()
                if match(option, 0, subject, s, caseSensitive, &innerMemo, tail: continuation) { return true }
            }
            return false
        case .never:
            return false
        }
    }
}
