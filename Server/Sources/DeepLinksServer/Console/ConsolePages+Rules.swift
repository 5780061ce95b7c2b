import Foundation
import HTTPTypes

/// The link form's rules: one fieldset per rule, in order, with buttons that add, move and remove rules (each
/// posts the form, which comes back changed and unsaved: no script), and the table of where each platform goes.
extension ConsolePages {
    /// A rule's fields in the form, each named `rule.INDEX.FIELD`; `rules` holds how many there are.
    static let ruleFields =
        ["name"] + ClientPlatform.allCases.map { "platform.\($0.rawValue)" }
        + conditions.flatMap { $0.inputs.map(\.field) } + ["then"] + conditions.map { "show.\($0.key)" }

    /// The platforms' checkboxes, as people call them (preview fetchers never reach a rule: no box for them).
    static let platformLabels: [(ClientPlatform, String)] = [
        (.iPhone, "iPhone"), (.iPad, "iPad"), (.android, "Android"), (.desktop, "Desktop"),
        (.macOrIPad, "Mac or iPad (before the touch check)"),
    ]

    /// The conditions a rule may have beside its platforms, each with its fields (``RuleCondition/form``): a rule
    /// shows those it has (or that "Add a condition" added), not every field of every condition.
    static let conditions = RuleConditions.all.compactMap { $0.form }

    static func ruleField(_ index: Int, _ field: String) -> String { "rule.\(index).\(field)" }

    static func ruleCount(_ values: [String: String]) -> Int {
        min(max(Int(values["rules"] ?? "") ?? 0, 0), SmartLinkValidator.maxRules)
    }

    /// A rule as the form's texts.
    static func formValues(_ rule: LinkRule) -> [String: String] {
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

    /// The form's values after a rules button: `add`, `up.INDEX`, `down.INDEX` or `remove.INDEX`; nil for
    /// anything else.
    static func applying(_ operation: String, to values: [String: String]) -> [String: String]? {
        var rules = (0..<ruleCount(values)).map { index in
            Dictionary(uniqueKeysWithValues: ruleFields.map { ($0, values[ruleField(index, $0)] ?? "") })
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
            let chosen = values[ruleField(index, "condition")] ?? ""
            guard conditions.contains(where: { $0.key == chosen }) else { return nil }
            rules[index]["show.\(chosen)"] = "on"
        default:
            return nil
        }
        var changed = values.filter { !$0.key.hasPrefix("rule.") }
        changed["rules"] = String(rules.count)
        for (index, rule) in rules.enumerated() {
            for (field, value) in rule { changed[ruleField(index, field)] = value }
        }
        return changed
    }

    /// The rules' fieldsets; `problems["rule.INDEX"]` are shown in their rule.
    static func rulesEditor(values: [String: String], problems: [String: [String]]) -> String {
        let count = ruleCount(values)
        func input(_ index: Int, _ field: String, _ label: String, type: String = "text", help: String? = nil)
            -> String
        {
            let name = ruleField(index, field)
            let id = name.replacingOccurrences(of: ".", with: "-")
            return """
                <label for="\(id)">\(label)</label>
                <input id="\(id)" name="\(name)" type="\(type)"\(type == "datetime-local" ? " step=\"any\"" : "") value="\(HTML.escape(values[name] ?? ""))"\(help == nil ? "" : " aria-describedby=\"\(id)-help\"")>
                \(help.map { "<p class=\"help\" id=\"\(id)-help\">\(HTML.escape($0))</p>" } ?? "")
                """
        }
        /// A condition's fields (and its flag, so that an empty one added stays shown until the form is saved).
        func condition(_ index: Int, _ form: ConditionForm) -> String {
            let flag = ruleField(index, "show.\(form.key)")
            let kept = values[flag] == "on" ? "<input type=\"hidden\" name=\"\(flag)\" value=\"on\">" : ""
            return kept + form.inputs.map { input(index, $0.field, $0.label, type: $0.type, help: $0.help) }.joined()
        }
        var rules: [String] = []
        for index in 0..<count {
            let number = index + 1
            // The conditions the rule has (a field filled, or added empty), and those "Add a condition" offers.
            let isShown = { (condition: ConditionForm) in
                condition.inputs.contains { !(values[ruleField(index, $0.field)] ?? "").isEmpty }
                    || values[ruleField(index, "show.\(condition.key)")] == "on"
            }
            let shown = Self.conditions.filter(isShown)
            let hidden = Self.conditions.filter { !isShown($0) }
            let errors = problems[ruleField(index, "")] ?? []
            let thenID = "rule-\(index)-then"
            rules.append(
                """
                <fieldset class="rule" id="rule-\(index)"><legend>Rule \(number)</legend>
                \(errors.isEmpty ? "" : "<p class=\"error\" id=\"rule-\(index)-error\">\(errors.map(HTML.escape).joined(separator: "<br>"))</p>")
                \(input(index, "name", "Name", help: "Names the rule in the stats and in ?d=1"))
                <fieldset class="platforms"><legend>Platforms (none ticked: every platform)</legend>
                \(platformLabels.map { platform, label in
                    let name = ruleField(index, "platform.\(platform.rawValue)")
                    return "<label class=\"check\"><input type=\"checkbox\" id=\"\(name.replacingOccurrences(of: ".", with: "-"))\" name=\"\(name)\" value=\"on\"\(values[name] == "on" ? " checked" : "")> \(label)</label>"
                }.joined(separator: "\n"))
                </fieldset>
                \(shown.map { condition(index, $0) }.joined(separator: "\n"))
                \(hidden.isEmpty ? "" : """
                <p class="add-condition"><label for="rule-\(index)-condition">Add a condition</label>
                <select id="rule-\(index)-condition" name="\(ruleField(index, "condition"))">\(hidden.map { "<option value=\"\($0.key)\">\(HTML.escape($0.label))</option>" }.joined())</select>
                <button type="submit" class="secondary" name="op" value="condition.\(index)" id="rule-\(index)-add-condition" aria-label="Add this condition to rule \(number)">Add</button></p>
                """)
                <label for="\(thenID)">Sends to</label>
                <textarea id="\(thenID)" name="\(ruleField(index, "then"))" rows="2" aria-describedby="\(thenID)-help">\(HTML.escape(values[ruleField(index, "then")] ?? ""))</textarea>
                <p class="help" id="\(thenID)-help">A web address, a route of the app (/post/10) or store; or a split, one variant a line: name, weight, destination (a 50 https://..., b 50 /post/11; weights add up to 100)</p>
                <p><button type="submit" class="secondary" name="op" value="up.\(index)"\(index == 0 ? " disabled" : "") aria-label="Move rule \(number) up">Move up</button>
                <button type="submit" class="secondary" name="op" value="down.\(index)"\(index == count - 1 ? " disabled" : "") aria-label="Move rule \(number) down">Move down</button>
                <button type="submit" class="secondary" name="op" value="remove.\(index)" aria-label="Remove rule \(number)">Remove</button></p>
                </fieldset>
                """
            )
        }
        return """
            <fieldset id="rules"><legend>Rules</legend>
            <p class="help">Tried in order, the first match wins; then the destinations above. A visitor meets a rule when every condition given holds.</p>
            <input type="hidden" name="rules" value="\(count)">
            \(rules.joined())
            <p><button type="submit" class="secondary" name="op" value="add" id="add-rule"\(count >= SmartLinkValidator.maxRules ? " disabled" : "")>Add a rule</button></p>
            </fieldset>
            """
    }

    /// Where each platform goes with `link` now, for a visitor who sends no language, query or country; where a
    /// rule compares the platform's OS version, what each range of versions gets (and a browser that tells none).
    static func reach(_ link: SmartLink, policy: LinkPolicy, now: Int64) -> String {
        let rows = ClientPlatform.allCases.map { platform in
            func outcome(_ version: OSVersion?) -> String {
                policy.outcome(link, platform: platform, now: now) {
                    RuleVisitor(
                        platform: platform,
                        agent: AgentText(version.flatMap { sampleAgent(platform, $0) }),
                        headers: platform == .android
                            ? version.map { [RuleVisitor.platformVersionHint: "\"\($0).0\""] } ?? [:] : [:],
                        query: nil,
                        now: now,
                        countryHeader: nil
                    ) {
                        ""
                    } viaTrustedProxy: {
                        false
                    }
                }
            }
            let ranges = versionRanges(link, platform: platform).map { range in (range.label, outcome(range.sample)) }
            // Adjacent ranges that go to the same place are one.
            var merged: [(label: String, outcome: String)] = []
            for (label, result) in ranges {
                if let last = merged.last, last.outcome == result {
                    merged[merged.count - 1].label = Self.joined(last.label, label)
                } else {
                    merged.append((label, result))
                }
            }
            let cell =
                merged.count <= 1
                ? HTML.escape(outcome(nil))
                : "it depends on the OS version:<ul>"
                    + (merged + [("version unknown", outcome(nil))]).map {
                        "<li>\(HTML.escape($0.label)): \(HTML.escape($0.outcome))</li>"
                    }.joined() + "</ul>"
            return "<tr><th scope=\"row\">\(platform.rawValue)</th><td>\(cell)</td></tr>"
        }
        return """
            <table id="reach"><caption>Where each platform goes now (a visitor who sends no language, query or country)</caption>
            <thead><tr><th scope="col">Platform</th><th scope="col">Goes to</th></tr></thead><tbody>\(rows.joined())</tbody></table>
            """
    }

    /// The ranges of OS versions that the link's rules tell apart on `platform` (from their `os` bounds), each with
    /// a version inside it; none when no rule compares this platform's version.
    static func versionRanges(_ link: SmartLink, platform: ClientPlatform) -> [(label: String, sample: OSVersion)] {
        guard [.iPhone, .iPad, .android].contains(platform) else { return [] }
        var bounds: Set<OSVersion> = []
        for rule in link.rules ?? [] {
            guard let os = rule.when[OSVersionCondition.self],
                rule.when[PlatformsCondition.self]?.platforms.contains(platform) == true
            else { continue }
            if let min = os.min { bounds.insert(min) }
            // A maximum is inclusive: the next range starts just above it.
            if let max = os.max { bounds.insert(OSVersion(major: max.major, minor: max.minor + 1)) }
        }
        let starts = bounds.sorted()
        guard let first = starts.first else { return [] }
        let below =
            first.minor > 0
            ? OSVersion(major: first.major, minor: first.minor - 1)
            : OSVersion(major: max(first.major - 1, 0), minor: 9)
        var ranges = [(label: "below \(first)", sample: below)]
        for (index, start) in starts.enumerated() {
            let label = index + 1 < starts.count ? "\(start) to below \(starts[index + 1])" : "\(start) and above"
            ranges.append((label, start))
        }
        return ranges
    }

    /// Two adjacent ranges' labels as one: `below 17.4` and `17.4 to below 26.1` make `below 26.1`.
    static func joined(_ first: String, _ second: String) -> String {
        let end = second.hasSuffix(" and above") ? nil : second.components(separatedBy: " to below ").last
        let start = first.hasPrefix("below ") ? nil : first.components(separatedBy: " to below ").first
        switch (start, end) {
        case (nil, nil): return "any"
        case (nil, let end?): return "below \(end)"
        case (let start?, nil): return "\(start) and above"
        case (let start?, let end?): return "\(start) to below \(end)"
        }
    }

    /// A browser's agent that reports `version` of the platform's OS, as Safari (its `Version/` token) or Chrome on
    /// Android (the version then comes in the client hint, the agent being reduced).
    static func sampleAgent(_ platform: ClientPlatform, _ version: OSVersion) -> String? {
        switch platform {
        case .iPhone:
            "Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/\(version) Mobile/15E148 Safari/604.1"
        case .iPad:
            "Mozilla/5.0 (iPad; CPU OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/\(version) Mobile/15E148 Safari/604.1"
        case .android:
            "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"
        default: nil
        }
    }
}

extension ConsoleRoutes {
    /// The rules the form's fields describe, and the problems of those that cannot be read, by `rule.INDEX.`.
    func parsedRules(_ values: [String: String]) -> ([LinkRule]?, [String: [String]]) {
        var rules: [LinkRule] = []
        var problems: [String: [String]] = [:]
        for index in 0..<ConsolePages.ruleCount(values) {
            func text(_ field: String) -> String? {
                let value = values[ConsolePages.ruleField(index, field)]?.trimmingCharacters(
                    in: .whitespacesAndNewlines
                )
                return value?.isEmpty == false ? value : nil
            }
            // Each condition reads its own fields.
            let form = ConditionFormInput(text: text) { field in
                values[ConsolePages.ruleField(index, field)].map { String($0.drop(while: \.isWhitespace)) }
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
                problems[ConsolePages.ruleField(index, ""), default: []] += complaints
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
