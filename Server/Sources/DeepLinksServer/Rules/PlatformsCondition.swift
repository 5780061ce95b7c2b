/// `platforms`: the visitor's platform is one of these (`iphone`, `ipad`, `android`, `desktop`, `mac-or-ipad`).
struct PlatformsCondition: RuleCondition {
    var platforms: [ClientPlatform]

    static let keys = ["platforms"]
    static let schema = #"""
        {"platforms": {"type": "array", "minItems": 1,
          "items": {"type": "string", "enum": ["iphone", "ipad", "android", "desktop", "mac-or-ipad", "bot"]},
          "description": "The visitor's platform is one of these. mac-or-ipad is a Mac agent before the touch check; bot is refused (preview fetchers always get the Open Graph page)."}}
        """#

    static func fact(_ visitor: inout RuleVisitor) -> String? { "platform \(visitor.platform.rawValue)" }

    /// The form's checkboxes, `platform.iphone` and so on (always shown, so no "Add a condition" entry).
    static func parse(_ form: ConditionFormInput, complaints: inout [String]) -> Self? {
        let ticked = ClientPlatform.allCases.filter { form.text("platform.\($0.rawValue)") == "on" }
        return ticked.isEmpty ? nil : Self(platforms: ticked)
    }

    init(platforms: [ClientPlatform]) { self.platforms = platforms }

    init?(from when: KeyedDecodingContainer<StrictKeys>) throws {
        guard let platforms: [ClientPlatform] = try when.value("platforms") else { return nil }
        self.platforms = platforms
    }

    func encode(to when: inout KeyedEncodingContainer<StrictKeys>) throws { try when.put(platforms, "platforms") }

    func check(_ visitor: inout RuleVisitor) -> ConditionCheck {
        if platforms.contains(visitor.platform) { return .holds }
        // A Mac agent may be an iPad: the touch check tells, when the rule admits one and not the other.
        if visitor.platform == .macOrIPad, platforms.contains(.iPad) || platforms.contains(.desktop) {
            return platforms.contains(.iPad) && platforms.contains(.desktop) ? .holds : .needsPlatform
        }
        return .fails
    }

    func miss(_ visitor: inout RuleVisitor) -> String { "platform is \(visitor.platform.rawValue)" }

    func problems(field: String, in when: LinkRule.Conditions) -> [String] {
        var problems: [String] = []
        if platforms.isEmpty { problems.append("\(field).platforms: at least one, or leave it out") }
        if platforms.contains(.previewBot) {
            problems.append(
                "\(field).platforms: bot never reaches a rule (preview fetchers always get the Open Graph page)"
            )
        }
        return problems
    }

    func covers(_ other: Self) -> Bool { isSuperset(platforms, other.platforms) }

    var heapBytes: Int { MemoryEstimate.array(platforms) }

    var formFields: [(field: String, value: String)] {
        [("platforms", platforms.map(\.rawValue).joined(separator: ", "))]
    }
}
