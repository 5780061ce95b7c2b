@testable import DeepLinksServer
import DeepLinksTestSupport
import Foundation
import HTTPTypes
import SQLKit
import Testing

/// specs/reset-security.md §4.5 (confirm and password policy) and §4.6 (after success).
@Suite struct ResetConfirmTests {
    static let email = ResetTokenTests.email
    static let password = ResetTokenTests.password

    @Test func C1_lengthsFollowNIST() async throws {
        var policy = PasswordPolicy()
        #expect(policy.problems("seven c", email: nil).contains(.tooShort))
        #expect(policy.problems("fourteen chars", email: nil).contains(.tooShort))
        #expect(policy.problems("fifteen chars!!", email: nil).isEmpty)
        #expect(
            policy.problems(String(repeating: "é", count: 15), email: nil) == [.repetitive],
            "code points, not bytes"
        )
        #expect(policy.problems("ﬁﬁﬁ wide ﬁnch quill", email: nil).isEmpty, "NFKC before counting")
        policy.minimumLength = 8
        #expect(policy.problems("eight ch", email: nil).isEmpty)
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                let token = try await api.resetToken(for: Self.email)
                let passphrase = String(repeating: "lantern river pebble orchard ", count: 5).prefix(128)
                #expect(passphrase.count == 128)
                #expect(try await api.confirm(token, String(passphrase)).status == .noContent)
                #expect(try await api.signIn(Self.email, String(passphrase)) != nil)
                #expect(
                    try await api.signIn(Self.email, String(passphrase.prefix(72))) == nil,
                    "no truncation (bcrypt would stop at 72 bytes)"
                )
                #expect(try await api.signIn(Self.email, String(passphrase.prefix(127))) == nil)
            }
        }
    }

    @Test func C2_anOversizedPasswordIsRefusedBeforeHashing() async throws {
        try await ResetWorld.with(.sqlite) { world in
            // A hasher that cannot run: scrypt refuses 2^30 rounds. Reaching it would answer 500.
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
            }
            try await world.serve({ $0.passwordReset.hasher = PasswordHasher(logN: 30) }) { api in
                let token = try await api.resetToken(for: Self.email)
                let oversized = try await api.confirm(token, String(repeating: "a", count: 2000))
                #expect(oversized.status == .unprocessableContent)
                #expect(oversized.text == #"{"error":"weak_password","reasons":["too_long"]}"#)
                let megabyte = try await api.post(
                    "/v1/password-resets/confirm",
                    "{\"token\":\"\(token)\",\"password\":\"\(String(repeating: "a", count: 1 << 20))\"}"
                )
                #expect(megabyte.status == .contentTooLarge)
                #expect(try await api.verify(token).status == .ok)
            }
        }
    }

    @Test func C3_commonPasswordsAndContextWordsAreRefusedWithAReason() async throws {
        var policy = PasswordPolicy()
        policy.contextWords = ["Demo"]
        #expect(policy.problems("password12345678", email: nil).contains(.common))
        #expect(policy.problems("Password!!!!!!!!2024", email: nil).contains(.common))
        #expect(policy.problems("passwordpasswordpassword", email: nil).contains(.common))
        #expect(policy.problems("123456789012345", email: nil).contains(.repetitive))
        #expect(
            policy.problems("ada.lovelace rules the engine", email: "ada.lovelace@example.com").contains(.containsEmail)
        )
        #expect(policy.problems("my demo account password is long", email: nil).contains(.containsContextWord))
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                let token = try await api.resetToken(for: Self.email)
                let response = try await api.confirm(token, "qwertyuiop123456789")
                #expect(response.status == .unprocessableContent)
                #expect((response.object["reasons"] as? [String])?.contains("common") == true)
                let own = try await api.confirm(token, "ada is my name and password")
                #expect((own.object["reasons"] as? [String])?.contains("contains_email") == true)
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func C4_refusalsAndMalformedInputDoNotConsumeTheToken(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                let token = try await api.resetToken(for: Self.email)
                #expect(try await api.confirm(token, "short").status == .unprocessableContent)
                #expect(try await api.confirm(token, "password12345678").status == .unprocessableContent)
                #expect(
                    try await api.post("/v1/password-resets/confirm", #"{"token":"\#(token)"}"#).status == .badRequest
                )
                #expect(
                    try await api.post("/v1/password-resets/confirm", #"{"token":"\#(token)","password":7}"#).status
                        == .badRequest
                )
                #expect(try await api.confirm(token, "now a good long passphrase").status == .noContent)
            }
        }
    }

    @Test func C6_strictJSONSchema() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                let token = try await api.resetToken(for: Self.email)
                let payloads = [
                    #"{"token":{"$ne":""},"password":"a long enough passphrase"}"#,
                    #"{"token":["\#(token)"],"password":"a long enough passphrase"}"#,
                    #"{"token":"\#(token)","password":{"toString":"x"}}"#,
                    #"{"token":"\#(token)","password":true}"#,
                    #"{"token":"\#(token)","token":"x","password":"a long enough passphrase"}"#,
                    #"{"token":"\#(token)","password":"a long enough passphrase","email":["ada@example.com"]}"#,
                ]
                for payload in payloads {
                    #expect(
                        try await api.post("/v1/password-resets/confirm", payload).status == .badRequest,
                        "\(payload)"
                    )
                }
                let form = try await api.post(
                    "/v1/password-resets/confirm",
                    "token=\(token)&password=x",
                    headers: [.contentType: "application/x-www-form-urlencoded"]
                )
                #expect(form.status == .unsupportedMediaType)
                let unknownField = try await api.post(
                    "/v1/password-resets/confirm",
                    #"{"token":"\#(token)","password":"unknown fields are ignored","admin":true}"#
                )
                #expect(unknownField.status == .noContent)
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func S1_S2_S3_successRevokesEverySessionAndSecretAndSendsOneNotice(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve({ $0.passwordReset.mailPerWindow = 10 }) { api in
                try await api.signUp(Self.email, Self.password)
                let deviceA = try #require(try await api.signIn(Self.email, Self.password))
                let deviceB = try #require(try await api.signIn(Self.email, Self.password))
                _ = try await api.resetToken(for: Self.email)
                let token = try await api.resetToken(for: Self.email)
                let confirmed = try await api.confirm(token, "a brand new long passphrase")
                #expect(confirmed.status == .noContent)
                #expect(
                    confirmed.headers[.setCookie] == nil && confirmed.body.readableBytes == 0,
                    "no session for the reset client"
                )
                #expect(try await api.me(deviceA) == .unauthorized)
                #expect(try await api.me(deviceB) == .unauthorized)
                #expect(try await api.signIn(Self.email, Self.password) == nil)
                #expect(try await api.signIn(Self.email, "a brand new long passphrase") != nil)
                let secrets = try await world.sql("SELECT COUNT(*) AS n FROM password_resets").first?.decode(
                    column: "n",
                    as: Int.self
                )
                #expect(secrets == 0)
                let messages = try await world.mail.waitFor(3)
                try await Task.sleep(for: .milliseconds(500))
                let notices = await world.mail.messages.filter { $0.subject == "Your Demo password was changed" }
                #expect(notices.count == 1)
                #expect(messages.count == 3)
                let notice = try #require(notices.first)
                #expect(notice.to == Self.email)
                #expect(notice.text.contains("Wasn't you?"))
                #expect(!notice.text.contains(token) && !notice.text.contains("a brand new long passphrase"))
            }
        }
    }

    @Test func S4_auditEventsRecordTheJourneyWithoutSecrets() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                let token = try await api.resetToken(for: Self.email)
                _ = try await api.verify(token)
                _ = try await api.verify(String(repeating: "z", count: 43))
                #expect(try await api.confirm(token, "audited long passphrase").status == .noContent)
                let rows = try await world.sql(
                    "SELECT event, account_id, ip_hash, user_agent, at FROM audit_events ORDER BY id"
                )
                let events = try rows.map { try $0.decode(column: "event", as: String.self) }
                for event in [
                    "reset.received", "reset.requested", "reset.checked", "reset.failed", "reset.confirming",
                    "reset.succeeded",
                ] {
                    #expect(events.contains(event), "missing \(event) in \(events)")
                }
                let succeeded = try #require(rows.last)
                #expect(try succeeded.decode(column: "account_id", as: Int?.self) != nil)
                let ipHash = try #require(try succeeded.decode(column: "ip_hash", as: String?.self))
                #expect(ipHash.count == 24 && !ipHash.contains("127.0.0.1"))
            }
        }
    }
}
