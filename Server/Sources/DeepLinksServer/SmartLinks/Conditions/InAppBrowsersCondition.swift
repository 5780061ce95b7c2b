/// `inAppBrowsers`: the visitor is in one of these apps' own browsers (``InAppBrowser``), or in any of them. iOS
/// does not hand a universal link tapped there to the app it belongs to, so a team may send those visitors to a
/// page that explains how to open the app.
struct InAppBrowsersCondition: RuleCondition {
    /// Lower-cased: ``InAppBrowser/key``s, or `any`.
    var browsers: [String]

    static let any = "any"
    static let names = [any] + InAppBrowser.allCases.map(\.key)

    static let keys = ["inAppBrowsers"]
    static var schema: String {
        """
        {"inAppBrowsers": {"type": "array", "minItems": 1, "items": {"type": "string", "enum": [\(names.map { "\"\($0)\"" }.joined(separator: ", "))]},
          "description": "The visitor is in one of these apps' in-app browsers (any: in any of them), told by the app's token in the User-Agent. iOS does not hand a universal link tapped there to the app it belongs to."}}
        """
    }
    static let form: ConditionForm? = ConditionForm(
        key: "inAppBrowsers",
        label: "In-app browsers",
        inputs: [
            .init(
                field: "inAppBrowsers",
                label: "In-app browsers",
                help:
                    "Any, or some of \(InAppBrowser.allCases.map(\.key).joined(separator: ", ")): visitors in that app's own browser"
            )
        ]
    )

    static func fact(_ visitor: inout RuleVisitor) -> String? {
        visitor.inAppBrowser().map { "in-app browser \($0.rawValue)" }
    }

    static func parse(_ form: ConditionFormInput, complaints: inout [String]) -> Self? {
        form.list("inAppBrowsers").map { Self(browsers: $0.map { $0.lowercased() }) }
    }

    init(browsers: [String]) { self.browsers = browsers }

    init?(from when: KeyedDecodingContainer<StrictKeys>) throws {
        guard let browsers = try when.list("inAppBrowsers", { $0.lowercased() }) else { return nil }
        self.browsers = browsers
    }

    func encode(to when: inout KeyedEncodingContainer<StrictKeys>) throws { try when.put(browsers, "inAppBrowsers") }

    func check(_ visitor: inout RuleVisitor) -> ConditionCheck {
        guard let browser = visitor.inAppBrowser() else { return .fails }
        return browsers.contains(Self.any) || browsers.contains(browser.key) ? .holds : .fails
    }

    func miss(_ visitor: inout RuleVisitor) -> String {
        visitor.inAppBrowser().map { "in-app browser is \($0.rawValue)" } ?? "not in an in-app browser"
    }

    func problems(field: String, in when: LinkRule.Conditions) -> [String] {
        let unknown = browsers.filter { !Self.names.contains($0) }
        guard browsers.isEmpty || !unknown.isEmpty else { return [] }
        return [
            "\(field).inAppBrowsers: 1 or more of \(Self.names.joined(separator: ", "))"
                + (unknown.isEmpty
                    ? "" : ", not \(unknown.prefix(5).map { "'\($0.prefix(40))'" }.joined(separator: ", "))")
        ]
    }

    func covers(_ other: Self) -> Bool { browsers.contains(Self.any) || isSuperset(browsers, other.browsers) }

    var heapBytes: Int { MemoryEstimate.strings(browsers) }

    var formFields: [(field: String, value: String)] { [("inAppBrowsers", browsers.joined(separator: ", "))] }
}
