/// `countries`: the visitor's country (ISO 3166-1 alpha-2) from the header the trusted proxy sets
/// (``SmartLinkSettings/countryHeader``); never guessed from the address. Upper-cased as decoded.
struct CountriesCondition: RuleCondition {
    var countries: [String]

    static let keys = ["countries"]
    static let schema = #"""
        {"countries": {"type": "array", "minItems": 1, "items": {"type": "string", "pattern": "^[A-Z]{2}$"},
          "description": "From the header the trusted proxy or CDN sets (--country-header), read only on requests from trusted proxies."}}
        """#
    static let form: ConditionForm? = ConditionForm(
        key: "countries",
        label: "Countries",
        inputs: [
            .init(
                field: "countries",
                label: "Countries",
                help: "Two-letter codes, as CH, DE: from the header your proxy sets"
            )
        ]
    )

    static func fact(_ visitor: inout RuleVisitor) -> String? { visitor.country().map { "country \($0)" } }

    static func parse(_ form: ConditionFormInput, complaints: inout [String]) -> Self? {
        form.list("countries").map { Self(countries: $0.map { $0.uppercased() }) }
    }

    init(countries: [String]) { self.countries = countries }

    init?(from when: KeyedDecodingContainer<StrictKeys>) throws {
        guard let countries = try when.list("countries", { $0.uppercased() }) else { return nil }
        self.countries = countries
    }

    func encode(to when: inout KeyedEncodingContainer<StrictKeys>) throws { try when.put(countries, "countries") }

    func check(_ visitor: inout RuleVisitor) -> ConditionCheck {
        guard let country = visitor.country() else { return .fails }
        return countries.contains(country) ? .holds : .fails
    }

    func miss(_ visitor: inout RuleVisitor) -> String {
        visitor.country().map { "country is \($0)" } ?? "country unknown"
    }

    func problems(field: String, in when: LinkRule.Conditions) -> [String] {
        countries.isEmpty || countries.count > 250
            || !countries.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isLetter } })
            ? ["\(field).countries: 1 to 250 two-letter country codes (ISO 3166-1), as CH or DE"] : []
    }

    func covers(_ other: Self) -> Bool { isSuperset(countries, other.countries) }

    var heapBytes: Int { MemoryEstimate.strings(countries) }

    var formFields: [(field: String, value: String)] { [("countries", countries.joined(separator: ", "))] }
}
