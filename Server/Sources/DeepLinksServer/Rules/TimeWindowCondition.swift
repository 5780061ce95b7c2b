import Foundation

/// `from` and `until`: from this instant (inclusive) until that one (exclusive). Milliseconds since 1970 in
/// memory, ISO 8601 with its offset in JSON.
struct TimeWindowCondition: RuleCondition {
    var from: Int64?
    var until: Int64?

    static let keys = ["from", "until"]
    static let schema = #"""
        {"from": {"type": "string", "format": "date-time", "description": "Inclusive, with its offset: 2026-12-01T00:00:00Z."},
         "until": {"type": "string", "format": "date-time", "description": "Exclusive. A link whose rules have all ended, with no destination of its own, answers 410."}}
        """#
    static let form: ConditionForm? = ConditionForm(
        key: "window",
        label: "Time window",
        inputs: [
            .init(field: "from", label: "From (UTC)", type: "datetime-local"),
            .init(field: "until", label: "Until (UTC)", type: "datetime-local"),
        ]
    )

    static func parse(_ form: ConditionFormInput, complaints: inout [String]) -> Self? {
        var window = Self(from: nil, until: nil)
        for field in keys {
            guard let text = form.text(field) else { continue }
            guard let instant = UTCDate.parse(text) else {
                complaints.append("\(field): a date and time, as 2026-12-31T23:59 (UTC)")
                continue
            }
            if field == "from" { window.from = instant } else { window.until = instant }
        }
        return window.from == nil && window.until == nil ? nil : window
    }

    init(from: Int64?, until: Int64?) { (self.from, self.until) = (from, until) }

    init?(from when: KeyedDecodingContainer<StrictKeys>) throws {
        (from, until) = (try Self.instant(when, "from"), try Self.instant(when, "until"))
        if from == nil, until == nil { return nil }
    }

    /// An ISO 8601 instant with its offset (`2026-12-01T00:00:00Z`), as milliseconds since 1970.
    private static func instant(_ container: KeyedDecodingContainer<StrictKeys>, _ key: String) throws -> Int64? {
        guard let text: String = try container.value(key) else { return nil }
        guard let date = try? Date(text, strategy: .iso8601) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: container.codingPath + [StrictKeys(stringValue: key)],
                    debugDescription: "an ISO 8601 instant with its offset, as 2026-12-01T00:00:00Z"
                )
            )
        }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    func encode(to when: inout KeyedEncodingContainer<StrictKeys>) throws {
        try when.put(from.map(Self.iso), "from")
        try when.put(until.map(Self.iso), "until")
    }

    /// `2027-01-01T00:00:00Z`, with its milliseconds when it has some (`00:00:00.250Z`): what was read is written.
    static func iso(_ milliseconds: Int64) -> String {
        let fraction = (milliseconds % 1000 + 1000) % 1000  // in 0...999 before 1970 too
        let whole = Date(timeIntervalSince1970: Double((milliseconds - fraction) / 1000)).formatted(.iso8601)
        guard fraction != 0, whole.hasSuffix("Z") else { return whole }
        return whole.dropLast() + "." + String(String(fraction + 1000).dropFirst()) + "Z"
    }

    func check(_ visitor: inout RuleVisitor) -> ConditionCheck {
        if let from, visitor.now < from { return .fails }
        if let until, visitor.now >= until { return .fails }
        return .holds
    }

    func miss(_ visitor: inout RuleVisitor) -> String { "not in its time window now" }

    func problems(field: String, in when: LinkRule.Conditions) -> [String] {
        guard let from, let until, from >= until else { return [] }
        return ["\(field): from must come before until"]
    }

    func covers(_ other: Self) -> Bool { Bounds.covers(from, until, other.from, other.until) }

    var formFields: [(field: String, value: String)] {
        [
            ("from", from.map { UTCDate.formatted($0, form: true) } ?? ""),
            ("until", until.map { UTCDate.formatted($0, form: true) } ?? ""),
        ]
    }
}
