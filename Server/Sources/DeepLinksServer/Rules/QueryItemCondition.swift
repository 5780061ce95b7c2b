/// `query`: a query item of the click is present (`name`), or has a value (`name` and `equals`).
struct QueryItemCondition: RuleCondition {
    var name: String
    /// Nil: the item is present, with any value.
    var equals: String?

    static let keys = ["query"]
    static let schema = #"""
        {"query": {"type": "object", "additionalProperties": false, "required": ["name"],
          "properties": {"name": {"type": "string"}, "equals": {"type": "string", "description": "Without it, the item only has to be present."}}}}
        """#
    static let form: ConditionForm? = ConditionForm(
        key: "query",
        label: "Query item",
        inputs: [
            .init(field: "query", label: "Query item", help: "A name (present) or name=value in the click's query")
        ]
    )

    /// The item as typed: a value's trailing spaces are the value's (only an empty field is none).
    static func parse(_ form: ConditionFormInput, complaints: inout [String]) -> Self? {
        guard let query = form.typed("query") else { return nil }
        let parts = query.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        return Self(name: String(parts[0]), equals: parts.count == 2 ? String(parts[1]) : nil)
    }

    init(name: String, equals: String?) { (self.name, self.equals) = (name, equals) }

    init?(from when: KeyedDecodingContainer<StrictKeys>) throws {
        guard let item = try when.object("query", allowing: ["name", "equals"]) else { return nil }
        (name, equals) = (try item.required("name"), try item.value("equals"))
    }

    func encode(to when: inout KeyedEncodingContainer<StrictKeys>) throws {
        var item = when.nestedContainer(keyedBy: StrictKeys.self, forKey: StrictKeys(stringValue: "query"))
        try item.put(name, "name")
        try item.put(equals, "equals")
    }

    func check(_ visitor: inout RuleVisitor) -> ConditionCheck {
        guard let value = visitor.queryValue(name) else { return .fails }
        return equals == nil || value == equals ? .holds : .fails
    }

    func miss(_ visitor: inout RuleVisitor) -> String { "its query condition is not met" }

    func problems(field: String, in when: LinkRule.Conditions) -> [String] {
        var problems: [String] = []
        if name.isEmpty || name.count > 128 || (equals?.count ?? 0) > 1024 {
            problems.append("\(field).query: a name of 1 to 128 characters, and a value of at most 1024")
        }
        if ["qr", "_platform"].contains(name) {
            problems.append(
                "\(field).query: \(name) is this server's own (the QR tag, the touch check's answer), taken off before rules see the query"
            )
        }
        return problems
    }

    func covers(_ other: Self) -> Bool { other.name == name && (equals == nil || equals == other.equals) }

    var heapBytes: Int { MemoryEstimate.string(name) + (equals.map(MemoryEstimate.string) ?? 0) }

    var formFields: [(field: String, value: String)] { [("query", name + (equals.map { "=" + $0 } ?? ""))] }
}
