@testable import DeepLinksServer
import Foundation
import Testing

/// ``LinkForm``, the console's link form both ways: every field of a link and every kind of rule condition, written
/// to the form's fields and read back, gives the same link (as the route table does for URLs); the rules buttons
/// change only the rules; a field that cannot be read is named.
@Suite struct LinkFormTests {
    static let policy: LinkPolicy = {
        var settings = ServerSettings(app: .demo)
        SmartLinkTests.configure(&settings)
        let files = try! AssociationFiles(app: settings.app, links: settings.smartLinks)
        return try! LinkPolicy(settings: settings.smartLinks, app: settings.app, association: files)
    }()

    /// A link with every field set, and a rule per condition of ``RuleConditionTests/samples`` (each sending
    /// visitors somewhere else: a web address, a route, the store, a split).
    static func everything(passQuery: Bool) throws -> SmartLink {
        var link = SmartLink(code: "every-field", route: "/post/10?ref=form")
        link.destinations = .init(
            ios: "https://shop.example.org/ios",
            ipad: "https://shop.example.org/ipad",
            android: "https://shop.example.org/android",
            desktop: "https://shop.example.org/desktop",
            fallback: "https://links.example.com/web/post/10"
        )
        link.preview = .init(
            title: "Every field",
            description: "A link with all of them",
            image: "https://shop.example.org/i.png"
        )
        link.passQuery = passQuery
        link.expiresAt = 1_893_456_000_250
        link.expiredURL = "https://shop.example.org/ended"
        let actions: [LinkRule.Action] = [
            .destination(.url("https://shop.example.org/rule")), .destination(.route("/post/11")),
            .destination(.store),
            .split([
                .init(name: "a", weight: 30, destination: .route("/post/12")),
                .init(name: "b side", weight: 70, destination: .url("https://shop.example.org/b")),
            ]),
        ]
        link.rules = try RuleConditionTests.samples.keys.sorted().enumerated().map { index, key in
            LinkRule(
                name: "rule \(key)",
                when: try RuleConditionTests.conditions(RuleConditionTests.samples[key]!),
                then: actions[index % actions.count]
            )
        }
        return link
    }

    @Test(arguments: [false, true])
    func everyFieldAndConditionComesBackFromTheForm(passQuery: Bool) throws {
        let link = try Self.everything(passQuery: passQuery)
        #expect(Self.policy.validator.problems(link) == [], "the sample is a valid link")
        let form = LinkForm(link)
        let (read, problems) = form.link(policy: Self.policy)
        #expect(problems.isEmpty, "\(problems)")
        #expect(read == link)
        #expect(read.map(LinkForm.init)?.values == form.values)
        // A web link (no route) and one without rules come back too.
        var web = SmartLink(code: "web-only", route: nil)
        web.destinations.fallback = "https://shop.example.org/"
        #expect(LinkForm(web).link(policy: Self.policy).0 == web)
    }

    @Test func theRulesButtonsChangeOnlyTheRules() throws {
        let form = LinkForm(try Self.everything(passQuery: true))
        let count = try #require(Int(form.values["rules"] ?? ""))
        let added = try #require(form.applying("add"))
        #expect(added.values["rules"] == String(count + 1))
        #expect(added.values[LinkForm.ruleField(count, "name")] == "rule \(count + 1)")
        let moved = try #require(form.applying("down.0"))
        #expect(moved.values[LinkForm.ruleField(1, "name")] == form.values[LinkForm.ruleField(0, "name")])
        let back = try #require(moved.applying("up.1"))
        #expect(back.link(policy: Self.policy).0 == form.link(policy: Self.policy).0, "down then up: the same link")
        let removed = try #require(form.applying("remove.0"))
        #expect(removed.values["rules"] == String(count - 1))
        #expect(removed.link(policy: Self.policy).0?.rules?.first?.name == form.values[LinkForm.ruleField(1, "name")])
        for field in ["code", "route", "destinations.ios", "preview.title", "expiresAt", "passQuery"] {
            #expect(added.values[field] == form.values[field], "\(field)")
        }
        for refused in ["up.0", "down.\(count - 1)", "remove.\(count)", "sideways", "condition.0"] {
            #expect(form.applying(refused) == nil, "\(refused)")
        }
    }

    @Test func aFieldThatCannotBeReadIsNamed() throws {
        var form = LinkForm(try Self.everything(passQuery: false))
        form.values["expiresAt"] = "next tuesday"
        form.values[LinkForm.ruleField(0, "then")] = "somewhere"
        let (link, problems) = form.link(policy: Self.policy)
        #expect(link == nil)
        #expect(problems["expiresAt"] == ["expiresAt: a date and time, as 2026-12-31T23:59 (UTC)"])
        #expect(problems[LinkForm.ruleField(0, "")]?.first?.hasPrefix("sends to:") == true, "\(problems)")
    }
}
