import DeepLinks

/// Query parameters that Apple's Link Tracking Protection removes from links opened or shared in Mail and
/// Messages and from links in Safari Private Browsing (iOS 17 and later, macOS Sonoma and later). Apple
/// publishes no list and updates its own from its servers; these are the parameters tests have seen removed.
/// `utm_*` survive in the same tests. A link that relies on one of them (a rule matching on it, a destination or
/// route carrying it) works for some visitors and silently not for others, so it gets a warning.
package enum LinkTrackingProtection {
    /// Each parameter with the evidence that it is removed.
    package static let parameters: [String: String] = {
        let tested =
            "removed in Mapp's tests of iOS 17 (docs.mapp.com, 'iOS 17 Link Tracking Protection and Mapp')"
        let listed =
            "on PrivacyTests.org's list of tracking query parameters, which Apple's list was reported to follow (knak.com, 'Link Tracking Protection in iOS 17')"
        var parameters: [String: String] = [:]
        for name in ["gclid", "fbclid", "msclkid", "mc_eid", "igshid", "twclid"] { parameters[name] = tested }
        for name in ["dclid", "__hsfp", "__hssc", "__hstc", "_hsenc", "hsctatracking", "__s", "_openstat"] {
            parameters[name] = listed
        }
        return parameters
    }()

    /// The evidence for `name` (compared without case), nil when it is not known to be removed.
    package static func evidence(_ name: String) -> String? { parameters[name.lowercased()] }

    /// The query items of `url` that Link Tracking Protection removes.
    package static func stripped(in url: String) -> [String] {
        guard let query = try? URLParts(parsing: url, limits: SmartLinkValidator.destinationLimits).query else {
            return []
        }
        return query.split(separator: "&").compactMap { item in
            let name = String(item.prefix { $0 != "=" })
            return evidence(name) == nil ? nil : name
        }
    }

    /// What in `link` relies on a removed parameter: each warning names the field, the parameter and the evidence.
    package static func warnings(_ link: SmartLink) -> [String] {
        var fields: [(String, String?)] = [
            ("route", link.route), ("destinations.ios", link.destinations.ios),
            ("destinations.ipad", link.destinations.ipad), ("destinations.android", link.destinations.android),
            ("destinations.desktop", link.destinations.desktop), ("destinations.fallback", link.destinations.fallback),
        ]
        var warnings: [String] = []
        for (index, rule) in (link.rules ?? []).enumerated() {
            let field = "rules[\(index)]"
            if let name = rule.when[QueryItemCondition.self]?.name, let evidence = evidence(name) {
                warnings.append(
                    "\(field).when.query: matches on '\(name)', which Link Tracking Protection removes in Mail, Messages and Safari Private Browsing (\(evidence)): visitors from there never match"
                )
            }
            switch rule.then {
            case .destination(let destination): fields.append(("\(field).then", destination.address))
            case .split(let variants):
                for (position, variant) in variants.enumerated() {
                    fields.append(("\(field).then.split[\(position)]", variant.destination.address))
                }
            }
        }
        for case (let field, let value?) in fields {
            let url = value.hasPrefix("/") ? "https://example.invalid" + value : value
            for name in stripped(in: url) {
                warnings.append(
                    "\(field): carries '\(name)', which Link Tracking Protection removes in Mail, Messages and Safari Private Browsing (\(evidence(name) ?? "")): put what it carries in the path or a utm_ parameter"
                )
            }
        }
        return warnings
    }
}

extension LinkRule.Destination {
    /// The web address or route, nil for the store.
    /// The route, when the destination is one.
    var route: String? { if case .route(let route) = self { route } else { nil } }

    var address: String? {
        switch self {
        case .url(let url): url
        case .route(let route): route
        case .store: nil
        }
    }
}
