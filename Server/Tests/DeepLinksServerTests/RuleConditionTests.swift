import DeepLinksJSON
@testable import DeepLinksServer
import Foundation
import HTTPTypes
import Testing

/// Every kind of rule condition (``RuleConditions/all``) is whole: the JSON it reads it writes back the same, the
/// console's form gives it back unchanged, it covers itself and narrows an empty rule, it weighs something in the
/// link cache, and the OpenAPI document describes its fields. A new condition without a sample here fails the
/// first test, so none of this can be forgotten in silence.
@Suite struct RuleConditionTests {
    /// A valid `when` for each condition's fields (with the platforms it needs).
    static let samples: [String: String] = [
        "platforms": #"{"platforms":["iphone","mac-or-ipad"]}"#,
        "from": #"{"from":"2026-12-01T10:00:45.250Z","until":"2027-01-01T00:00:00Z"}"#,
        "until": #"{"until":"2027-01-01T00:00:00Z"}"#,
        "os": #"{"platforms":["android"],"os":{"min":"12","max":"15.1"}}"#,
        "languages": #"{"languages":["de","pt-br"]}"#,
        "query": #"{"query":{"name":"campaign","equals":"winter sale "}}"#,
        "countries": #"{"countries":["CH","LI"]}"#,
        "inAppBrowsers": #"{"inAppBrowsers":["instagram","tiktok"]}"#,
    ]

    static func conditions(_ json: String) throws -> LinkRule.Conditions {
        try JSONDecoder().decode(LinkRule.Conditions.self, from: Data(json.utf8))
    }

    @Test func everyConditionHasASample() {
        #expect(Set(RuleConditions.keys) == Set(Self.samples.keys))
    }

    @Test(arguments: RuleConditions.keys)
    func eachConditionIsWhole(_ key: String) throws {
        let sample = try #require(Self.samples[key], "no sample for \(key)")
        let when = try Self.conditions(sample)
        let condition = try #require(when.items.first { type(of: $0).keys.contains(key) })
        // JSON: written back as read.
        let written = String(decoding: try JSONEncoder().encode(when), as: UTF8.self)
        #expect(try JSONValue.parse(Data(written.utf8)) == JSONValue.parse(Data(sample.utf8)), "\(written)")
        // Valid, covers itself, narrows a rule that has no condition.
        #expect(when.problems(field: "when") == [])
        #expect(when.covers(when) && LinkRule.Conditions().covers(when) && !when.covers(LinkRule.Conditions()))
        // The cache counts it; the console's fields give it back.
        #expect(when.footprint > 0)
        var values: [String: String] = [:]
        for item in when.items {
            for (field, value) in item.formFields { values[field] = value }
        }
        for platform in when[PlatformsCondition.self]?.platforms ?? [] {
            values["platform.\(platform.rawValue)"] = "on"
        }
        let form = ConditionFormInput {
            values[$0].flatMap { $0.isEmpty ? nil : $0.trimmingCharacters(in: .whitespaces) }
        } typed: {
            values[$0].flatMap { $0.isEmpty ? nil : $0 }
        }
        var complaints: [String] = []
        let parsed = LinkRule.Conditions(RuleConditions.all.compactMap { $0.parse(form, complaints: &complaints) })
        #expect(complaints == [] && parsed == when, "\(complaints)")
        // Its form entry (platforms are the editor's checkboxes) and its fields in the form.
        if key != "platforms" {
            let entry = try #require(type(of: condition).form, "\(key) has no entry in the console")
            #expect(entry.inputs.allSatisfy { LinkForm.ruleFields.contains($0.field) })
        }
    }

    /// The OpenAPI document's `when` is the list of conditions, each field with a schema.
    @Test func theOpenAPIDocumentDescribesEveryCondition() throws {
        let properties = try RuleConditions.schemaProperties()
        #expect(Set(properties.keys) == Set(RuleConditions.keys))
        for (key, schema) in properties { #expect(schema.object?["type"] != nil, "\(key)") }
        #expect(
            properties["inAppBrowsers"]?.object?["items"]?.object?["enum"]
                == .array((["any"] + InAppBrowser.allCases.map(\.key)).map { .string($0) })
        )
    }

    /// A condition that is not there is not a match for a rule that has it; an unknown in-app browser, an empty
    /// list and `os` without its platforms are refused with the field named.
    @Test func badConditionsAreRefusedWithTheirField() throws {
        let problems = try Self.conditions(
            #"{"inAppBrowsers":["instagram","snapchat"],"languages":[],"os":{"min":"17"}}"#
        ).problems(field: "rules[0].when")
        #expect(
            problems.contains {
                $0.hasPrefix("rules[0].when.inAppBrowsers: 1 or more of any, facebook")
                    && $0.hasSuffix("not 'snapchat'")
            },
            "\(problems)"
        )
        #expect(problems.contains { $0.hasPrefix("rules[0].when.languages:") })
        #expect(problems.contains { $0.hasPrefix("rules[0].when.os: needs platforms of one OS") })
        #expect(throws: DecodingError.self) { try Self.conditions(#"{"os":{"min":"17","mn":"18"}}"#) }
        #expect(throws: DecodingError.self) { try Self.conditions(#"{"inAppBrowser":["any"]}"#) }
    }

    /// `any` covers each app; one app does not cover another, nor `any`.
    @Test func inAppBrowsersCover() throws {
        let any = try Self.conditions(#"{"inAppBrowsers":["any"]}"#)
        let instagram = try Self.conditions(#"{"inAppBrowsers":["instagram"]}"#)
        let both = try Self.conditions(#"{"inAppBrowsers":["instagram","facebook"]}"#)
        #expect(any.covers(instagram) && both.covers(instagram) && !instagram.covers(both) && !instagram.covers(any))
    }

    /// Visitors in Instagram's or Facebook's own browser go to a page that says how to open the app; Safari gets
    /// the link's own landing page, TikTok's browser too (not named by the rule); `?d=1` says which and why.
    @Test func inAppBrowserVisitorsGoWhereTheirRuleSays() async throws {
        let instagram =
            LinkRuleTests.safari26
            + " Instagram 340.0.0.22.109 (iPhone15,2; iOS 26_0; en_US; en; scale=3.00; 1179x2556; 617441221)"
        let facebook =
            "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240805.005; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/128.0.6613.127 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/480.0.0.45.108;]"
        let tikTok = LinkRuleTests.safari26 + " musical_ly_36.5.0 JsSdk/2.0 NetType/WIFI Channel/App Store"
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(LinkRuleTests.configure) { api in
                try await LinkRuleTests.create(
                    api,
                    #"""
                    {"code":"invite","route":"/post/10","destinations":{"fallback":"https://links.example.com/"},"rules":[
                      {"name":"in-app","when":{"inAppBrowsers":["Instagram","facebook"]},"then":{"url":"https://shop.example.org/open-in-safari"}}]}
                    """#
                )
                for agent in [instagram, facebook] {
                    #expect(
                        try await LinkRuleTests.visit(api, "/invite", [.userAgent: agent])
                            == "https://shop.example.org/open-in-safari"
                    )
                }
                #expect(
                    try await LinkRuleTests.visit(api, "/invite", [.userAgent: LinkRuleTests.safari26]).hasPrefix(
                        "200 "
                    )
                )
                let inTikTok = try await LinkRuleTests.visit(api, "/invite", [.userAgent: tikTok])
                #expect(inTikTok.hasPrefix("200 ") && inTikTok.contains("TikTok opens links in its own browser"))
                let debug = try await api.get("/invite?d=1", headers: [.userAgent: instagram]).text
                #expect(debug.contains("platform iphone, OS 26, in-app browser Instagram"), "\(debug)")
                #expect(debug.contains("<strong>1. in-app</strong>: matches: this is where you go"))
                #expect(
                    try await api.get("/invite?d=1", headers: [.userAgent: tikTok]).text.contains(
                        "<strong>1. in-app</strong>: does not match: in-app browser is TikTok"
                    )
                )
                #expect(
                    try await api.get("/invite?d=1", headers: [.userAgent: LinkRuleTests.safari26]).text.contains(
                        "does not match: not in an in-app browser"
                    )
                )
                // Lower-cased as written back; an app this server does not know is refused with the list.
                #expect(
                    try await api.get("/v1/links/invite", headers: LinkRuleTests.admin).text.contains(
                        #""inAppBrowsers":["instagram","facebook"]"#
                    )
                )
                let refused = try await api.post(
                    "/v1/links",
                    #"{"code":"snap","route":"/post/1","rules":[{"name":"s","when":{"inAppBrowsers":["snapchat"]},"then":{"store":true}}]}"#,
                    headers: LinkRuleTests.admin
                )
                #expect(
                    refused.status == .unprocessableContent && refused.text.contains("inAppBrowsers"),
                    "\(refused.text)"
                )
            }
        }
    }
}
