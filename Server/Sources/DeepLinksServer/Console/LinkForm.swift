import Foundation

/// The console's link form, both ways: a link as the form's fields (``init(_:)``), and the fields as a link
/// (``link(policy:)``), rules and their conditions included (each condition reads and writes its own fields,
/// ``RuleCondition/formFields`` and ``RuleCondition/parse(_:complaints:)``); the rules buttons change the fields
/// without a trip through a link (``applying(_:)``). Every field's name is here: the pages render ``values``, the
/// routes read them back, and a test holds that a link comes back whole.
struct LinkForm: Sendable, Equatable {
    /// The fields by name: `code`, `route`, `destinations.ios` ..., `rules` (how many), `rule.INDEX.FIELD`.
    var values: [String: String]

    init(values: [String: String]) {
        self.values = values
    }

    /// A stored link's fields.
    init(_ link: SmartLink) {
        var values: [String: String] = [
            "code": link.code, "route": link.route ?? "", "app": link.app ?? "",
            "destinations.ios": link.destinations.ios ?? "", "destinations.ipad": link.destinations.ipad ?? "",
            "destinations.android": link.destinations.android ?? "",
            "destinations.desktop": link.destinations.desktop ?? "",
            "destinations.fallback": link.destinations.fallback ?? "", "preview.title": link.preview.title ?? "",
            "preview.description": link.preview.description ?? "", "preview.image": link.preview.image ?? "",
            "expiredURL": link.expiredURL ?? "", "campaign": link.campaign ?? "",
            "expiresAt": link.expiresAt.map { UTCDate.formatted($0, form: true) } ?? "",
        ]
        if link.passQuery { values["passQuery"] = "on" }
        let rules = link.rules ?? []
        values["rules"] = String(rules.count)
        for (index, rule) in rules.enumerated() {
            for (field, value) in Self.fields(of: rule) { values[Self.ruleField(index, field)] = value }
        }
        self.values = values
    }

    /// The fields as a link, checked by the API's validator; the problems by field name (`""`: the link's).
    func link(policy: LinkPolicy) -> (SmartLink?, [String: [String]]) {
        func text(_ name: String) -> String? {
            guard let value = values[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else {
                return nil
            }
            return value
        }
        var problems: [String: [String]] = [:]
        // No route: a web link (its fallback is where every platform goes).
        var link = SmartLink(code: text("code") ?? "", route: text("route"))
        link.app = text("app").flatMap { $0 == policy.primary.bundleID ? nil : $0 }
        link.destinations = .init(
            ios: text("destinations.ios"),
            ipad: text("destinations.ipad"),
            android: text("destinations.android"),
            desktop: text("destinations.desktop"),
            fallback: text("destinations.fallback")
        )
        link.preview = .init(
            title: text("preview.title"),
            description: text("preview.description"),
            image: text("preview.image")
        )
        link.passQuery = values["passQuery"] == "on"
        link.expiredURL = text("expiredURL")
        link.campaign = text("campaign")
        if let expiry = text("expiresAt") {
            if let milliseconds = UTCDate.parse(expiry) {
                link.expiresAt = milliseconds
            } else {
                problems["expiresAt", default: []].append("expiresAt: a date and time, as 2026-12-31T23:59 (UTC)")
            }
        }
        let (rules, ruleProblems) = self.rules()
        link.rules = rules
        problems.merge(ruleProblems) { $0 + $1 }
        for problem in policy.validator.problems(link) {
            // The validator names the field before a colon: `destinations.ios: ...`; a rule's as `rules[2]...`.
            let field = problem.prefix { $0 != ":" }
            if field.hasPrefix("rules["), let index = Int(field.dropFirst(6).prefix { $0 != "]" }) {
                problems[Self.ruleField(index, ""), default: []].append(problem)
                continue
            }
            problems[values.keys.contains(String(field)) || field == "code" ? String(field) : "", default: []]
                .append(problem)
        }
        return (problems.isEmpty ? link : nil, problems)
    }

    // MARK: Rules

    /// A rule's fields in the form, each named `rule.INDEX.FIELD`; `rules` holds how many there are.
    static let ruleFields =
        ["name"] + ClientPlatform.allCases.map { "platform.\($0.rawValue)" }
        + conditions.flatMap { $0.inputs.map(\.field) } + ["then"] + conditions.map { "show.\($0.key)" }

    /// The conditions a rule may have beside its platforms, each with its fields (``RuleCondition/form``): a rule
    /// shows those it has (or that "Add a condition" added), not every field of every condition.
    static let conditions = RuleConditions.all.compactMap { $0.form }

    static func ruleField(_ index: Int, _ field: String) -> String { "rule.\(index).\(field)" }

    static func ruleCount(_ values: [String: String]) -> Int {
        min(max(Int(values["rules"] ?? "") ?? 0, 0), SmartLinkValidator.maxRules)
    }

    /// A rule's fields (named without their `rule.INDEX.` prefix).
    static func fields(of rule: LinkRule) -> [String: String] {
        func destination(_ destination: LinkRule.Destination) -> String { destination.address ?? "store" }
        let then: String =
            switch rule.then {
            case .destination(let target): destination(target)
            case .split(let variants):
                variants.map { "\($0.name) \($0.weight) \(destination($0.destination))" }.joined(separator: "\n")
            }
        var values = ["name": rule.name, "then": then]
        for condition in rule.when.items {
            for (field, value) in condition.formFields { values[field] = value }
        }
        for platform in rule.when[PlatformsCondition.self]?.platforms ?? [] {
            values["platform.\(platform.rawValue)"] = "on"
        }
        return values
    }

    /// The form after a rules button: `add`, `up.INDEX`, `down.INDEX` or `remove.INDEX`; nil for
    /// anything else.
    func applying(_ operation: String) -> LinkForm? {
        var rules = (0..<Self.ruleCount(values)).map { index in
            Dictionary(uniqueKeysWithValues: Self.ruleFields.map { ($0, values[Self.ruleField(index, $0)] ?? "") })
        }
        let parts = operation.split(separator: ".")
        let index = parts.count == 2 ? Int(parts[1]) : nil
        switch (parts.first, index) {
        case ("add"?, nil) where rules.count < SmartLinkValidator.maxRules:
            rules.append(["name": "rule \(rules.count + 1)"])
        case ("up"?, let index?) where rules.indices.contains(index) && index > 0:
            rules.swapAt(index, index - 1)
        case ("down"?, let index?) where rules.indices.contains(index) && index < rules.count - 1:
            rules.swapAt(index, index + 1)
        case ("remove"?, let index?) where rules.indices.contains(index):
            rules.remove(at: index)
        case ("condition"?, let index?) where rules.indices.contains(index):
            // The condition chosen beside the button: its fields are shown, empty.
            let chosen = values[Self.ruleField(index, "condition")] ?? ""
            guard Self.conditions.contains(where: { $0.key == chosen }) else { return nil }
            rules[index]["show.\(chosen)"] = "on"
        default:
            return nil
        }
        var changed = values.filter { !$0.key.hasPrefix("rule.") }
        changed["rules"] = String(rules.count)
        for (index, rule) in rules.enumerated() {
            for (field, value) in rule { changed[Self.ruleField(index, field)] = value }
        }
        return LinkForm(values: changed)
    }

    /// The rules the fields describe, and the problems of those that cannot be read, by `rule.INDEX.`.
    func rules() -> ([LinkRule]?, [String: [String]]) {
        var rules: [LinkRule] = []
        var problems: [String: [String]] = [:]
        for index in 0..<Self.ruleCount(values) {
            func text(_ field: String) -> String? {
                let value = values[Self.ruleField(index, field)]?.trimmingCharacters(
                    in: .whitespacesAndNewlines
                )
                return value?.isEmpty == false ? value : nil
            }
            // Each condition reads its own fields.
            let form = ConditionFormInput(text: text) { field in
                values[Self.ruleField(index, field)].map { String($0.drop(while: \.isWhitespace)) }
                    .flatMap { $0.isEmpty ? nil : $0 }
            }
            var complaints: [String] = []
            let when = LinkRule.Conditions(RuleConditions.all.compactMap { $0.parse(form, complaints: &complaints) })
            let then = Self.action(text("then") ?? "")
            if then == nil {
                complaints.append(
                    "sends to: a web address, a route, store, or variant lines as 'a 50 https://...'"
                )
            }
            if complaints.isEmpty, let then {
                rules.append(LinkRule(name: text("name") ?? "", when: when, then: then))
            } else {
                problems[Self.ruleField(index, ""), default: []] += complaints
            }
        }
        return (problems.isEmpty ? (rules.isEmpty ? nil : rules) : nil, problems)
    }

    /// A rule's "sends to" text: one destination, or variant lines `NAME WEIGHT DESTINATION`.
    static func action(_ text: String) -> LinkRule.Action? {
        func destination(_ text: some StringProtocol) -> LinkRule.Destination? {
            let text = String(text)
            if text.lowercased() == "store" { return .store }
            if text.hasPrefix("/") { return .route(text) }
            return text.contains("://") ? .url(text) : nil
        }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        if lines.count == 1, !lines[0].contains(" ") { return destination(lines[0]).map { .destination($0) } }
        var variants: [LinkRule.Variant] = []
        for line in lines {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard words.count >= 3, let weight = Int(words[words.count - 2]),
                let target = destination(words[words.count - 1])
            else { return nil }
            variants.append(.init(name: words.dropLast(2).joined(separator: " "), weight: weight, destination: target))
        }
        return variants.isEmpty ? nil : .split(variants)
    }
}
