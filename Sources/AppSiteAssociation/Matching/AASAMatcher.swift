import DeepLinksJSON

/// The verdict for one (app, URL) under one apple-app-site-association file (§5 M8).
public enum AASAVerdict: String, Sendable, Hashable, Codable {
    case match, exclude, nomatch
}

/// The verdict with the steps that led to it: which details entry and rule decided and, when nothing
/// matched, why the closest rule failed.
public struct AASADecision: Sendable, Hashable {
    public var verdict: AASAVerdict
    public var trace: [String]
}

/// A compiled apple-app-site-association file: compile once, then ask ``decide(appID:url:domain:)``
/// for each URL. It reads the file the way iOS does (§4–§16): what it does not understand is ignored, never fatal.
public struct AASAMatcher: Sendable {
    struct Rule: Sendable {
        var pointer: String
        var path: PathPattern?
        var query: Query
        var fragment: AASAPattern?
        var exclude: Bool
        var caseSensitive: Bool
        var percentEncoded: Bool
    }

    enum Query: Sendable {
        case unspecified
        case string(AASAPattern)
        case items([(name: String, pattern: AASAPattern)])
    }

    struct Entry: Sendable {
        var pointer: String
        var appIDs: Set<String>
        var rules: [Rule]
    }

    let entries: [Entry]

    /// Compiles the root object of a file. A root that is not an object, or has no `applinks` object, matches nothing.
    public init(document: JSONValue) {
        self.init(AppleAppSiteAssociation(document))
    }

    /// Compiles a file.
    public init(_ file: AppleAppSiteAssociation) {
        guard let applinks = file.applinks else {
            entries = []
            return
        }
        let variables = applinks.substitutionVariables
        entries = applinks.details.enumerated().map { index, entry in
            let pointer =
                applinks.detailsAsDictionary
                ? JSONPointer.append("/applinks/details", entry.appID ?? "") : "/applinks/details/\(index)"
            // DF6: defaults apply to components, not to rules converted from legacy paths.
            let isLegacy = entry.components == nil
            let rules = entry.rules.enumerated().map { ruleIndex, rule in
                let effective = isLegacy ? rule : rule.overriding(entry.defaults).overriding(applinks.defaults)
                return Self.rule(
                    effective,
                    pointer: "\(pointer)/\(isLegacy ? "paths" : "components")/\(ruleIndex)",
                    variables
                )
            }
            return Entry(pointer: pointer, appIDs: entry.apps, rules: rules)
        }
    }

    /// Compiles one rule whose settings are already resolved over the defaults (DF1–DF5, DF7 built-ins).
    private static func rule(
        _ rule: AppleAppSiteAssociation.Components,
        pointer: String,
        _ variables: [String: [String]]
    ) -> Rule {
        let caseSensitive = rule.caseSensitive ?? true
        func pattern(_ text: String?) -> AASAPattern? {
            text.map { AASAPattern($0, variables: variables, caseSensitive: caseSensitive) }
        }
        var query = Query.unspecified
        switch rule.query {
        case .pattern(let text):
            query = .string(AASAPattern(text, variables: variables, caseSensitive: caseSensitive))
        case .items(let items):
            query = .items(
                items.keys.sorted().map {
                    ($0, AASAPattern(items[$0]!, variables: variables, caseSensitive: caseSensitive))
                }
            )
        case .ignored, nil:
            break  // Q9: iOS ignores a dictionary with a non-string value.
        }
        return Rule(
            pointer: pointer,
            path: rule.path.map { PathPattern($0, variables: variables, caseSensitive: caseSensitive) },
            query: query,
            fragment: pattern(rule.fragment),
            exclude: rule.exclude ?? false,
            caseSensitive: caseSensitive,
            percentEncoded: rule.percentEncoded ?? true
        )
    }

    /// The verdict for `appID` opening `url` under this file, which is `domain`'s (the URL's host when nil).
    /// With the app's `entitlements`, the file must also be the one §2 assigns to the URL's host (E1–E4):
    /// `applinks:*.example.com` lets example.com's file govern shop.example.com.
    public func decide(appID: String, url string: String, domain: String? = nil, entitlements: AssociatedDomains? = nil)
        -> AASADecision
    {
        guard let url = AASAURL(string) else {
            return AASADecision(verdict: .nomatch, trace: ["the URL cannot be parsed"])
        }
        guard url.scheme == "https" || url.scheme == "http" else {
            return AASADecision(
                verdict: .nomatch,
                trace: ["U1: only http and https URLs are universal links, not \(url.scheme)"]
            )
        }
        let domain = (domain ?? url.host).lowercased()
        if let entitlements {
            guard let governing = entitlements.fileDomain(forHost: url.host) else {
                return AASADecision(verdict: .nomatch, trace: ["E1: no applinks entitlement entry covers \(url.host)"])
            }
            guard governing == domain else {
                return AASADecision(
                    verdict: .nomatch,
                    trace: ["E3, E4: \(url.host) is governed by \(governing)'s file, not \(domain)'s"]
                )
            }
        } else if url.host != domain {
            return AASADecision(
                verdict: .nomatch,
                trace: ["U2: the host \(url.host) is not the domain \(domain) whose file this is"]
            )
        }
        if let port = url.port {
            return AASADecision(
                verdict: .nomatch,
                trace: ["E5: a URL with an explicit port (\(port)) is not treated as associated"]
            )
        }
        var trace: [String] = []
        let subjects = Subjects(url)
        var closest: (score: Int, failure: Failure, rule: Rule)?
        var namedAnywhere = false
        for entry in entries where entry.appIDs.contains(appID) {
            namedAnywhere = true
            trace.append(
                "\(entry.pointer) names \(appID) (\(entry.rules.count) rule\(entry.rules.count == 1 ? "" : "s"))"
            )
            for rule in entry.rules {
                switch evaluate(rule, subjects) {
                case .success:
                    let verdict: AASAVerdict = rule.exclude ? .exclude : .match
                    trace.append(
                        "\(rule.pointer) matches: \(verdict)\(rule.exclude ? " (exclude stops the search, M1)" : "")"
                    )
                    return AASADecision(verdict: verdict, trace: trace)
                case .failure(var failure):
                    // To explain why a URL does not open, the rules that would open it matter most.
                    failure.score = failure.score * 2 + (rule.exclude ? 0 : 1)
                    if closest == nil || failure.score > closest!.score {
                        closest = (failure.score, failure, rule)
                    }
                }
            }
        }
        guard namedAnywhere else {
            return AASADecision(verdict: .nomatch, trace: ["R3: no applinks details entry names \(appID)"])
        }
        if let closest {
            trace.append(
                "no rule matches; closest: \(closest.rule.pointer): \(closest.failure.reason(closest.rule, url))"
            )
        } else {
            trace.append("no rule matches: the entries naming the app have no rules")
        }
        return AASADecision(verdict: .nomatch, trace: trace)
    }

    struct Failure: Error {
        enum Component {
            case path
            case query
            case queryItem(name: String, absent: Bool, pattern: AASAPattern)
            case fragment
        }

        /// How many components matched before this one failed: the highest is the closest rule.
        var score: Int
        var component: Component

        /// Built only for the closest failure, so a miss over many rules allocates no text.
        func reason(_ rule: Rule, _ url: AASAURL) -> String {
            switch component {
            case .path:
                "path pattern '\(rule.path?.text ?? "")' does not match '\(url.path.isEmpty ? "/" : url.path)'"
            case .query:
                if case .string(let pattern) = rule.query {
                    "query pattern '\(pattern)' does not match the query '\(url.query ?? "")'"
                } else {
                    "the query does not match"
                }
            case .queryItem(let name, let absent, let pattern):
                "query item '\(name)' \(absent ? "is absent (compared as \"\")" : "has a value") not matching '\(pattern)'"
            case .fragment:
                "fragment pattern '\(rule.fragment?.text ?? "")' does not match '\(url.fragment ?? "")'"
            }
        }
    }

    /// The URL's components as each rule setting compares them (§10, §11), split into characters once per
    /// decision rather than once per rule.
    final class Subjects {
        let url: AASAURL
        private var cache: [Int: [Character]] = [:]
        private var pairs: [Bool: [(String, String)]] = [:]

        init(_ url: AASAURL) {
            self.url = url
        }

        func prepare(_ text: String, _ rule: Rule) -> String {
            AASAPattern.fold(rule.percentEncoded ? text : AASAURL.decode(text), rule.caseSensitive)
        }

        /// 0: trimmed path, 1: path without its leading slash, 2: query, 3: fragment.
        func characters(_ which: Int, _ rule: Rule) -> [Character] {
            let key = which * 4 + (rule.percentEncoded ? 2 : 0) + (rule.caseSensitive ? 1 : 0)
            if let cached = cache[key] { return cached }
            let text: String
            switch which {
            case 0, 1:
                var trimmed = prepare(url.path, rule)
                if trimmed.isEmpty { trimmed = "/" }
                while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
                // asked for only when trimmed starts with "/"
                text = which == 0 ? trimmed : String(trimmed.dropFirst())
            case 2: text = prepare(url.query ?? "", rule)
            default: text = prepare(url.fragment ?? "", rule)
            }
            let characters = Array(text)
            cache[key] = characters
            return characters
        }

        /// Query items as (name, value), prepared for the rule's settings (Q7, Q10).
        func queryPairs(_ rule: Rule) -> [(String, String)] {
            let key = rule.percentEncoded
            if let cached = pairs[key] { return cached }
            let result: [(String, String)] = (url.query ?? "").split(separator: "&").map { item in
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(parts[0])
                let value = parts.count > 1 ? String(parts[1]) : ""
                return key ? (name, value) : (AASAURL.decode(name), AASAURL.decode(value))
            }
            pairs[key] = result
            return result
        }
    }

    private func evaluate(_ rule: Rule, _ subjects: Subjects) -> Result<Void, Failure> {
        var score = 0
        if let path = rule.path {
            let trimmed = subjects.characters(0, rule)
            let hasBare = trimmed.count > 1 && trimmed.first == "/"
            guard
                path.matches(
                    trimmed,
                    bare: hasBare ? subjects.characters(1, rule) : nil,
                    caseSensitive: rule.caseSensitive
                )
            else {
                return .failure(Failure(score: score, component: .path))
            }
            score += 1
        }
        switch rule.query {
        case .unspecified:
            break
        case .string(let pattern):
            guard pattern.matches(subjects.characters(2, rule), caseSensitive: rule.caseSensitive) else {
                return .failure(Failure(score: score, component: .query))
            }
            score += 1
        case .items(let items):
            let pairs = subjects.queryPairs(rule)
            for (name, pattern) in items {
                let folded = AASAPattern.fold(name, rule.caseSensitive)
                let values = pairs.filter { AASAPattern.fold($0.0, rule.caseSensitive) == folded }.map {
                    AASAPattern.fold($0.1, rule.caseSensitive)
                }
                for value in values.isEmpty ? [""] : values
                where !pattern.matches(value, caseSensitive: rule.caseSensitive) {  // Q6, Q8
                    return .failure(
                        Failure(
                            score: score,
                            component: .queryItem(name: name, absent: values.isEmpty, pattern: pattern)
                        )
                    )
                }
                score += 1
            }
        }
        if let fragment = rule.fragment {
            guard fragment.matches(subjects.characters(3, rule), caseSensitive: rule.caseSensitive) else {
                return .failure(Failure(score: score, component: .fragment))
            }
        }
        return .success(())
    }
}

/// A `/` pattern normalized by §7's reference procedure: optional leading slash (PA1, PA2), insignificant
/// trailing slashes (PA3), the `/*` parent rule (PA4), an empty path read as `/` (PA6).
struct PathPattern: Sendable, CustomStringConvertible {
    let text: String
    let base: AASAPattern
    let parent: AASAPattern?

    var description: String { text }

    init(_ text: String, variables: [String: [String]], caseSensitive: Bool) {
        self.text = text
        let lead = text.hasPrefix("/")
        let core = String(text.drop(while: { $0 == "/" }))
        var base = lead ? "/" + core : core
        while base.count > 1, base.hasSuffix("/") { base.removeLast() }
        if base.isEmpty, lead { base = "/" }
        self.base = AASAPattern(base, variables: variables, caseSensitive: caseSensitive)
        parent =
            base.hasSuffix("/*") && base != "/*"
            ? AASAPattern(String(base.dropLast(2)), variables: variables, caseSensitive: caseSensitive) : nil
    }

    /// `trimmed` is the path without trailing slashes (or `/`); `bare` the same without its leading slash.
    func matches(_ trimmed: [Character], bare: [Character]?, caseSensitive: Bool) -> Bool {
        func ok(_ subject: [Character]) -> Bool {
            base.matches(subject, caseSensitive: caseSensitive)
                || (parent?.matches(subject, caseSensitive: caseSensitive) ?? false)
        }
        return ok(trimmed) || (bare.map(ok) ?? false)
    }
}
