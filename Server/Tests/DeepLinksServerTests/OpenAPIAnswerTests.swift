import DeepLinksJSON
import Foundation
import HTTPTypes
import Testing

@testable import DeepLinksServer

/// The OpenAPI document's answers are the answer types: each type the routes answer with (``JSONResponse/make(_:_:headers:)``),
/// encoded with every optional field set and with none, is valid against the schema the document gives its
/// operation: no key the schema lacks, every key it requires, each value of its type. A field added to a type and
/// not to the document (or the other way round) fails here, not in a client.
@Suite struct OpenAPIAnswerTests {
    static let document: JSONValue = try! JSONValue.parse(Data(PackageResources.openapi_api_json))

    /// The schema of an operation's answer, its `$ref` followed.
    static func schema(_ method: String, _ path: String, _ status: String) throws -> JSONValue {
        let schema = try #require(
            document.object?["paths"]?.object?[path]?.object?[method]?.object?["responses"]?.object?[status]?.object?[
                "content"
            ]?.object?["application/json"]?.object?["schema"],
            "\(method) \(path) \(status) has no JSON answer"
        )
        return resolved(schema)
    }

    static func resolved(_ schema: JSONValue) -> JSONValue {
        guard let reference = schema.object?["$ref"]?.string else { return schema }
        let name = String(reference.split(separator: "/").last ?? "")
        return resolved(document.object?["components"]?.object?["schemas"]?.object?[name] ?? .null)
    }

    /// Where `value` departs from `schema` (the subset the document uses: type, properties, required,
    /// additionalProperties, items, enum, const).
    static func problems(_ value: JSONValue, _ schema: JSONValue, at path: String = "$") -> [String] {
        let schema = resolved(schema)
        guard let rules = schema.object else { return [] }
        var problems: [String] = []
        if let allowed = rules["enum"]?.array, !allowed.contains(value) {
            problems.append("\(path): \(value) not in enum")
        }
        if let constant = rules["const"], constant != value { problems.append("\(path): \(value) is not \(constant)") }
        switch (rules["type"]?.string, value) {
        case (nil, _), ("string", .string), ("boolean", .bool), ("number", .number), ("array", .array),
            ("object", .object):
            break
        case ("integer", .number(let number)) where number == number.rounded():
            break
        case (let type?, _):
            problems.append("\(path): \(value) is not of type \(type)")
        }
        if case .object(let members) = value {
            let properties = rules["properties"]?.object ?? [:]
            for required in rules["required"]?.array?.compactMap(\.string) ?? [] where members[required] == nil {
                problems.append("\(path): the required \(required) is missing")
            }
            for (key, member) in members {
                guard let property = properties[key] else {
                    if rules["additionalProperties"] == .bool(false) {
                        problems.append("\(path): \(key) is not documented")
                    }
                    continue
                }
                problems += Self.problems(member, property, at: "\(path).\(key)")
            }
        }
        if case .array(let items) = value, let item = rules["items"] {
            for (index, element) in items.enumerated() {
                problems += Self.problems(element, item, at: "\(path)[\(index)]")
            }
        }
        return problems
    }

    static func encoded(_ answer: some Encodable) throws -> JSONValue {
        try JSONValue.parse(try JSONEncoder().encode(answer))
    }

    static let key = Operators.APIKey(
        id: 7,
        name: "ci",
        role: .editor,
        prefix: "dlk_AbCd1234",
        createdAt: 1_700_000_000_000,
        createdBy: "ops@example.com",
        lastUsedAt: 1_700_000_100_000,
        revokedAt: 1_700_000_200_000,
        note: "revoked at the upgrade"
    )

    /// Every answer type, full and bare, with the operation that answers it.
    static var answers: [(operation: String, full: JSONValue, bare: JSONValue)] {
        get throws {
            var report = LinkTransfer.ImportReport()
            report.format = .dub
            report.entries = [(2, "spring", "imported", []), (3, nil, "refused", ["no short code"])]
            var taken = report
            taken.taken = ["spring"]
            taken.entries[0].status = "taken"
            let stats = LinksAPIController.Stats(
                code: "summer",
                clicks: 3,
                botFetches: 1,
                qrScans: 1,
                days: [.init(day: "2026-12-06", platform: "iphone", bot: false, source: "qr", clicks: 3)],
                referrers: [.init(host: "news.example.com", clicks: 2)],
                rules: [.init(rule: "ab", variant: "a", clicks: 1)]
            )
            let bareStats = LinksAPIController.Stats(
                code: "summer",
                clicks: 0,
                botFetches: 0,
                qrScans: 0,
                days: [],
                referrers: [],
                rules: [.init(rule: "ab", variant: nil, clicks: 0)]
            )
            return [
                ("post /v1/accounts 201", try encoded(AccountRoutes.Email(email: "a@example.com")), .null),
                ("get /v1/me 200", try encoded(AccountRoutes.Email(email: "a@example.com")), .null),
                ("post /v1/sessions 201", try encoded(AccountRoutes.Session(token: "t")), .null),
                ("post /v1/password-resets 202", try encoded(PasswordResetRoutes.Accepted()), .null),
                (
                    "post /v1/password-resets/verify 200",
                    try encoded(PasswordResetRoutes.Valid(email: "a***@example.com")), .null
                ),
                (
                    "post /v1/reset-links 201",
                    try encoded(
                        PasswordResetRoutes.IssuedLink(
                            delivery: "return",
                            expiresAt: "2026-12-06T10:00:00Z",
                            link: "https://x"
                        )
                    ),
                    try encoded(
                        PasswordResetRoutes.IssuedLink(delivery: "mail", expiresAt: "2026-12-06T10:00:00Z", link: nil)
                    )
                ),
                (
                    "post /v1/reset-links/consume 200",
                    try encoded(PasswordResetRoutes.Consumed(subject: "u1", email: "a@example.com")), .null
                ),
                (
                    "get /v1/links/{code}/resolve 200",
                    try encoded(SmartLinkRoutes.Resolved(url: "https://links.example.com/post/1", route: "/post/1")),
                    try encoded(SmartLinkRoutes.Resolved(url: "https://shop.example.org/"))
                ),
                (
                    "post /v1/deferred/redeem 200",
                    try encoded(
                        SmartLinkRoutes.Resolved(
                            url: "https://links.example.com/post/1",
                            route: "/post/1",
                            code: "summer"
                        )
                    ),
                    .null
                ),
                (
                    "post /v1/links/{code}/deferred 201",
                    try encoded(SmartLinkRoutes.DeferredToken(pasteboard: "p", expiresIn: 3600)), .null
                ),
                (
                    "get /v1/keys 200", try encoded(KeysAPIController.Keys(keys: [.init(key)])),
                    try encoded(KeysAPIController.Keys(keys: []))
                ),
                ("post /v1/keys 201", try encoded(KeysAPIController.Key(key, secret: "dlk_secret")), .null),
                ("get /v1/links/{code}/stats 200", try encoded(stats), try encoded(bareStats)),
                (
                    "get /v1/links/{code}/analytics 200",
                    try encoded(
                        AnalyticsReport(
                            code: "summer",
                            from: "2026-12-05",
                            to: "2026-12-06",
                            interval: .day,
                            totals: .init(start: "2026-12-05", people: 3, visitors: 2, scanners: 1, previews: 1),
                            series: [.init(start: "2026-12-05"), .init(start: "2026-12-06", people: 3)],
                            breakdown: .init(dimension: .country, rows: [.init(value: "CH", people: 3)]),
                            links: [.init(code: "summer", clicks: 3, visitors: 2)]
                        )
                    ),
                    try encoded(
                        AnalyticsReport(
                            code: nil,
                            from: "2026-12-06",
                            to: "2026-12-06",
                            interval: .hour,
                            totals: .init(start: "2026-12-06"),
                            series: [],
                            breakdown: nil,
                            links: nil
                        )
                    )
                ),
                (
                    "post /v1/links/import 200", try encoded(report.answer(dryRun: true)),
                    try encoded(LinkTransfer.ImportReport().answer(dryRun: false))
                ),
                ("post /v1/links/import 409", try encoded(taken.answer(dryRun: false)), .null),
            ]
        }
    }

    @Test func everyAnswerTypeIsItsDocumentedSchema() throws {
        // The keys the samples of each schema write (a schema may answer several operations: `Resolved`).
        var written: [JSONValue: (operations: [String], keys: Set<String>)] = [:]
        for (operation, full, bare) in try Self.answers {
            let parts = operation.split(separator: " ").map(String.init)
            let schema = try Self.schema(parts[0], parts[1], parts[2])
            #expect(Self.problems(full, schema).isEmpty, "\(operation): \(Self.problems(full, schema))")
            if bare != .null {
                #expect(Self.problems(bare, schema).isEmpty, "\(operation): \(Self.problems(bare, schema))")
            }
            written[schema, default: ([], [])].operations.append(operation)
            written[schema]?.keys.formUnion(full.object?.keys.map { $0 } ?? [])
        }
        // Every documented property is one a type writes.
        for (schema, samples) in written {
            let documented = Set(schema.object?["properties"]?.object?.keys.map { $0 } ?? [])
            #expect(
                documented.isSubset(of: samples.keys),
                "\(samples.operations): documented, never written: \(documented.subtracting(samples.keys))"
            )
        }
    }

    /// The check itself catches a drift: an undocumented key, a missing required one, a wrong type.
    @Test func theCheckSeesADrift() throws {
        let schema = try Self.schema("get", "/v1/links/{code}/resolve", "200")
        #expect(!Self.problems(.object(["url": .string("u"), "extra": .bool(true)]), schema).isEmpty)
        #expect(!Self.problems(.object(["route": .string("/x")]), schema).isEmpty)
        #expect(!Self.problems(.object(["url": .number(1)]), schema).isEmpty)
    }
}
