@testable import DeepLinksServer
import DeepLinksTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import SQLKit
import Testing

/// specs/reset-security.md §4.2: the request endpoint (enumeration, abuse).
@Suite struct ResetRequestTests {
    static let email = ResetTokenTests.email
    static let password = ResetTokenTests.password

    /// Status, headers without Date, and body: what must not differ between accounts.
    static func fingerprint(_ response: TestResponse) -> String {
        var headers = response.headers
        headers[.date] = nil
        return
            "\(response.status.code) \(headers.sorted { $0.name.canonicalName < $1.name.canonicalName }.map { "\($0.name.canonicalName)=\($0.value)" }) \(response.text)"
    }

    @Test(arguments: TestDatabase.allCases)
    func R1_theAnswerIsByteIdenticalForEveryKindOfAccount(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                try await api.signUp("disabled@example.com", Self.password)
                try await world.disable("disabled@example.com")
                // Unverified and SSO-only accounts do not exist in this server: every account has a password.
                let answers = try await [Self.email, "nobody@example.com", "disabled@example.com", "ADA@EXAMPLE.COM"]
                    .asyncMap {
                        Self.fingerprint(try await api.requestReset($0))
                    }
                #expect(Set(answers).count == 1, "\(answers)")
                #expect(answers[0].hasPrefix("202 "))
                #expect(answers[0].hasSuffix(#"{"status":"accepted"}"#))
                let messages = try await world.mail.waitFor(2)
                #expect(
                    messages.allSatisfy { $0.to == Self.email },
                    "only the active account gets mail, at its stored address"
                )
            }
        }
    }

    @Test func R2_timingDoesNotDependOnTheAccountExisting() async throws {
        try await ResetWorld.with(.sqlite, mailDelay: .milliseconds(500)) { world in
            try await world.serve({
                $0.passwordReset.requestFloorMilliseconds = 100
                $0.passwordReset.mailPerWindow = 1000
                $0.passwordReset.mailPerDay = 1000
            }) { api in
                try await api.signUp(Self.email, Self.password)
                var known: [Double] = []
                var unknown: [Double] = []
                for index in 0..<100 {
                    for (isKnown, address) in [(true, Self.email), (false, "nobody\(index)@example.com")] {
                        let start = ContinuousClock.now
                        #expect(try await api.requestReset(address).status == .accepted)
                        let elapsed = (ContinuousClock.now - start) / .milliseconds(1)
                        if isKnown { known.append(elapsed) } else { unknown.append(elapsed) }
                    }
                }
                func percentile(_ values: [Double], _ p: Double) -> Double {
                    values.sorted()[Int(Double(values.count - 1) * p)]
                }
                let medianDelta = abs(percentile(known, 0.5) - percentile(unknown, 0.5))
                let p90Delta = abs(percentile(known, 0.9) - percentile(unknown, 0.9))
                print(
                    String(
                        format:
                            "R2 over 100 interleaved requests each, mailer 500 ms: known median %.2f ms p90 %.2f ms; unknown median %.2f ms p90 %.2f ms; delta median %.2f ms, p90 %.2f ms",
                        percentile(known, 0.5),
                        percentile(known, 0.9),
                        percentile(unknown, 0.5),
                        percentile(unknown, 0.9),
                        medianDelta,
                        p90Delta
                    )
                )
                #expect(medianDelta < 20)
                #expect(p90Delta < 50)
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func R3_R4_throttlesAreSilentAndKeyedByTheSubmittedAddress(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                var answers = Set<String>()
                for index in 0..<50 {
                    answers.insert(
                        Self.fingerprint(
                            try await api.requestReset(index.isMultiple(of: 2) ? Self.email : "Ada@Example.com")
                        )
                    )
                    answers.insert(Self.fingerprint(try await api.requestReset("nobody@example.com")))
                }
                #expect(answers.count == 1, "repeats within the cooldown answer the same, known or not")
                _ = try await world.mail.waitFor(3)
                try await Task.sleep(for: .seconds(1.5))
                #expect(await world.mail.messages.count == 3, "at most 3 mails per address per 15 minutes")
                world.clock.advance(seconds: 15 * 60 + 1)
                _ = try await api.resetToken(for: Self.email)
                #expect(await world.mail.messages.count == 4)
            }
        }
    }

    @Test func R4_theDailyCapHolds() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                for _ in 0..<6 {
                    for _ in 0..<3 { try await api.requestReset(Self.email) }
                    try await Task.sleep(for: .milliseconds(300))
                    world.clock.advance(seconds: 16 * 60)
                }
                try await Task.sleep(for: .seconds(1.5))
                // Ten links issued; a link superseded before its message went out is not sent at all.
                let mailed = try await world.sql(
                    "SELECT COUNT(*) AS n FROM reset_requests WHERE mailed = \(bind: true)"
                )
                #expect(
                    try mailed.first?.decode(column: "n", as: Int.self) == 10,
                    "at most 10 links per address per day"
                )
                #expect((1...10).contains(await world.mail.messages.count))
            }
        }
    }

    /// The budget is for the server's own sign-ups: external accounts are the backend's, never new here.
    @Test func R5_theGlobalMailBudgetHolds() async throws {
        try await ResetWorld.with(.sqlite, external: false) { world in
            try await world.serve({ $0.passwordReset.mailBudgetPerHour = 2 }) { api in
                for index in 0..<4 { try await api.signUp("person\(index)@example.com", Self.password) }
                var answers = Set<String>()
                for index in 0..<4 {
                    answers.insert(Self.fingerprint(try await api.requestReset("person\(index)@example.com")))
                }
                #expect(answers.count == 1)
                _ = try await world.mail.waitFor(2)
                try await Task.sleep(for: .seconds(1.5))
                #expect(await world.mail.messages.count == 2, "the server sends at most its hourly budget")
                world.clock.advance(seconds: 3601)
                _ = try await api.resetToken(for: "person3@example.com")
            }
        }
    }

    @Test func R5_perIPBucketsAndTrustedProxies() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve({
                $0.passwordReset.requestBurst = 20; $0.passwordReset.requestsPerMinute = 10
            }) { api in
                var limited = 0
                for index in 0..<1000 {
                    // A spoofed X-Forwarded-For from a peer that is not a trusted proxy changes nothing.
                    let response = try await api.requestReset(
                        "flood\(index)@example.com",
                        headers: [
                            .contentType: "application/json", TrustedProxies.forwardedFor: "203.0.113.\(index % 250)",
                        ]
                    )
                    if response.status == .tooManyRequests {
                        limited += 1
                        #expect(Int(response.headers[.retryAfter] ?? "") ?? 0 >= 1)
                    }
                }
                #expect(limited >= 980, "\(limited) of 1000 limited")
            }
            try await world.serve({
                $0.passwordReset.requestBurst = 2; $0.trustedProxies = try! TrustedProxies(["127.0.0.1", "::1"])
            }) { api in
                // Behind a trusted proxy, each client has its own bucket.
                for client in ["198.51.100.1", "198.51.100.2"] {
                    let headers: HTTPFields = [
                        .contentType: "application/json", TrustedProxies.forwardedFor: "10.9.9.9, \(client)",
                    ]
                    var statuses: [HTTPResponse.Status] = []
                    for _ in 0..<3 {
                        statuses.append(try await api.requestReset("a@example.com", headers: headers).status)
                    }
                    #expect(statuses == [.accepted, .accepted, .tooManyRequests], "\(client)")
                }
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func R6_confusableAddressesNeverMatchAndMailGoesToTheStoredAddress(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve { api in
                try await api.signUp("user@github.com", Self.password)
                for lookalike in ["user@gıthub.com", "user@githսb.com", "user@github.com\u{200B}", "usеr@github.com"] {
                    try await api.requestReset(lookalike)
                }
                try await Task.sleep(for: .seconds(1.5))
                #expect(await world.mail.messages.isEmpty)
                _ = try await api.resetToken(for: "USER@GitHub.COM")
                #expect(await world.mail.messages.map(\.to) == ["user@github.com"])
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func R7_requestsNeverChangeTheAccount(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                let session = try #require(try await api.signIn(Self.email, Self.password))
                for _ in 0..<100 { try await api.requestReset(Self.email) }
                #expect(try await api.signIn(Self.email, Self.password) != nil)
                #expect(try await api.me(session) == .ok)
            }
        }
    }

    @Test func R8_strictInputParsing() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                let bodies = [
                    #"{"email":["ada@example.com","eve@example.com"]}"#,
                    #"{"email":"ada@example.com","email":"eve@example.com"}"#,
                    #"{"email":"ada@example.com\r\nBcc: eve@example.com"}"#,
                    #"{"email":"ada@example.com\u0000eve@example.com"}"#,
                    #"{"email":"ada@example.com, eve@example.com"}"#,
                    #"{"email":{"$ne":""}}"#,
                    #"{"email":42}"#,
                    #"{"email":null}"#,
                    #"["ada@example.com"]"#,
                    #"{"email":"ada@example.com",}"#,
                    "{\"email\":\"\(String(repeating: "a", count: 250))@example.com\"}",
                    "not json",
                ]
                for body in bodies {
                    let response = try await api.post("/v1/password-resets", body)
                    #expect(response.status == .badRequest, "\(body)")
                    #expect(response.object["error"] as? String == "malformed_request")
                }
                let form = try await api.post(
                    "/v1/password-resets",
                    "email=ada@example.com",
                    headers: [.contentType: "application/x-www-form-urlencoded"]
                )
                #expect(form.status == .unsupportedMediaType)
                let huge = try await api.post(
                    "/v1/password-resets",
                    "{\"email\":\"\(String(repeating: "a", count: 100_000))\"}"
                )
                #expect(huge.status == .contentTooLarge)
                try await Task.sleep(for: .seconds(1.5))
                #expect(await world.mail.messages.isEmpty)
            }
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}

/// Sign-up answers a taken address as it answers a new one (R1 for sign-up): the owner hears of it by mail.
@Suite struct SignUpSamenessTests {
    @Test(arguments: TestDatabase.allCases)
    func aTakenAddressGetsTheSameAnswerAndItsOwnerAMail(_ kind: TestDatabase) async throws {
        // The server's own sign-up: external accounts have none.
        try await ResetWorld.with(kind, external: false) { world in
            try await world.serve { api in
                let password = ResetTokenTests.password
                let new = try await api.post(
                    "/v1/accounts",
                    ResetClient.json(["email": "first@example.com", "password": password])
                )
                let taken = try await api.post(
                    "/v1/accounts",
                    ResetClient.json(["email": "first@example.com", "password": "another fine passphrase"])
                )
                #expect(new.status == .created && taken.status == .created)
                #expect(new.text == taken.text, "byte-identical bodies")
                #expect(
                    new.headers.filter { $0.name != .date }.map(\.description)
                        == taken.headers.filter { $0.name != .date }.map(\.description)
                )
                let notice = try #require(try await world.mail.waitFor(1).first)
                #expect(notice.to == "first@example.com")
                #expect(notice.subject == "Someone tried to create a Demo account with your address")
                #expect(notice.text.contains("https://links.example.com/reset-password"))
                // The password of the attempt changed nothing; a second attempt the same day sends no second mail.
                #expect(try await api.signIn("first@example.com", password) != nil)
                #expect(try await api.signIn("first@example.com", "another fine passphrase") == nil)
                _ = try await api.post(
                    "/v1/accounts",
                    ResetClient.json(["email": "first@example.com", "password": "a third fine passphrase"])
                )
                try await Task.sleep(for: .milliseconds(300))
                #expect(await world.mail.messages.count == 1)
            }
        }
    }
}
