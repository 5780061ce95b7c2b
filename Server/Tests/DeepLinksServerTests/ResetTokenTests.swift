@testable import DeepLinksServer
@testable import DeepLinksSupport
import DeepLinksSecrets
import DeepLinksTestSupport
import Foundation
import SQLKit
import Testing

/// specs/reset-security.md §4.1: the token.
@Suite struct ResetTokenTests {
    static let email = "ada@example.com"
    static let password = "violet tangerine submarine orbit"
    static let newPassword = "quiet lantern over maple ridge"

    @Test func T1_tokensAre256BitURLSafeAndUnique() async throws {
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let token = SecretToken.generate()
            #expect(token.range(of: #"^[A-Za-z0-9_-]{43,}$"#, options: .regularExpression) != nil)
            #expect((Base64URL.decode(token)?.count ?? 0) >= 32)
            seen.insert(token)
        }
        #expect(seen.count == 10_000)
        // The token in a real message has the same shape and embeds neither the account nor a time.
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                let token = try await api.resetToken(for: Self.email)
                #expect(token.range(of: #"^[A-Za-z0-9_-]{43,}$"#, options: .regularExpression) != nil)
                #expect(!token.contains("ada"))
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func T2_onlyAKeyedHashIsStoredAndKeysRotate(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            let token = try await world.serveReturning { api in
                try await api.signUp(Self.email, Self.password)
                let token = try await api.resetToken(for: Self.email)
                let stored = try #require(
                    try await world.sql("SELECT token_hash FROM password_resets").first?.decode(
                        column: "token_hash",
                        as: String.self
                    )
                )
                #expect(stored != token)
                #expect(!stored.contains(token))
                // The stored value, whole or without its version prefix, is not a link.
                #expect(try await api.verify(stored).status == .badRequest)
                #expect(try await api.verify(String(stored.split(separator: "$").last!)).status == .badRequest)
                // Nor is the queued message: it is sealed, and erased once sent.
                let outbox = try await world.sql("SELECT sealed_message FROM mail_outbox")
                #expect(
                    try outbox.allSatisfy { try !$0.decode(column: "sealed_message", as: String.self).contains(token) }
                )
                return token
            }
            // A second key, newer: links in flight still work, new ones use the new key.
            let rotated = try SecretKeys(
                parsing:
                    "2:\(Data(repeating: 7, count: 32).base64EncodedString()),1:\(world.keys.serialized.split(separator: ":")[1])"
            )
            try await world.serve({ $0.secretKeys = rotated }) { api in
                #expect(try await api.verify(token).status == .ok)
                _ = try await api.resetToken(for: Self.email)
                let version = try await world.sql("SELECT key_version FROM password_resets").first?.decode(
                    column: "key_version",
                    as: Int.self
                )
                #expect(version == 2)
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func T3_aTokenDiesOnPasswordChangeEmailChangeDisableAndDelete(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                // A password change by another path (signed in, with the current password).
                var token = try await api.resetToken(for: Self.email)
                let session = try #require(try await api.signIn(Self.email, Self.password))
                let change = try await api.changePassword(
                    session: session,
                    current: Self.password,
                    new: Self.newPassword
                )
                #expect(change == .noContent)
                #expect(try await api.verify(token).status == .badRequest)
                #expect(try await api.confirm(token, "another fresh passphrase here").status == .badRequest)

                // An email change (made here as an administrator would, in the database).
                token = try await api.resetToken(for: Self.email)
                _ = try await world.sql(
                    "UPDATE accounts SET email = 'ada.new@example.com' WHERE email = 'ada@example.com'"
                )
                #expect(try await api.verify(token).status == .badRequest)
                _ = try await world.sql(
                    "UPDATE accounts SET email = 'ada@example.com' WHERE email = 'ada.new@example.com'"
                )
                #expect(try await api.verify(token).status == .ok, "the binding is to the address, and it is back")

                // A disabled account.
                _ = try await world.sql("UPDATE accounts SET disabled = \(bind: true)")
                #expect(try await api.verify(token).status == .badRequest)
                _ = try await world.sql("UPDATE accounts SET disabled = \(bind: false)")

                // A deleted account.
                _ = try await world.sql("DELETE FROM accounts")
                #expect(try await api.verify(token).status == .badRequest)
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func T4_theLifetimeIsThirtyMinutesToTheSecond(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                let token = try await api.resetToken(for: Self.email)
                world.clock.advance(seconds: 30 * 60 - 1)
                #expect(try await api.verify(token).status == .ok)
                world.clock.advance(seconds: 2)
                #expect(try await api.verify(token).status == .badRequest)
                #expect(try await api.confirm(token, Self.newPassword).status == .badRequest)
            }
        }
        var settings = PasswordResetSettings()
        settings.tokenLifetimeSeconds = 4 * 60
        #expect(throws: ConfigurationError.self) { try settings.validated() }
        settings.tokenLifetimeSeconds = 121 * 60
        #expect(throws: ConfigurationError.self) { try settings.validated() }
    }

    @Test(arguments: TestDatabase.allCases)
    func T5_aNewRequestSupersedesTheOldTokenEvenConcurrently(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve({
                $0.passwordReset.mailPerWindow = 100; $0.passwordReset.mailPerDay = 100
            }) { api in
                try await api.signUp(Self.email, Self.password)
                let first = try await api.resetToken(for: Self.email)
                let second = try await api.resetToken(for: Self.email)
                #expect(try await api.verify(first).status == .badRequest)
                #expect(try await api.verify(second).status == .ok)

                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<8 { group.addTask { try await api.requestReset(Self.email) } }
                    try await group.waitForAll()
                }
                // Wait until the outbox is empty: a message whose link was superseded before it went out is dropped.
                let deadline = ContinuousClock.now + .seconds(10)
                while try await world.sql(
                    """
                    SELECT id FROM mail_outbox WHERE sent_at IS NULL AND next_attempt_at < \(bind: Int64.max)
                    UNION ALL SELECT id FROM reset_requests WHERE processed = \(bind: false)
                    """
                ).count > 0, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                let messages = await world.mail.resetMessages
                #expect((3...10).contains(messages.count))
                let live = try await world.sql("SELECT COUNT(*) AS n FROM password_resets").first?.decode(
                    column: "n",
                    as: Int.self
                )
                #expect(live == 1)
                var valid = 0
                for message in messages {
                    if try await api.verify(try #require(ResetClient.token(in: message.text))).status == .ok {
                        valid += 1
                    }
                }
                #expect(valid == 1, "exactly one link of the \(messages.count) sent is live")
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func T6_concurrentConfirmsHaveOneWinner(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                let token = try await api.resetToken(for: Self.email)
                let passwords = (0..<32).map { "winner number \($0) takes the account" }
                let statuses = try await withThrowingTaskGroup(of: (String, Int).self) { group in
                    for password in passwords {
                        group.addTask { (password, Int(try await api.confirm(token, password).status.code)) }
                    }
                    return try await group.reduce(into: [(String, Int)]()) { $0.append($1) }
                }
                let winners = statuses.filter { $0.1 == 204 }
                #expect(winners.count == 1)
                #expect(statuses.filter { $0.1 == 400 }.count == 31)
                let winner = try #require(winners.first?.0)
                #expect(try await api.signIn(Self.email, winner) != nil, "the stored hash is the winner's")
                for loser in passwords.filter({ $0 != winner }).prefix(3) {
                    #expect(try await api.signIn(Self.email, loser) == nil)
                }
                let messages = try await world.mail.waitFor(2)
                try await Task.sleep(for: .milliseconds(300))
                #expect(messages.filter { $0.subject.contains("was changed") }.count == 1)
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func T7_failedAttemptsKillTheTokenAndSurviveRestarts(_ kind: TestDatabase) async throws {
        // Failures count against a token when they present it (with an address that is not its own); random
        // tokens sent with a victim's address are slowed per address instead (ProductionTests).
        try await ResetWorld.with(kind) { world in
            let token = try await world.serveReturning { api in
                try await api.signUp(Self.email, Self.password)
                let token = try await api.resetToken(for: Self.email)
                for _ in 0..<3 {
                    #expect(
                        try await api.verify(token, email: "someone.else\(UUID().uuidString.prefix(4))@example.com")
                            .status == .badRequest
                    )
                }
                #expect(try await api.verify(token).status == .ok)
                return token
            }
            // A restart keeps the count: two more failures reach the cap of five.
            try await world.serve { api in
                let fourth = try await api.confirm(token, Self.newPassword, email: "mallory@example.com")
                let fifth = try await api.verify(token, email: "eve@example.com")
                #expect([fourth.status, fifth.status] == [.badRequest, .badRequest])
                #expect(
                    try await api.verify(token).status == .badRequest,
                    "the sixth attempt fails even with the right token"
                )
                #expect(try await api.confirm(token, Self.newPassword).status == .badRequest)
                #expect(try await api.signIn(Self.email, Self.password) != nil)
            }
        }
    }

    @Test func T7_confirmsArePerIPLimited() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve({ $0.passwordReset.confirmBurst = 5 }) { api in
                var statuses: [Int] = []
                for _ in 0..<8 {
                    statuses.append(Int(try await api.verify(String(repeating: "B", count: 43)).status.code))
                }
                #expect(statuses.prefix(5).allSatisfy { $0 == 400 })
                #expect(statuses.suffix(3).allSatisfy { $0 == 429 })
            }
        }
    }

    @Test func T8_wrongTokensAreRejectedInTimeIndependentOfWhereTheyDiffer() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                let token = try await api.resetToken(for: Self.email)
                var chars = Array(token)
                chars[0] = chars[0] == "A" ? "B" : "A"
                let firstDiffers = String(chars)
                chars = Array(token)
                chars[chars.count - 1] = chars[chars.count - 1] == "A" ? "B" : "A"
                let lastDiffers = String(chars)
                // Paired, interleaved samples: the load of the machine (other tests run beside) cancels out.
                var differences: [Double] = []
                var medians: [String: [Double]] = [:]
                for _ in 0..<100 {
                    var pair: [Double] = []
                    for (name, variant) in [("first", firstDiffers), ("last", lastDiffers)] {
                        let start = ContinuousClock.now
                        #expect(
                            try await api.post("/v1/password-resets/verify", ResetClient.json(["token": variant]))
                                .status == .badRequest
                        )
                        pair.append((ContinuousClock.now - start) / .milliseconds(1))
                        medians[name, default: []].append(pair.last!)
                    }
                    differences.append(pair[0] - pair[1])
                }
                let delta = abs(differences.sorted()[differences.count / 2])
                let first = medians["first"]!.sorted()[50], last = medians["last"]!.sorted()[50]
                print(
                    "T8 wrong-token verify over 100 pairs: median first-byte-differs \(first) ms, last-byte-differs \(last) ms, median paired delta \(delta) ms"
                )
                #expect(delta < 5)
                #expect(try await api.verify(token).status == .ok)
            }
        }
    }
}
