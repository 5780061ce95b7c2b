import DeepLinksJSON
import DeepLinksSupport
import Foundation

/// One kind of condition a link rule may have (`platforms`, `os`, `countries`...), written once: its JSON fields,
/// how it is checked against a visitor and described when it fails, what is wrong with its values, whether it
/// covers another rule's, what it weighs in the link cache, its fields in the console and its OpenAPI schema.
///
/// A rule's `when` (``LinkRule/Conditions``) holds one value of each kind it uses. The decoder's allowed fields,
/// the validator, the unreachable-rule check, the cache's bound, the console's rule editor, `?d=1` and the
/// OpenAPI document all go through ``RuleConditions/all``: a new condition is a type of its own and one line there.
protocol RuleCondition: Sendable, Equatable {
    /// The fields of a rule's `when` it reads and writes: one, or two (`from` and `until`).
    static var keys: [String] { get }
    /// The OpenAPI schema of each of its fields: a JSON object by field, served in `/openapi.json`.
    static var schema: String { get }
    /// Its entry in the console's "Add a condition"; nil when the form always shows it (platforms).
    static var form: ConditionForm? { get }
    /// What this request tells the condition (`language de-ch`), for `?d=1`'s facts line; nil when there is
    /// nothing to say.
    static func fact(_ visitor: inout RuleVisitor) -> String?
    /// Read from the form's fields; nil when they are all empty. What cannot be read goes to `complaints`.
    static func parse(_ form: ConditionFormInput, complaints: inout [String]) -> Self?

    /// Decoded from a rule's `when`, normalized (case, numbers): nil when none of ``keys`` is there.
    init?(from when: KeyedDecodingContainer<StrictKeys>) throws
    func encode(to when: inout KeyedEncodingContainer<StrictKeys>) throws

    /// Whether `visitor` meets it. On every redirect of a link with rules: no words, no allocation.
    func check(_ visitor: inout RuleVisitor) -> ConditionCheck
    /// Why `visitor` does not meet it, for `?d=1`. The page is public: the kind of condition and what the visitor
    /// sent, never the value the rule expects nor when it starts or ends (operators see rules in the console).
    func miss(_ visitor: inout RuleVisitor) -> String
    /// What is wrong with its values, each naming its field under `field` (`rules[0].when`); `when` is the whole
    /// rule's, for a condition that needs another (an OS range needs platforms of one OS).
    func problems(field: String, in when: LinkRule.Conditions) -> [String]
    /// Whether every visitor `other` admits, this admits too (a later rule with `other` is then never reached by
    /// this condition's measure).
    func covers(_ other: Self) -> Bool
    /// The heap bytes its strings and arrays take, for the link cache's bound (``MemoryEstimate``).
    var heapBytes: Int { get }
    /// Its values as the form's texts, by field.
    var formFields: [(field: String, value: String)] { get }
}

extension RuleCondition {
    static var form: ConditionForm? { nil }
    static func fact(_ visitor: inout RuleVisitor) -> String? { nil }
    var heapBytes: Int { 0 }

    /// The bytes it takes in a rule beyond the list's slot: its box when it does not fit the slot's inline buffer.
    var footprint: Int { MemoryEstimate.existentialBox(Self.self) + heapBytes }

    func isEqual(to other: any RuleCondition) -> Bool { (other as? Self) == self }

    func covers(in other: LinkRule.Conditions) -> Bool { other[Self.self].map(covers) ?? false }
}

/// Every kind of rule condition, in the order a rule checks them (the cheapest, and the platform's probe, first),
/// decodes, writes and shows them.
enum RuleConditions {
    static let all: [any RuleCondition.Type] = [
        PlatformsCondition.self, TimeWindowCondition.self, OSVersionCondition.self, LanguagesCondition.self,
        QueryItemCondition.self, CountriesCondition.self, InAppBrowsersCondition.self,
    ]

    /// Every field a rule's `when` may have.
    static let keys = all.flatMap { $0.keys }

    /// The `when` object's properties for the OpenAPI document, from each condition's schema.
    static func schemaProperties() throws -> [String: JSONValue] {
        var properties: [String: JSONValue] = [:]
        for type in all {
            guard case .object(let fields) = try JSONValue.parse(Data(type.schema.utf8)),
                Set(fields.keys) == Set(type.keys)
            else {
                throw ConfigurationError(
                    setting: "openapi.json",
                    reason: "\(type)'s schema does not describe \(type.keys)"
                )
            }
            properties.merge(fields) { first, _ in first }
        }
        return properties
    }

    static func position(_ type: any RuleCondition.Type) -> Int {
        all.firstIndex { $0 == type } ?? all.count
    }
}

/// Whether a visitor meets one condition.
enum ConditionCheck: Equatable {
    case holds
    case fails
    /// The visitor is a Mac agent that may be an iPad, and the condition tells the two apart: the touch check
    /// decides first.
    case needsPlatform
}

/// A condition's entry in the console's rule editor: the key "Add a condition" posts, its label and its inputs.
struct ConditionForm: Sendable {
    struct Input: Sendable {
        let field: String
        let label: String
        var type = "text"
        var help: String?
    }

    let key: String
    let label: String
    let inputs: [Input]
}

/// A rule's fields as the console's form sent them.
struct ConditionFormInput {
    /// A field's text without the spaces around it; nil when empty.
    let text: (String) -> String?
    /// A field's text as typed, with only its leading spaces dropped (a query value's trailing space is its own);
    /// nil when empty.
    let typed: (String) -> String?

    /// A comma-separated field as its items.
    func list(_ field: String) -> [String]? {
        text(field).map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
    }
}

extension LinkRule {
    /// A rule's conditions: at most one of each kind (``RuleConditions/all``), kept in that order. Every condition
    /// given must hold; one not given holds for everyone.
    package struct Conditions: Sendable, Equatable {
        private(set) var items: [any RuleCondition] = []

        package init() {}

        init(_ items: [any RuleCondition]) {
            for item in items { replace(type(of: item), with: item) }
        }

        var isEmpty: Bool { items.isEmpty }

        /// The condition of one kind, if the rule has it.
        subscript<Condition: RuleCondition>(_ type: Condition.Type) -> Condition? {
            get { items.lazy.compactMap { $0 as? Condition }.first }
            set { replace(type, with: newValue) }
        }

        /// The conditions with `value` as the one of kind `type` (none when nil), in ``RuleConditions/all``'s order.
        private mutating func replace(_ type: any RuleCondition.Type, with value: (any RuleCondition)?) {
            items.removeAll { Swift.type(of: $0) == type }
            guard let value else { return }
            let position = RuleConditions.position(type)
            let index = items.firstIndex { RuleConditions.position(Swift.type(of: $0)) > position } ?? items.count
            items.insert(value, at: index)
        }

        package static func == (a: Self, b: Self) -> Bool {
            a.items.count == b.items.count && zip(a.items, b.items).allSatisfy { $0.isEqual(to: $1) }
        }

        /// Whether every visitor `other` matches also matches these conditions (so a rule with `other` after one
        /// with these is never reached).
        func covers(_ other: Self) -> Bool { items.allSatisfy { $0.covers(in: other) } }

        /// Whether `visitor` meets every condition, checked in order; the first that fails decides.
        /// - Returns: the outcome, and the index in ``items`` of the condition that failed.
        func check(_ visitor: inout RuleVisitor) -> (ConditionCheck, failed: Int) {
            for (index, item) in items.enumerated() {
                switch item.check(&visitor) {
                case .holds: continue
                case .fails: return (.fails, index)
                case .needsPlatform: return (.needsPlatform, index)
                }
            }
            return (.holds, items.count)
        }

        func problems(field: String) -> [String] { items.flatMap { $0.problems(field: field, in: self) } }

        /// The bytes the conditions take in the link cache.
        var footprint: Int { isEmpty ? 0 : MemoryEstimate.array(items) + items.reduce(0) { $0 + $1.footprint } }
    }
}

extension LinkRule.Conditions: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try StrictKeys.container(decoder, allowing: RuleConditions.keys)
        for type in RuleConditions.all {
            if let condition = try type.init(from: container) { items.append(condition) }
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: StrictKeys.self)
        for item in items { try item.encode(to: &container) }
    }
}

// MARK: Decoding helpers

extension KeyedEncodingContainer where Key == StrictKeys {
    mutating func put<T: Encodable>(_ value: T?, _ key: String) throws {
        try encodeIfPresent(value, forKey: StrictKeys(stringValue: key))
    }
}

/// A range condition's covering: `lower...upper` (either open) admits every value `otherLower...otherUpper` does.
enum Bounds {
    static func covers<T: Comparable>(_ lower: T?, _ upper: T?, _ otherLower: T?, _ otherUpper: T?) -> Bool {
        (lower.map { mine in otherLower.map { mine <= $0 } ?? false } ?? true)
            && (upper.map { mine in otherUpper.map { mine >= $0 } ?? false } ?? true)
    }
}

/// Whether `mine` admits every item of `theirs` (a list condition's covering).
func isSuperset<T: Hashable>(_ mine: [T], _ theirs: [T]) -> Bool { Set(mine).isSuperset(of: theirs) }

/// A condition that is one list field of names (`languages`, `countries`, `inAppBrowsers`), its items normalized
/// as decoded and as the console reads them: its JSON, its console entry and field, and its cache weight follow from
/// ``key``, ``label``, ``help`` and ``normalized(_:)``.
protocol ListCondition: RuleCondition {
    static var key: String { get }
    static var label: String { get }
    static var help: String { get }
    static func normalized(_ item: String) -> String
    var items: [String] { get }
    init(items: [String])
}

extension ListCondition {
    static var keys: [String] { [key] }
    static var form: ConditionForm? {
        ConditionForm(key: key, label: label, inputs: [.init(field: key, label: label, help: help)])
    }

    static func parse(_ form: ConditionFormInput, complaints: inout [String]) -> Self? {
        form.list(key).map { Self(items: $0.map(normalized)) }
    }

    init?(from when: KeyedDecodingContainer<StrictKeys>) throws {
        guard let items = try when.value(Self.key, as: [String].self) else { return nil }
        self.init(items: items.map(Self.normalized))
    }

    func encode(to when: inout KeyedEncodingContainer<StrictKeys>) throws { try when.put(items, Self.key) }

    var heapBytes: Int { MemoryEstimate.strings(items) }
    var formFields: [(field: String, value: String)] { [(Self.key, items.joined(separator: ", "))] }
}
