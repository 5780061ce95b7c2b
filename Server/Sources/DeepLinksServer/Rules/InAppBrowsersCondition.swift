/// `inAppBrowsers`: the visitor is in one of these apps' own browsers (``InAppBrowser``), or in any of them. iOS
/// does not hand a universal link tapped there to the app it belongs to, so a team may send those visitors to a
/// page that explains how to open the app.
struct InAppBrowsersCondition: ListCondition {
    /// Lower-cased: ``InAppBrowser/key``s, or `any`.
    var items: [String]

    static let any = "any"
    static let names = [any] + InAppBrowser.allCases.map(\.key)

    static let key = "inAppBrowsers"
    static let label = "In-app browsers"
    static let help =
        "Any, or some of \(InAppBrowser.allCases.map(\.key).joined(separator: ", ")): visitors in that app's own browser"
    static func normalized(_ item: String) -> String { item.lowercased() }
    static var schema: String {
        """
        {"inAppBrowsers": {"type": "array", "minItems": 1, "items": {"type": "string", "enum": [\(names.map { "\"\($0)\"" }.joined(separator: ", "))]},
          "description": "The visitor is in one of these apps' in-app browsers (any: in any of them), told by the app's token in the User-Agent. iOS does not hand a universal link tapped there to the app it belongs to."}}
        """
    }

    static func fact(_ visitor: inout RuleVisitor) -> String? {
        visitor.inAppBrowser().map { "in-app browser \($0.rawValue)" }
    }

    func check(_ visitor: inout RuleVisitor) -> ConditionCheck {
        guard let browser = visitor.inAppBrowser() else { return .fails }
        return items.contains(Self.any) || items.contains(browser.key) ? .holds : .fails
    }

    func miss(_ visitor: inout RuleVisitor) -> String {
        visitor.inAppBrowser().map { "in-app browser is \($0.rawValue)" } ?? "not in an in-app browser"
    }

    func problems(field: String, in when: LinkRule.Conditions) -> [String] {
        let unknown = items.filter { !Self.names.contains($0) }
        guard items.isEmpty || !unknown.isEmpty else { return [] }
        return [
            "\(field).inAppBrowsers: 1 or more of \(Self.names.joined(separator: ", "))"
                + (unknown.isEmpty
                    ? "" : ", not \(unknown.prefix(5).map { "'\($0.prefix(40))'" }.joined(separator: ", "))")
        ]
    }

    func covers(_ other: Self) -> Bool { items.contains(Self.any) || isSuperset(items, other.items) }
}
