import Foundation

/// One rule of a link: conditions that must all hold for a visitor, and what the visitor gets then. A link's
/// rules are tried in order, the first match wins; without a match the link's platform destinations decide.
///
/// Decoded strictly (an unknown field is refused with its name) and normalized as it is decoded, once per link:
/// languages and countries in one case, versions as numbers, times as milliseconds. What the redirect then does
/// per request is compare.
package struct LinkRule: Sendable, Codable, Equatable {
    /// Unique in the link; names the rule in `?d=1` and in the stats.
    package var name: String
    package var when: Conditions
    package var then: Action

    package init(name: String, when: Conditions = Conditions(), then: Action) {
        (self.name, self.when, self.then) = (name, when, then)
    }

    /// Where a visitor the rule matches goes: exactly one of `url`, `route`, `store` or `split`.
    package enum Action: Sendable, Equatable {
        case destination(Destination)
        /// A weighted split (A/B); weights add up to 100.
        case split([Variant])
    }

    package enum Destination: Sendable, Equatable {
        /// A web address on an allowed host: a 302 on every platform.
        case url(String)
        /// A route of the link's app: the link's own per-platform handling (landing page, Android intent), with
        /// this route instead of the link's.
        case route(String)
        /// The app's store listing: the App Store, or Google Play on Android.
        case store
    }

    package struct Variant: Sendable, Equatable {
        package var name: String
        package var weight: Int
        package var destination: Destination
    }
}

// MARK: JSON

/// Keys of a JSON object, refusing those a type does not know: a misspelt condition must not widen a rule.
struct StrictKeys: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    static func container(_ decoder: any Decoder, allowing known: [String]) throws -> KeyedDecodingContainer<Self> {
        let container = try decoder.container(keyedBy: Self.self)
        try refuseUnknown(in: container, allowing: known)
        return container
    }

    static func refuseUnknown(in container: KeyedDecodingContainer<Self>, allowing known: [String]) throws {
        if let unknown = container.allKeys.first(where: { !known.contains($0.stringValue) }) {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: container.codingPath + [unknown],
                    debugDescription: "unknown field (known: \(known.joined(separator: ", ")))"
                )
            )
        }
    }
}

extension KeyedDecodingContainer where Key == StrictKeys {
    func value<T: Decodable>(_ key: String, as type: T.Type = T.self) throws -> T? {
        try decodeIfPresent(T.self, forKey: StrictKeys(stringValue: key))
    }

    /// A required field: `keyNotFound` (the API's "'rules[0].name' is required") when it is absent.
    func required<T: Decodable>(_ key: String) throws -> T {
        try decode(T.self, forKey: StrictKeys(stringValue: key))
    }

    /// The object under `key`, its fields checked against `known`; nil when absent or null.
    func object(_ key: String, allowing known: [String]) throws -> Self? {
        let field = StrictKeys(stringValue: key)
        guard contains(field), try !decodeNil(forKey: field) else { return nil }
        let object = try nestedContainer(keyedBy: StrictKeys.self, forKey: field)
        try StrictKeys.refuseUnknown(in: object, allowing: known)
        return object
    }
}

extension LinkRule {
    package init(from decoder: any Decoder) throws {
        let container = try StrictKeys.container(decoder, allowing: ["name", "when", "then"])
        name = try container.required("name")
        when = try container.value("when") ?? Conditions()
        then = try container.required("then")
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: StrictKeys.self)
        try container.encode(name, forKey: StrictKeys(stringValue: "name"))
        if !when.isEmpty { try container.encode(when, forKey: StrictKeys(stringValue: "when")) }
        try container.encode(then, forKey: StrictKeys(stringValue: "then"))
    }
}

extension LinkRule.Destination {
    static let keys = ["url", "route", "store"]

    /// The one destination key of `container`, nil when it has none.
    init?(_ container: KeyedDecodingContainer<StrictKeys>) throws {
        let given = Self.keys.filter { container.contains(StrictKeys(stringValue: $0)) }
        guard let key = given.first else { return nil }
        guard given.count == 1 else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: container.codingPath,
                    debugDescription: "one of url, route and store, not \(given.joined(separator: " and "))"
                )
            )
        }
        switch key {
        case "url": self = .url(try container.value("url") ?? "")
        case "route": self = .route(try container.value("route") ?? "")
        default:
            guard try container.value("store", as: Bool.self) == true else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: container.codingPath + [StrictKeys(stringValue: "store")],
                        debugDescription: "true, or leave it out"
                    )
                )
            }
            self = .store
        }
    }

    func encode(into container: inout KeyedEncodingContainer<StrictKeys>) throws {
        switch self {
        case .url(let url): try container.encode(url, forKey: StrictKeys(stringValue: "url"))
        case .route(let route): try container.encode(route, forKey: StrictKeys(stringValue: "route"))
        case .store: try container.encode(true, forKey: StrictKeys(stringValue: "store"))
        }
    }
}

extension LinkRule.Action: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try StrictKeys.container(decoder, allowing: LinkRule.Destination.keys + ["split"])
        let destination = try LinkRule.Destination(container)
        let split: [LinkRule.Variant]? = try container.value("split")
        switch (destination, split) {
        case (let destination?, nil): self = .destination(destination)
        case (nil, let variants?): self = .split(variants)
        default:
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "exactly one of url, route, store and split")
            )
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: StrictKeys.self)
        switch self {
        case .destination(let destination): try destination.encode(into: &container)
        case .split(let variants): try container.encode(variants, forKey: StrictKeys(stringValue: "split"))
        }
    }
}

extension LinkRule.Variant: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try StrictKeys.container(decoder, allowing: ["variant", "weight"] + LinkRule.Destination.keys)
        let weight = try container.value("weight", as: Double.self).map { value in
            guard let whole = Int(exactly: value) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: container.codingPath + [StrictKeys(stringValue: "weight")],
                        debugDescription: "a whole number from 1 to 99, not \(value)"
                    )
                )
            }
            return whole
        }
        guard let name: String = try container.value("variant"), let weight,
            let destination = try LinkRule.Destination(container)
        else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "a variant needs 'variant' (its name), 'weight' and one of url, route and store"
                )
            )
        }
        (self.name, self.weight, self.destination) = (name, weight, destination)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: StrictKeys.self)
        try container.encode(name, forKey: StrictKeys(stringValue: "variant"))
        try container.encode(weight, forKey: StrictKeys(stringValue: "weight"))
        try destination.encode(into: &container)
    }
}

extension LinkRule {
    /// The rules as the API writes them, on one line.
    static func json(_ rules: [LinkRule]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(rules)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }
}
