import Foundation
import HTTPTypes

/// The link form's rules: one fieldset per rule, in order, with buttons that add, move and remove rules (each
/// posts the form, which comes back changed and unsaved: no script), and the table of where each platform goes.
extension ConsolePages {
    /// The platforms' checkboxes, as people call them (preview fetchers never reach a rule: no box for them).
    static let platformLabels: [(ClientPlatform, String)] = [
        (.iPhone, "iPhone"), (.iPad, "iPad"), (.android, "Android"), (.desktop, "Desktop"),
        (.macOrIPad, "Mac or iPad (before the touch check)"),
    ]

    /// The rules' fieldsets; `problems["rule.INDEX"]` are shown in their rule.
    static func rulesEditor(values: [String: String], problems: [String: [String]]) -> HTML {
        let count = LinkForm.ruleCount(values)
        func input(_ index: Int, _ field: String, _ label: String, type: String = "text", help: String? = nil)
            -> HTML
        {
            let name = LinkForm.ruleField(index, field)
            let id = name.replacingOccurrences(of: ".", with: "-")
            return """
                <label for="\(id)">\(label)</label>
                <input id="\(id)" name="\(name)" type="\(type)"\(type == "datetime-local" ? " step=\"any\"" : "") value="\(values[name] ?? "")"\(help == nil ? "" : " aria-describedby=\"\(id)-help\"")>
                \(help.map { "<p class=\"help\" id=\"\(id)-help\">\($0)</p>" } ?? "")
                """
        }
        /// A condition's fields (and its flag, so that an empty one added stays shown until the form is saved).
        func condition(_ index: Int, _ form: ConditionForm) -> HTML {
            let flag = LinkForm.ruleField(index, "show.\(form.key)")
            let kept: HTML = values[flag] == "on" ? "<input type=\"hidden\" name=\"\(flag)\" value=\"on\">" : ""
            return kept + form.inputs.map { input(index, $0.field, $0.label, type: $0.type, help: $0.help) }.joined()
        }
        var rules: [HTML] = []
        for index in 0..<count {
            let number = index + 1
            // The conditions the rule has (a field filled, or added empty), and those "Add a condition" offers.
            let isShown = { (condition: ConditionForm) in
                condition.inputs.contains { !(values[LinkForm.ruleField(index, $0.field)] ?? "").isEmpty }
                    || values[LinkForm.ruleField(index, "show.\(condition.key)")] == "on"
            }
            let shown = LinkForm.conditions.filter(isShown)
            let hidden = LinkForm.conditions.filter { !isShown($0) }
            let errors = problems[LinkForm.ruleField(index, "")] ?? []
            let thenID = "rule-\(index)-then"
            rules.append(
                """
                <fieldset class="rule" id="rule-\(index)"><legend>Rule \(number)</legend>
                \(errors.isEmpty ? "" : "<p class=\"error\" id=\"rule-\(index)-error\">\(HTML.lines(errors))</p>")
                \(input(index, "name", "Name", help: "Names the rule in the stats and in ?d=1"))
                <fieldset class="platforms"><legend>Platforms (none ticked: every platform)</legend>
                \(platformLabels.map { platform, label -> HTML in
                    let name = LinkForm.ruleField(index, "platform.\(platform.rawValue)")
                    return "<label class=\"check\"><input type=\"checkbox\" id=\"\(name.replacingOccurrences(of: ".", with: "-"))\" name=\"\(name)\" value=\"on\"\(values[name] == "on" ? " checked" : "")> \(label)</label>"
                }.joined(separator: "\n"))
                </fieldset>
                \(shown.map { condition(index, $0) }.joined(separator: "\n"))
                \(hidden.isEmpty ? "" : """
                <p class="add-condition"><label for="rule-\(index)-condition">Add a condition</label>
                <select id="rule-\(index)-condition" name="\(LinkForm.ruleField(index, "condition"))">\(hidden.map { "<option value=\"\($0.key)\">\($0.label)</option>" as HTML })</select>
                <button type="submit" class="secondary" name="op" value="condition.\(index)" id="rule-\(index)-add-condition" aria-label="Add this condition to rule \(number)">Add</button></p>
                """)
                <label for="\(thenID)">Sends to</label>
                <textarea id="\(thenID)" name="\(LinkForm.ruleField(index, "then"))" rows="2" aria-describedby="\(thenID)-help">\(values[LinkForm.ruleField(index, "then")] ?? "")</textarea>
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
    static func reach(_ link: SmartLink, policy: LinkPolicy, now: Int64) -> HTML {
        let rows = ClientPlatform.allCases.map { platform -> HTML in
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
            let cell: HTML =
                merged.count <= 1
                ? "\(outcome(nil))"
                : "it depends on the OS version:<ul>"
                    + (merged + [("version unknown", outcome(nil))]).map {
                        "<li>\($0.label): \($0.outcome)</li>" as HTML
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
