/// A link's rules, checked when the link is sent: every problem at once, each naming its rule.
extension SmartLinkValidator {
    static let maxRules = 20
    static let maxVariants = 10

    func ruleProblems(_ link: SmartLink) -> [String] {
        guard let rules = link.rules else { return [] }
        var problems: [String] = []
        if rules.count > Self.maxRules { problems.append("rules: at most \(Self.maxRules)") }
        var names: Set<String> = []
        for (index, rule) in rules.enumerated() {
            let field = "rules[\(index)]"
            if !Self.isName(rule.name) {
                problems.append("\(field).name: 1 to 64 letters, digits, spaces, '-', '_' or '.'")
            } else if !names.insert(rule.name).inserted {
                problems.append("\(field).name: '\(rule.name)' names another rule too")
            }
            problems += conditionProblems(rule.when, field: "\(field).when")
            switch rule.then {
            case .destination(let destination):
                if let problem = destinationProblem(destination, link: link) {
                    problems.append("\(field).then: \(problem)")
                }
            case .split(let variants):
                problems += splitProblems(variants, link: link, field: "\(field).then.split")
            }
            if let earlier = rules[..<index].firstIndex(where: { $0.when.covers(rule.when) }) {
                problems.append(
                    "\(field): never reached: rules[\(earlier)] ('\(rules[earlier].name)') matches every visitor it would"
                )
            }
        }
        return problems
    }

    static func isName(_ name: String) -> Bool {
        (1...64).contains(name.count)
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || " -_.".contains($0)) }
            && name.first != " " && name.last != " "
    }

    private func conditionProblems(_ when: LinkRule.Conditions, field: String) -> [String] {
        var problems: [String] = []
        if let platforms = when.platforms, platforms.isEmpty {
            problems.append("\(field).platforms: at least one, or leave it out")
        }
        if when.platforms?.contains(.previewBot) == true {
            problems.append(
                "\(field).platforms: bot never reaches a rule (preview fetchers always get the Open Graph page)"
            )
        }
        if let os = when.os {
            if os.min == nil, os.max == nil { problems.append("\(field).os: a min, a max or both") }
            if let min = os.min, let max = os.max, min > max {
                problems.append("\(field).os: min \(min) is above max \(max)")
            }
            // One OS: iOS and iPadOS share versions (iphone, ipad), Android has its own.
            let oneOS = when.platforms.map { platforms in
                !platforms.isEmpty
                    && (Set(platforms).isSubset(of: [.iPhone, .iPad]) || Set(platforms) == [.android])
            }
            if oneOS != true {
                problems.append(
                    "\(field).os: needs platforms of one OS, iphone and ipad or android (OS versions compare within one OS)"
                )
            }
        }
        if let languages = when.languages {
            if languages.isEmpty || languages.count > 50 || !languages.allSatisfy(Self.isLanguage) {
                problems.append("\(field).languages: 1 to 50 language tags, as de, de-ch or pt-br")
            }
        }
        if let query = when.query, query.name.isEmpty || query.name.count > 128 || (query.equals?.count ?? 0) > 1024 {
            problems.append("\(field).query: a name of 1 to 128 characters, and a value of at most 1024")
        }
        if let query = when.query, ["qr", "_platform"].contains(query.name) {
            problems.append(
                "\(field).query: \(query.name) is this server's own (the QR tag, the touch check's answer), taken off before rules see the query"
            )
        }
        if let from = when.from, let until = when.until, from >= until {
            problems.append("\(field): from must come before until")
        }
        if let countries = when.countries {
            if countries.isEmpty || countries.count > 250
                || !countries.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isLetter } })
            {
                problems.append("\(field).countries: 1 to 250 two-letter country codes (ISO 3166-1), as CH or DE")
            }
        }
        return problems
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

    private func destinationProblem(_ destination: LinkRule.Destination, link: SmartLink) -> String? {
        switch destination {
        case .url(let url):
            return (destinationProblem(url) ?? shortLinkProblem(url, of: link.code)).map { "url: \($0)" }
        case .route(let route): return routeProblem(route, app: link.app).map { "route: \($0)" }
        case .store:
            return stores.contains(link.app ?? primary)
                ? nil : "store: the app has neither an App Store ID nor an Android app in the configuration"
        }
    }

    private func splitProblems(_ variants: [LinkRule.Variant], link: SmartLink, field: String) -> [String] {
        var problems: [String] = []
        guard (2...Self.maxVariants).contains(variants.count) else {
            return ["\(field): 2 to \(Self.maxVariants) variants"]
        }
        var names: Set<String> = []
        for (index, variant) in variants.enumerated() {
            if !Self.isName(variant.name) {
                problems.append("\(field)[\(index)].variant: 1 to 64 letters, digits, spaces, '-', '_' or '.'")
            } else if !names.insert(variant.name).inserted {
                problems.append("\(field)[\(index)].variant: '\(variant.name)' names another variant too")
            }
            if !(1...99).contains(variant.weight) { problems.append("\(field)[\(index)].weight: 1 to 99") }
            if let problem = destinationProblem(variant.destination, link: link) {
                problems.append("\(field)[\(index)]: \(problem)")
            }
        }
        // Summed only once each weight is in range: input never reaches arithmetic that could overflow.
        if variants.allSatisfy({ (1...99).contains($0.weight) }) {
            let total = variants.reduce(0) { $0 + $1.weight }
            if total != 100 { problems.append("\(field): the weights add up to \(total), not 100") }
        }
        return problems
    }
}

extension LinkRule.Conditions {
    /// Whether every visitor `other` matches also matches these conditions (so a rule with `other` after one with
    /// these is never reached).
    func covers(_ other: Self) -> Bool {
        func superset<T: Hashable>(_ mine: [T]?, _ theirs: [T]?) -> Bool {
            guard let mine else { return true }
            guard let theirs else { return false }
            return Set(mine).isSuperset(of: theirs)
        }
        func lower<T: Comparable>(_ mine: T?, _ theirs: T?) -> Bool {
            guard let mine else { return true }
            return theirs.map { mine <= $0 } ?? false
        }
        func upper<T: Comparable>(_ mine: T?, _ theirs: T?) -> Bool {
            guard let mine else { return true }
            return theirs.map { mine >= $0 } ?? false
        }
        let languagesCovered: Bool = {
            guard let mine = self.languages else { return true }
            guard let theirs = other.languages else { return false }
            return theirs.allSatisfy { tag in mine.contains { tag == $0 || tag.hasPrefix($0 + "-") } }
        }()
        let queryCovered: Bool = {
            guard let mine = self.query else { return true }
            guard let theirs = other.query, theirs.name == mine.name else { return false }
            return mine.equals == nil || mine.equals == theirs.equals
        }()
        let osCovered: Bool = {
            guard let mine = self.os else { return true }
            guard let theirs = other.os else { return false }
            return lower(mine.min, theirs.min) && upper(mine.max, theirs.max)
        }()
        return superset(platforms, other.platforms) && superset(countries, other.countries) && languagesCovered
            && queryCovered && osCovered && lower(from, other.from) && upper(until, other.until)
    }
}
