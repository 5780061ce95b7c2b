import DeepLinksServer
@testable import DeepLinksSupport
import DeepLinksTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// External accounts: the team's backend keeps its users and passwords; the server carries the link. Each
/// path in (the backend asks, the user asks) and each way to confirm (the password hook, consume), and the
/// faults: a hook down, slow or refusing, a lookup that fails then succeeds.
@Suite struct ExternalAccountsTests {
    static let email = "grace@example.com"
    static let password = "the team's own old passphrase"
    static let newPassword = "a brand new long passphrase"
    static let admin: HTTPFields = [.contentType: "application/json", .authorization: "Bearer \(ResetWorld.adminKey)"]

    @Test(arguments: TestDatabase.allCases)
    func theBackendAsksForALinkMailedOrReturned(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind, external: true) { world in
            try await world.serve { api in
                let subject = try #require(world.backend).addUser(email: Self.email, password: Self.password)
                let body = ResetClient.json(["subject": subject, "email": "Grace@Example.com"])
                #expect(try await api.post("/v1/reset-links", body).status == .unauthorized)
                let mailed = try await api.post("/v1/reset-links", body, headers: Self.admin)
                #expect(mailed.status == .created, "\(mailed.text)")
                #expect(mailed.object["delivery"] as? String == "mail" && mailed.object["link"] == nil)
                #expect(mailed.object["expiresAt"] is String)
                let message = try #require(try await world.mail.waitFor(1).first)
                #expect(message.to == "Grace@Example.com", "the address as the backend gave it")
                let first = try #require(ResetClient.token(in: message.text))
                #expect(try await api.verify(first).status == .ok)

                let returned = try await api.post(
                    "/v1/reset-links",
                    ResetClient.json(["subject": subject, "email": Self.email, "deliver": "return", "locale": "en-GB"]),
                    headers: Self.admin
                )
                #expect(returned.status == .created)
                let link = try #require(returned.object["link"] as? String)
                #expect(link.hasPrefix("https://links.example.com/reset-password#token="))
                let second = try #require(ResetClient.token(in: link))
                try await Task.sleep(for: .milliseconds(300))
                #expect(await world.mail.messages.count == 1, "a returned link is not mailed")
                #expect(try await api.verify(first).status == .badRequest, "the new link supersedes the old")
                #expect(try await api.confirm(second, Self.newPassword).status == .noContent)
                #expect(world.backend?.signIn(email: Self.email, password: Self.newPassword) != nil)

                for (payload, reason) in [
                    (#"{"subject":"","email":"grace@example.com"}"#, "an empty subject"),
                    (#"{"subject":"u1","email":"not an address"}"#, "a malformed address"),
                    (#"{"subject":"u1","email":"grace@example.com","deliver":"fax"}"#, "an unknown delivery"),
                    (#"{"subject":"u1","email":"grace@example.com","locale":"<b>"}"#, "a malformed locale"),
                    (#"{"subject":1,"email":"grace@example.com"}"#, "a number for a subject"),
                ] {
                    #expect(
                        try await api.post("/v1/reset-links", payload, headers: Self.admin).status == .badRequest,
                        "\(reason)"
                    )
                }
            }
        }
    }

    @Test func theBackendsEndpointsNeedTheAdminKeyAndOurAccountsAreOff() async throws {
        try await ResetWorld.with(.sqlite, external: true) { world in
            try await world.serve({ $0.smartLinks.adminKeyDigest = [] }) { api in
                for path in ["/v1/accounts", "/v1/sessions"] {
                    let answer = try await api.post(path, #"{"email":"a@example.com","password":"long enough here"}"#)
                    #expect(answer.status == .notFound && answer.object["error"] as? String == "accounts_are_external")
                }
                let answer = try await api.post(
                    "/v1/reset-links",
                    #"{"subject":"u1","email":"a@example.com"}"#,
                    headers: Self.admin
                )
                #expect(answer.status == .unauthorized)
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func aLookupThatFailsIsRetriedAndMailsOnce(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind, external: true) { world in
            let backend = try #require(world.backend)
            try await world.serve { api in
                backend.addUser(email: Self.email, password: Self.password)
                backend.state.withLock { $0.failingLookups = 2 }
                #expect(try await api.requestReset(Self.email).status == .accepted, "the asker never sees the failure")
                // Waited for, not slept for (a loaded machine runs the jobs late): the backend's count of lookups,
                // then the server's record of the failed attempt (the clock must not move before its retry time
                // is written, or the retry is due later than the test moves it).
                func lookups(_ count: Int) async throws -> Bool {
                    for _ in 0..<500 {
                        let recorded =
                            try await world.sql("SELECT MAX(lookup_attempts) AS n FROM reset_requests")
                            .first?.decode(column: "n", as: Int?.self) ?? 0
                        if backend.state.withLock({ $0.lookups }) >= count, recorded >= count { break }
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    return backend.state.withLock { $0.lookups } == count
                }
                #expect(try await lookups(1))
                #expect(await world.mail.messages.isEmpty)
                world.clock.advance(seconds: 3)
                #expect(try await lookups(2), "tried again after 2 s")
                world.clock.advance(seconds: 5)
                let messages = try await world.mail.waitFor(1)
                try await Task.sleep(for: .milliseconds(1500))
                #expect(messages.count == 1 && messages[0].to == Self.email)
                #expect(await world.mail.messages.count == 1, "mailed once")
                #expect(backend.state.withLock { $0.lookups } == 3)

                // No account: the backend answers 404 and nothing is sent.
                #expect(try await api.requestReset("nobody@example.com").status == .accepted)
                try await Task.sleep(for: .milliseconds(1500))
                #expect(await world.mail.messages.count == 1)
                #expect(backend.state.withLock { $0.refusedSignatures } == 0, "every hook call was signed")
            }
        }
    }

    @Test func aLookupThatNeverAnswersIsDroppedAfterItsAttempts() async throws {
        try await ResetWorld.with(.sqlite, external: true) { world in
            let backend = try #require(world.backend)
            try await world.serve({ $0.passwordReset.lookupAttempts = 2 }) { api in
                backend.addUser(email: Self.email, password: Self.password)
                backend.state.withLock { $0.failingLookups = 100 }
                _ = try await api.requestReset(Self.email)
                try await Task.sleep(for: .milliseconds(500))
                world.clock.advance(seconds: 3)
                try await Task.sleep(for: .milliseconds(1500))
                world.clock.advance(seconds: 600)
                try await Task.sleep(for: .milliseconds(1500))
                #expect(backend.state.withLock { $0.lookups } == 2)
                let waiting = try await world.sql("SELECT COUNT(*) AS n FROM reset_requests WHERE processed = false")
                #expect(try waiting.first?.decode(column: "n", as: Int.self) == 0)
                let dropped = try await world.sql(
                    "SELECT COUNT(*) AS n FROM audit_events WHERE event = 'reset.lookup_abandoned'"
                )
                #expect(try dropped.first?.decode(column: "n", as: Int.self) == 1)
                #expect(!world.logs.lines.withLock { $0.joined() }.contains(Self.email), "no address in the log")
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func aPasswordHookThatIsDownOrSlowLeavesTheLinkWorking(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind, external: true) { world in
            let backend = try #require(world.backend)
            try await world.serve { api in
                backend.addUser(email: Self.email, password: Self.password)
                let session = try #require(backend.signIn(email: Self.email, password: Self.password))
                let token = try await api.resetToken(for: Self.email)

                backend.state.withLock { $0.passwordHookDown = true }
                let down = try await api.confirm(token, Self.newPassword)
                #expect(down.status == .serviceUnavailable && down.headers[.retryAfter] == "5")
                #expect(down.object["error"] as? String == "accounts_backend_unavailable")

                backend.state.withLock {
                    $0.passwordHookDown = false
                    $0.passwordHookDelay = .seconds(12)  // the timeout is 2 s
                }
                let started = ContinuousClock.now
                let slow = try await api.confirm(token, Self.newPassword)
                #expect(slow.status == .serviceUnavailable)
                // Well before the hook's 12 s, however loaded the machine (a whole suite on two cores took 6.9 s once).
                #expect(ContinuousClock.now - started < .seconds(10), "answered at the timeout")
                // The slow call ends, and changes nothing here: waited for, not timed (on a loaded machine its sleep
                // may end late, and it would take the refusal meant for the next call).
                while backend.state.withLock({ $0.delayedCallsDone }) < 1, ContinuousClock.now < started + .seconds(40)
                {
                    try await Task.sleep(for: .milliseconds(50))
                }

                backend.state.withLock {
                    $0.passwordHookDelay = .zero
                    $0.refuse = ["breached"]
                }
                let refused = try await api.confirm(token, Self.newPassword)
                #expect(refused.status == .unprocessableContent)
                #expect(refused.object["reasons"] as? [String] == ["breached"])

                #expect(try await api.verify(token).status == .ok, "the link still works")
                #expect(try await api.confirm(token, Self.newPassword).status == .noContent)
                #expect(try await api.confirm(token, Self.newPassword).status == .badRequest, "once")
                #expect(!backend.isSignedIn(session), "the backend was told to end the sessions")
                let bodies = backend.state.withLock { $0.bodies }
                #expect(bodies.last?.contains(#""endSessions":true"#) == true)
                let logs = world.logs.lines.withLock { $0.joined(separator: "\n") }
                #expect(!logs.contains(Self.newPassword) && !logs.contains(token), "no secret in the log")
                let audit = try await world.sql("SELECT event FROM audit_events WHERE event LIKE 'reset.%'")
                #expect(
                    try audit.map { try $0.decode(column: "event", as: String.self) }.contains(
                        "reset.backend_unavailable"
                    )
                )
                let notices = await world.mail.messages.filter { $0.subject.hasSuffix("password was changed") }
                #expect(notices.count == 1)
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func theBackendConsumesATokenExactlyOnce(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind, external: true) { world in
            let backend = try #require(world.backend)
            try await world.serve { api in
                let subject = backend.addUser(email: Self.email, password: Self.password)
                let token = try await api.resetToken(for: Self.email)
                let body = ResetClient.json(["token": token])
                let answers = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                    for _ in 0..<5 {
                        group.addTask { try await api.post("/v1/reset-links/consume", body, headers: Self.admin) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let won = answers.filter { $0.status == .ok }
                #expect(won.count == 1 && answers.filter { $0.status == .badRequest }.count == 4)
                #expect(won.first?.object["subject"] as? String == subject)
                #expect(won.first?.object["email"] as? String == Self.email)
                #expect(won.first?.object["endSessions"] as? Bool == true)
                #expect(try await api.verify(token).status == .badRequest)
                #expect(backend.state.withLock { $0.passwordCalls } == 0, "the backend set the password itself")
            }
        }
    }

    @Test func aNewAddressAtTheBackendEndsTheOldLinks() async throws {
        try await ResetWorld.with(.sqlite, external: true) { world in
            let backend = try #require(world.backend)
            try await world.serve { api in
                let subject = backend.addUser(email: Self.email, password: Self.password)
                let token = try await api.resetToken(for: Self.email)
                let moved = try await api.post(
                    "/v1/reset-links",
                    ResetClient.json(["subject": subject, "email": "grace.new@example.com", "deliver": "return"]),
                    headers: Self.admin
                )
                #expect(moved.status == .created)
                #expect(try await api.verify(token).status == .badRequest)
                #expect(
                    try await api.post(
                        "/v1/reset-links/revoke",
                        ResetClient.json(["subject": subject]),
                        headers: Self.admin
                    ).status == .noContent
                )
                let link = try #require(moved.object["link"] as? String)
                #expect(
                    try await api.verify(try #require(ResetClient.token(in: link))).status == .badRequest,
                    "revoked"
                )
            }
        }
    }

    @Test func configurationRefusesPlainHTTPOffLoopbackAndMissingSecrets() async throws {
        func problems(_ accounts: String) -> [String] {
            let json = """
                {"app": {"teamID": "ABCDE12345", "bundleID": "com.example.app", "customScheme": "exampleapp",
                 "domains": ["app.example.com"], "displayName": "Example"}, "accounts": \(accounts)}
                """
            do {
                let file = try JSONDecoder().decode(AppConfigurationFile.self, from: Data(json.utf8))
                _ = try AppConfiguration(file: file)
                return []
            } catch let error as ConfigurationError {
                return error.problems
            } catch {
                return ["\(error)"]
            }
        }
        #expect(
            problems(#"{"mode": "external", "backend": "http://api.example.com"}"#).first?.contains("use https") == true
        )
        #expect(problems(#"{"mode": "external"}"#).first?.contains("is required") == true)
        #expect(problems(#"{"mode": "sso"}"#).first?.contains("neither") == true)
        #expect(problems(#"{"mode": "external", "backend": "https://u:p@api.example.com"}"#).count == 1)
        #expect(problems(#"{"mode": "external", "backend": "http://127.0.0.1:9000", "timeoutSeconds": 0}"#).count == 1)
        #expect(problems(#"{"mode": "external", "backend": "https://api.example.com/"}"#).isEmpty)
        #expect(problems(#"{"mode": "external", "backend": "http://localhost:9000"}"#).isEmpty)

        var settings = ServerSettings()
        settings.app.externalAccounts = ExternalAccounts(backend: "http://127.0.0.1:9")
        let (database, cleanup) = try await TestDatabase.sqlite.open()
        #expect {
            _ = try DeepLinksApplication.make(settings: settings, database: database, logger: .init(label: "test"))
        } throws: { error in
            (error as? ConfigurationError)?.setting == "DEEPLINKS_HOOK_SECRETS"
        }
        await cleanup()
    }
}
