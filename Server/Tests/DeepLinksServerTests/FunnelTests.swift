import DeepLinksJSON
import DeepLinksStorage
import DeepLinksTestSupport
@testable import DeepLinksServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import SQLKit
import Testing

/// Opens, installs and goals over a live socket on both databases: the app's events (refusals named, retries
/// counted once, on two servers), installs from deferred redemptions, the funnel in JSON and CSV; and App Store
/// campaign links on every page and redirect that gives the App Store.
@Suite struct FunnelTests {
    static func configure(_ settings: inout ServerSettings) {
        ClickAnalyticsTests.configure(&settings)
        settings.app.appStoreProviderToken = "118123"
    }

    static func events(_ events: [[String: String]]) -> String {
        let items = events.map { event in
            "{" + event.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",") + "}"
        }
        return #"{"events":["# + items.joined(separator: ",") + "]}"
    }

    static func id(_ number: Int) -> String { String(format: "%032x", number) }

    @Test(arguments: TestDatabase.allCases)
    func opensInstallsAndGoalsAreCountedOnceWhicheverServerTakesThem(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve(Self.configure) { first in
                #expect(
                    try await first.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                try await world.serve(Self.configure) { second in
                    let batch = Self.events([
                        [
                            "id": Self.id(1), "type": "opened", "channel": "universal_link", "route": "post",
                            "code": "summer",
                        ],
                        [
                            "id": Self.id(2), "type": "opened", "channel": "custom_scheme", "route": "post",
                            "code": "summer",
                        ],
                        ["id": Self.id(3), "type": "goal", "goal": "signup", "code": "summer"],
                        ["id": Self.id(4), "type": "opened", "channel": "deferred", "route": "post"],
                    ])
                    let taken = try await first.post("/v1/events", batch)
                    #expect(taken.status == .ok, "\(taken.text)")
                    #expect(
                        taken.object["counted"] as? Int == 4 && taken.object["duplicates"] as? Int == 0,
                        "\(taken.text)"
                    )
                    // The same batch again, to the other server: a retry, counted nowhere.
                    let retried = try await second.post("/v1/events", batch)
                    #expect(retried.object["counted"] as? Int == 0 && retried.object["duplicates"] as? Int == 4)

                    let refusals = try await second.post(
                        "/v1/events",
                        Self.events([
                            ["id": "short", "type": "opened", "channel": "universal_link", "route": "post"],
                            ["id": Self.id(5), "type": "opened", "channel": "carrier_pigeon", "route": "post"],
                            ["id": Self.id(6), "type": "opened", "channel": "universal_link", "route": "nowhere"],
                            [
                                "id": Self.id(7), "type": "opened", "channel": "universal_link", "route": "post",
                                "code": "nothing",
                            ],
                            ["id": Self.id(8), "type": "goal", "goal": "sign up!"],
                            ["id": Self.id(9), "type": "viewed"],
                        ])
                    )
                    let refused = refusals.object["refused"] as? [[String: Any]] ?? []
                    #expect(refused.map { $0["index"] as? Int } == [0, 1, 2, 3, 4, 5], "\(refusals.text)")
                    let reasons = refused.compactMap { $0["reason"] as? String }
                    for (index, part) in ["'id'", "'channel'", "'route'", "'code'", "'goal'", "'type'"].enumerated() {
                        #expect(reasons[index].contains(part), "\(reasons[index])")
                    }
                    for body in ["{}", #"{"events":[]}"#, "not json", #"{"events":"x"}"#] {
                        let answer = try await second.post("/v1/events", body)
                        #expect(answer.status == .badRequest, "\(body): \(answer.text)")
                    }

                    // An install: a deferred link issued on the landing page, redeemed by the app once.
                    let issued = try await first.post("/v1/links/summer/deferred", "{}")
                    let pasteboard = try #require(issued.object["pasteboard"] as? String)
                    let token = String(pasteboard.split(separator: "=").last!)
                    #expect(try await second.post("/v1/deferred/redeem", #"{"token":"\#(token)"}"#).status == .ok)
                    #expect(try await first.post("/v1/deferred/redeem", #"{"token":"\#(token)"}"#).status == .gone)

                    let funnel = try await second.get("/v1/links/summer/funnel", headers: SmartLinkTests.admin).object
                    let opens = funnel["opens"] as? [String: Any] ?? [:]
                    #expect(opens["universalLink"] as? Int == 1 && opens["customScheme"] as? Int == 1, "\(funnel)")
                    #expect(opens["deferred"] as? Int == 0, "an open without a code is no link's")
                    #expect(opens["total"] as? Int == 2)
                    #expect(funnel["installs"] as? Int == 1)
                    let goals = funnel["goals"] as? [[String: Any]] ?? []
                    #expect(goals.first?["name"] as? String == "signup" && goals.first?["count"] as? Int == 1)
                    let all = try await first.get("/v1/funnel", headers: SmartLinkTests.admin).object
                    #expect((all["opens"] as? [String: Any])?["total"] as? Int == 3, "\(all)")
                    let csv = try await first.get("/v1/links/summer/funnel?format=csv", headers: SmartLinkTests.admin)
                    #expect(
                        csv.text.contains("opens by universal link,1\r\n") && csv.text.contains("goal signup,1\r\n")
                    )
                    let wrong = try await first.get("/v1/funnel?interval=hour", headers: SmartLinkTests.admin)
                    #expect(wrong.status == .badRequest && wrong.object["parameter"] as? String == "interval")
                }
            }
        }
    }

    @Test func appStoreAddressesCarryTheCampaign() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(Self.configure) { api in
                let link = #"""
                    {"code":"spring","route":"/post/10","campaign":"Spring sale 2026","rules":[
                      {"name":"store","when":{"platforms":["desktop"]},"then":{"store":true}}]}
                    """#
                #expect(try await api.post("/v1/links", link, headers: SmartLinkTests.admin).status == .created)
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                let store = try await api.get("/spring", headers: [.userAgent: SmartLinkTests.desktop])
                #expect(
                    store.headers[.location]
                        == "https://apps.apple.com/app/id1234567890?pt=118123&ct=Spring%20sale%202026&mt=8"
                )
                let landing = try await api.get("/summer", headers: [.userAgent: SmartLinkTests.iPhone]).text
                #expect(
                    landing.contains(
                        #"href="https://apps.apple.com/app/id1234567890?pt=118123&amp;ct=summer&amp;mt=8""#
                    ),
                    "\(landing)"
                )
                #expect(landing.contains("affiliate-data=ct=summer&amp;pt=118123"))
                let bad = #"{"code":"bad","route":"/post/1","campaign":"\#(String(repeating: "x", count: 31))"}"#
                let refused = try await api.post("/v1/links", bad, headers: SmartLinkTests.admin)
                #expect(refused.status == .unprocessableContent || refused.status == .badRequest, "\(refused.text)")
                #expect(refused.text.contains("campaign: at most 30"))
            }
        }
    }

    @Test func campaignTokensAreWhatAppStoreConnectTakes() {
        #expect(AppConfiguration.campaignToken("summer") == "summer")
        #expect(AppConfiguration.campaignToken(" spring sale ") == "spring sale")
        #expect(AppConfiguration.campaignToken("été") == "-t-")
        #expect(AppConfiguration.campaignToken(String(repeating: "a", count: 40))?.count == 30)
        #expect(AppConfiguration.campaignToken("   ") == nil)
    }
}
