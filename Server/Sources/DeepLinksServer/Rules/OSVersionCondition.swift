/// `os`: the OS version, inclusive at both ends (`17` is 17.0; `26.1`), for platforms of one OS.
struct OSVersionCondition: RuleCondition {
    var min: OSVersion?
    var max: OSVersion?

    static let keys = ["os"]
    static let schema = #"""
        {"os": {"type": "object", "additionalProperties": false,
          "description": "The OS version, inclusive at both ends; needs platforms among iphone, ipad and android. On iOS, Safari's Version/ token (Safari on iOS 26 freezes 'iPhone OS' at 18_x); on Android, Sec-CH-UA-Platform-Version when sent, else the agent's 'Android N'.",
          "properties": {"min": {"type": "string", "examples": ["26"]}, "max": {"type": "string", "examples": ["17.4"]}}}}
        """#
    static let form: ConditionForm? = ConditionForm(
        key: "os",
        label: "OS version",
        inputs: [
            .init(field: "osMin", label: "OS version from"),
            .init(
                field: "osMax",
                label: "OS version up to",
                help:
                    "As 17 or 26.1, with platforms of one OS. iOS 26 Safari reports its real version in its Version/ token only"
            ),
        ]
    )

    static func fact(_ visitor: inout RuleVisitor) -> String? { visitor.osVersion().map { "OS \($0)" } }

    static func parse(_ form: ConditionFormInput, complaints: inout [String]) -> Self? {
        var range = Self(min: nil, max: nil)
        for (field, bound) in [("osMin", "from"), ("osMax", "up to")] {
            guard let text = form.text(field) else { continue }
            guard let version = OSVersion(text) else {
                complaints.append("OS version \(bound): a version such as 17 or 26.1")
                continue
            }
            if field == "osMin" { range.min = version } else { range.max = version }
        }
        return range.min == nil && range.max == nil ? nil : range
    }

    init(min: OSVersion?, max: OSVersion?) { (self.min, self.max) = (min, max) }

    init?(from when: KeyedDecodingContainer<StrictKeys>) throws {
        guard let range = try when.object("os", allowing: ["min", "max"]) else { return nil }
        (min, max) = (try range.value("min"), try range.value("max"))
    }

    func encode(to when: inout KeyedEncodingContainer<StrictKeys>) throws {
        var range = when.nestedContainer(keyedBy: StrictKeys.self, forKey: StrictKeys(stringValue: "os"))
        try range.put(min, "min")
        try range.put(max, "max")
    }

    func check(_ visitor: inout RuleVisitor) -> ConditionCheck {
        guard let version = visitor.osVersion() else { return .fails }
        if let min, version < min { return .fails }
        if let max, version > max { return .fails }
        return .holds
    }

    func miss(_ visitor: inout RuleVisitor) -> String {
        visitor.osVersion().map { "OS \($0) is outside its OS range" } ?? "OS version unknown"
    }

    func problems(field: String, in when: LinkRule.Conditions) -> [String] {
        var problems: [String] = []
        if min == nil, max == nil { problems.append("\(field).os: a min, a max or both") }
        if let min, let max, min > max { problems.append("\(field).os: min \(min) is above max \(max)") }
        // One OS: iOS and iPadOS share versions (iphone, ipad), Android has its own.
        let platforms = Set(when[PlatformsCondition.self]?.platforms ?? [])
        if platforms.isEmpty || !(platforms.isSubset(of: [.iPhone, .iPad]) || platforms == [.android]) {
            problems.append(
                "\(field).os: needs platforms of one OS, iphone and ipad or android (OS versions compare within one OS)"
            )
        }
        return problems
    }

    func covers(_ other: Self) -> Bool { Bounds.covers(min, max, other.min, other.max) }

    var formFields: [(field: String, value: String)] {
        [("osMin", min?.description ?? ""), ("osMax", max?.description ?? "")]
    }
}
