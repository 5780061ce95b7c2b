/// `countries`: the visitor's country (ISO 3166-1 alpha-2) from the header the trusted proxy sets
/// (``SmartLinkSettings/countryHeader``), else from the offline place database the analytics read
/// (`--geoip-database`, Debian's tor-geoipdb by default), never from a network look-up. Upper-cased as decoded.
struct CountriesCondition: ListCondition {
    var items: [String]

    static let key = "countries"
    static let label = "Countries"
    static let help = "Two-letter codes, as CH, DE: from the header your proxy sets, else the offline GeoIP database"
    static func normalized(_ item: String) -> String { item.uppercased() }
    static let schema = #"""
        {"countries": {"type": "array", "minItems": 1, "items": {"type": "string", "pattern": "^[A-Z]{2}$"},
          "description": "From the header the trusted proxy or CDN sets (--country-header), read only on requests from trusted proxies; without one, from the offline GeoIP database (--geoip-database, Debian's tor-geoipdb by default) by the client's address."}}
        """#

    static func fact(_ visitor: inout RuleVisitor) -> String? { visitor.country().map { "country \($0)" } }

    func check(_ visitor: inout RuleVisitor) -> ConditionCheck {
        guard let country = visitor.country() else { return .fails }
        return items.contains(country) ? .holds : .fails
    }

    func miss(_ visitor: inout RuleVisitor) -> String {
        visitor.country().map { "country is \($0)" } ?? "country unknown"
    }

    func problems(field: String, in when: LinkRule.Conditions) -> [String] {
        items.isEmpty || items.count > 250
            || !items.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isLetter } })
            ? ["\(field).countries: 1 to 250 two-letter country codes (ISO 3166-1), as CH or DE"] : []
    }

    func covers(_ other: Self) -> Bool { isSuperset(items, other.items) }
}
