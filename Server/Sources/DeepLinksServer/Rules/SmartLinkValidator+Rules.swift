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
            problems += rule.when.problems(field: "\(field).when")
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

extension LinkPolicy {
    /// Warnings for a link that is valid but sends some visitors somewhere they may not expect: a rule's `store`
    /// that Android visitors reach when the app has no Android version (they get the link's web destination).
    func warnings(_ link: SmartLink) -> [String] {
        guard app(for: link).android == nil else { return [] }
        return (link.rules ?? []).enumerated().compactMap { index, rule in
            guard rule.when[PlatformsCondition.self]?.platforms.contains(.android) ?? true else { return nil }
            let stores: Bool
            switch rule.then {
            case .destination(let destination): stores = destination == .store
            case .split(let variants): stores = variants.contains { $0.destination == .store }
            }
            return stores
                ? "rules[\(index)].then: store: the app has no Android version, so Android visitors of this rule get the link's web destination, not a store"
                : nil
        }
    }
}
