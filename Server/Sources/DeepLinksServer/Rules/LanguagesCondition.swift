/// `languages`: the visitor's preferred language (`Accept-Language`, highest quality first) is one of these or a
/// variant of one: `de` matches `de-CH`; `de-CH` does not match `de`. Lower-cased as decoded.
struct LanguagesCondition: ListCondition {
    var items: [String]

    static let key = "languages"
    static let label = "Preferred languages"
    static let help = "As de, fr-ch: the visitor's first language is one of these or a variant of one"
    static func normalized(_ item: String) -> String { item.lowercased() }
    static let schema = #"""
        {"languages": {"type": "array", "minItems": 1, "maxItems": 50, "items": {"type": "string", "examples": ["de", "pt-br"]},
          "description": "The visitor's most preferred Accept-Language tag (by quality) is one of these or a variant of one: de matches de-CH."}}
        """#

    static func fact(_ visitor: inout RuleVisitor) -> String? { visitor.language().map { "language \($0)" } }

    func check(_ visitor: inout RuleVisitor) -> ConditionCheck {
        guard let language = visitor.language() else { return .fails }
        return items.contains { Self.isVariant(language, of: $0) } ? .holds : .fails
    }

    func miss(_ visitor: inout RuleVisitor) -> String {
        visitor.language().map { "prefers \($0)" } ?? "no Accept-Language"
    }

    func problems(field: String, in when: LinkRule.Conditions) -> [String] {
        items.isEmpty || items.count > 50 || !items.allSatisfy(Self.isLanguage)
            ? ["\(field).languages: 1 to 50 language tags, as de, de-ch or pt-br"] : []
    }

    func covers(_ other: Self) -> Bool {
        other.items.allSatisfy { tag in items.contains { tag == $0 || tag.hasPrefix($0 + "-") } }
    }

    /// `de`, `de-ch`, `zh-hant-tw`: a primary tag of 2 or 3 letters and subtags of 1 to 8 letters or digits.
    static func isLanguage(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter })
        else { return false }
        return parts.dropFirst().allSatisfy {
            (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    /// Whether `tag` is `language` or one of its variants (`de-ch` of `de`), without building a string.
    static func isVariant(_ tag: String, of language: String) -> Bool {
        var tagBytes = tag.utf8.makeIterator()
        for byte in language.utf8 where tagBytes.next() != byte { return false }
        let next = tagBytes.next()
        return next == nil || next == UInt8(ascii: "-")
    }
}
