@testable import DeepLinksServer
import DeepLinksTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// ``WriteCeiling``: what clients without a key write is bounded in total, not only per network. Many networks
/// (each within its own throttle) reach the ceiling together; past it every kind answers 503 `capacity_reached`
/// with `Retry-After`, writes no row, and is counted; on both databases (the bucket is shared by replicas).
@Suite struct WriteCeilingTests {
    static func configure(_ settings: inout ServerSettings) {
        SmartLinkTests.configure(&settings)
        settings.trustedProxies = try! TrustedProxies(["127.0.0.1", "::1"])
        settings.anonymousWritesPerHour = 60
        settings.passwordReset.requestFloorMilliseconds = 0
    }

    static func from(_ network: Int, _ fields: HTTPFields = [.contentType: "application/json"]) -> HTTPFields {
        var fields = fields
        fields[HTTPField.Name("X-Forwarded-For")!] = "198.51.100.\(network)"
        return fields
    }

    @Test(arguments: TestDatabase.allCases)
    func manyNetworksTogetherReachTheCeilingOfEachKind(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind, external: false) { world in
            try await world.serve(Self.configure) { api in
                func count(_ table: String) async throws -> Int {
                    try await world.sql("SELECT COUNT(*) AS n FROM \(unsafeRaw: table)").first?.decode(
                        column: "n",
                        as: Int.self
                    ) ?? -1
                }
                // Reset requests: 4 networks × 20 (each network's burst), 80 in all against a ceiling of 60.
                var statuses: [HTTPResponse.Status] = []
                var refusal: TestResponse?
                for index in 0..<80 {
                    let answer = try await api.post(
                        "/v1/password-resets",
                        #"{"email":"nobody\#(index)@example.com"}"#,
                        headers: Self.from(index % 4)
                    )
                    statuses.append(answer.status)
                    if answer.status == .serviceUnavailable { refusal = answer }
                }
                #expect(statuses.filter { $0 == .accepted }.count == 60, "\(statuses)")
                #expect(statuses.filter { $0 == .serviceUnavailable }.count == 20)
                #expect(refusal?.object["error"] as? String == "capacity_reached")
                #expect(Int(refusal?.headers[.retryAfter] ?? "") ?? 0 >= 1)
                #expect(try await count("reset_requests") == 60, "a refused request writes nothing")

                // Sign-ups: 7 networks × 10.
                var created = 0
                var refused = 0
                for index in 0..<70 {
                    let answer = try await api.post(
                        "/v1/accounts",
                        ResetClient.json(["email": "new\(index)@example.com", "password": ResetTokenTests.password]),
                        headers: Self.from(10 + index % 7)
                    )
                    if answer.status == .created { created += 1 }
                    if answer.status == .serviceUnavailable { refused += 1 }
                }
                #expect(created == 60 && refused == 10, "\(created) created, \(refused) refused")
                #expect(try await count("accounts") == 60)

                // Deferred links: 4 addresses × 20.
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                var issued = 0
                for index in 0..<80 {
                    let answer = try await api.post(
                        "/v1/links/summer/deferred",
                        "{}",
                        headers: Self.from(20 + index % 4)
                    )
                    if answer.status == .created { issued += 1 }
                }
                #expect(issued == 60)
                #expect(try await count("deferred_links") == 60)

                let metrics = try await api.get("/metrics").text
                for (name, refused) in [("reset-request", 20), ("sign-up", 10), ("deferred-link", 20)] {
                    #expect(
                        metrics.contains(#"deeplinks_anonymous_writes_refused_total{kind="\#(name)"} \#(refused)"#),
                        "\(name)"
                    )
                }
            }
        }
    }
}
