import AsyncKit
@testable import DeepLinksMail
@testable import DeepLinksServer
@testable import DeepLinksStorage
@testable import DeepLinksSupport
import DeepLinksSecrets
import DeepLinksTestSupport
import Foundation
import HTTPTypes
import Logging
import NIOCore
import SQLKit
import Synchronization
import Testing

/// Several servers on one database, faults and abuse (issue: production on more than one machine). The cluster
/// test (Server/Tests/Cluster/run) checks the same with real processes and nginx.
@Suite struct ProductionTests {
    static let password = ResetTokenTests.password

    /// A second handle on the same database: what another server process has.
    static func secondHandle(_ world: ResetWorld) async throws -> Database {
        try await Database.open(world.database.url, logger: Logger(label: "test"))
    }

    static func sender(_ database: Database, keys: SecretKeys, clock: WallClock, transport: any MailTransport)
        -> MailSender
    {
        MailSender(
            database: database,
            outbox: MailOutbox(keys: keys, clock: clock, messageDomain: "links.example.com"),
            transport: transport,
            sender: "Demo <no-reply@links.example.com>",
            logger: Logger(label: "test")
        )
    }

    static func enqueue(
        _ count: Int,
        on database: Database,
        keys: SecretKeys,
        clock: WallClock,
        resetTokenHash: String? = nil
    ) async throws {
        let outbox = MailOutbox(keys: keys, clock: clock, messageDomain: "links.example.com")
        try await database.transaction { sql in
            for index in 0..<count {
                let mail = OutgoingMail(
                    to: "person\(index)@example.com",
                    subject: "Hello \(index)",
                    text: "t",
                    html: "h"
                )
                try await outbox.enqueue(mail, kind: "test", resetTokenHash: resetTokenHash, on: sql)
            }
        }
    }

    static func messageID(_ rendered: String) -> String? {
        rendered.components(separatedBy: "\r\n").first { $0.hasPrefix("Message-ID: ") }
    }

    @Test(arguments: TestDatabase.allCases)
    func threeSendersOnOneDatabaseSendEachMessageOnce(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await Self.enqueue(60, on: world.database, keys: world.keys, clock: world.clock.wallClock)
            let handles = [world.database, try await Self.secondHandle(world), try await Self.secondHandle(world)]
            // A slow transport widens the window in which a sender that reads before it claims sends twice.
            let catcher = MailCatcher(delay: .milliseconds(5))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for handle in handles {
                    group.addTask {
                        try await Self.sender(
                            handle,
                            keys: world.keys,
                            clock: world.clock.wallClock,
                            transport: catcher
                        ).drain()
                    }
                }
                try await group.waitForAll()
            }
            let subjects = await catcher.messages.map(\.subject)
            #expect(subjects.count == 60, "\(subjects.count) messages for 60 queued")
            #expect(Set(subjects).count == 60)
            let unsent = try await world.sql(
                "SELECT attempts, next_attempt_at, last_error FROM mail_outbox WHERE sent_at IS NULL"
            )
            #expect(unsent.isEmpty, "\(unsent.count) messages unsent")
            for handle in handles.dropFirst() { try await handle.close() }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func aMessageClaimedByAServerThatDiedIsSentAfterTheLeaseWithTheSameMessageID(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await Self.enqueue(1, on: world.database, keys: world.keys, clock: world.clock.wallClock)
            let stored = try await world.sql("SELECT message_id FROM mail_outbox").first?.decode(
                column: "message_id",
                as: String.self
            )
            let sender = Self.sender(
                world.database,
                keys: world.keys,
                clock: world.clock.wallClock,
                transport: world.mail
            )
            // The first server claims the message and dies before it answers.
            #expect(try await sender.claim() != nil)
            try await sender.drain()
            #expect(await world.mail.messages.isEmpty, "a claimed message is not sent again while the lease runs")
            world.clock.advance(seconds: 46)
            try await sender.drain()
            let rendered = await world.mail.renderedMessages
            #expect(rendered.count == 1)
            #expect(Self.messageID(rendered[0]) == "Message-ID: <\(try #require(stored))>")
        }
    }

    @Test func resetMailWhoseLinkIsNoLongerLiveIsDropped() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await Self.enqueue(
                1,
                on: world.database,
                keys: world.keys,
                clock: world.clock.wallClock,
                resetTokenHash: "v1$superseded"
            )
            try await Self.sender(world.database, keys: world.keys, clock: world.clock.wallClock, transport: world.mail)
                .drain()
            #expect(await world.mail.messages.isEmpty)
            let row = try #require(try await world.sql("SELECT sealed_message, last_error FROM mail_outbox").first)
            #expect(try row.decode(column: "sealed_message", as: String.self) == "")
            #expect(try row.decode(column: "last_error", as: String?.self)?.contains("superseded") == true)
        }
        // Through the journey: two requests processed before the mail job runs give one message, the newer link.
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in try await api.signUp("twice@example.com", Self.password) }
            try await world.serve { api in
                try await api.requestReset("twice@example.com")
                try await api.requestReset("twice@example.com")
                _ = try await world.mail.waitFor(1)
                try await Task.sleep(for: .seconds(1.5))
                let messages = await world.mail.resetMessages
                let live = try await world.sql("SELECT COUNT(*) AS n FROM password_resets").first?.decode(
                    column: "n",
                    as: Int.self
                )
                #expect(live == 1)
                // Either both were sent (each while live) or the first was dropped; the last one is live.
                let token = try #require(ResetClient.token(in: messages.last?.text ?? ""))
                #expect(try await api.verify(token).status == .ok)
            }
        }
    }

    @Test func queuedMailStillOpensAfterAKeyRotation() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let old = try SecretKeys(parsing: "1:" + Data(repeating: 1, count: 32).base64EncodedString())
            let rotated = try SecretKeys(
                parsing: "2:" + Data(repeating: 2, count: 32).base64EncodedString() + ",1:"
                    + Data(repeating: 1, count: 32).base64EncodedString()
            )
            try await Self.enqueue(1, on: world.database, keys: old, clock: world.clock.wallClock)
            try await Self.sender(world.database, keys: rotated, clock: world.clock.wallClock, transport: world.mail)
                .drain()
            #expect(await world.mail.messages.count == 1)
            // A key no longer listed: permanent, with a reason that says what to do, and the body kept for a requeue.
            try await Self.enqueue(1, on: world.database, keys: old, clock: world.clock.wallClock)
            let other = try SecretKeys(parsing: "3:" + Data(repeating: 3, count: 32).base64EncodedString())
            try await Self.sender(world.database, keys: other, clock: world.clock.wallClock, transport: world.mail)
                .drain()
            let row = try #require(
                try await world.sql(
                    "SELECT last_error, sealed_message, next_attempt_at FROM mail_outbox WHERE sent_at IS NULL"
                ).first
            )
            #expect(try row.decode(column: "last_error", as: String.self).contains("key version 1"))
            #expect(try row.decode(column: "sealed_message", as: String.self) != "")
            #expect(try row.decode(column: "next_attempt_at", as: Int64.self) == Int64.max)
        }
    }

    /// Runs the scripted SMTP server in `mode` and returns its port and the process.
    static func scriptedSMTP(_ mode: String) throws -> (port: Int, process: Process) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support/smtp_script_server.py")
        process.arguments = ["python3", script.path, mode]
        let output = Pipe()
        process.standardOutput = output
        // The server ends when its standard input closes (when the test process ends, however it ends), and
        // holds none of the test runner's output streams open.
        process.standardInput = Pipe()
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line += byte
        }
        return (Int(String(decoding: line, as: UTF8.self)) ?? 0, process)
    }

    @Test(arguments: [("refuse-sender", false), ("refuse-recipient", true)])
    func onlyARefusalOfTheRecipientIsPermanent(_ mode: String, permanent: Bool) async throws {
        let (port, process) = try Self.scriptedSMTP(mode)
        defer { process.terminate() }
        let transport = SMTPTransport(
            settings: .init(host: "127.0.0.1", port: port, implicitTLS: false, username: nil, password: nil),
            heloName: "links.example.com"
        )
        let mail = OutgoingMail(to: "ada@example.com", subject: "s", text: "t", html: "h")
        do {
            try await transport.deliver(mail, rendered: mail.rendered(from: "a@b.c", date: Date(), messageID: "x@y"))
            Issue.record("delivered despite a refusal")
        } catch let error as MailDeliveryError {
            #expect(error.isPermanent == permanent, "\(error.reason)")
        }
    }

    @Test func aServerThatStopsAnsweringIsLeftAfterTheCommandTimeout() async throws {
        let (port, process) = try Self.scriptedSMTP("silent-after-ehlo")
        defer { process.terminate() }
        var transport = SMTPTransport(
            settings: .init(host: "127.0.0.1", port: port, implicitTLS: false, username: nil, password: nil),
            heloName: "links.example.com"
        )
        transport.commandTimeout = .seconds(1)
        // The message's own limit far above: ending well before it shows the command timeout ended the delivery,
        // however loaded the machine (beside the other suites, this took 8 to 13 s here).
        transport.messageTimeout = .seconds(120)
        let mail = OutgoingMail(to: "ada@example.com", subject: "s", text: "t", html: "h")
        let started = ContinuousClock.now
        do {
            try await transport.deliver(mail, rendered: mail.rendered(from: "a@b.c", date: Date(), messageID: "x@y"))
            Issue.record("delivered to a server that never answered")
        } catch let error as MailDeliveryError {
            #expect(!error.isPermanent)
            #expect(error.reason.contains("no answer"), "\(error.reason)")
        }
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test func starttlsCanBeRequired() throws {
        guard case .smtp(let settings) = try MailURL(parsing: "smtp://mail.example.com:587?starttls=required") else {
            Issue.record("not an SMTP URL")
            return
        }
        #expect(settings.requireTLS)
        #expect(throws: ConfigurationError.self) { try MailURL(parsing: "smtp://mail.example.com?tls=maybe") }
    }

    @Test func aSlowMailServerDoesNotHoldUpClickCountsAndShutdownStoresThem() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let slow = MailCatcher(delay: .seconds(30))
            try await Self.enqueue(1, on: world.database, keys: world.keys, clock: world.clock.wallClock)
            let clicks = ClickCounter(database: world.database)
            try await world.database.withConnection { sql in
                try await sql.raw(
                    "INSERT INTO links (code, document, created_at, updated_at) VALUES ('abc', '{}', 0, 0)"
                ).run()
            }
            let sender = Self.sender(world.database, keys: world.keys, clock: world.clock.wallClock, transport: slow)
            let jobs = BackgroundJobs(
                [sender, ClickFlushJob(clicks: clicks)],
                interval: .milliseconds(100),
                shutdownGrace: .milliseconds(500),
                logger: Logger(label: "test")
            )
            let running = Task { try await jobs.run() }
            try await Task.sleep(for: .milliseconds(300))
            clicks.count(code: "abc", platform: .iPhone, at: world.clock.wallClock.milliseconds())
            // Polled rather than slept: on a loaded machine the 100 ms job may take longer than a fixed wait. The
            // message takes 30 s, so a count stored within 10 s was stored while it was being sent.
            var stored: Int?
            let deadline = ContinuousClock.now + .seconds(10)
            while stored != 1, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                stored = try await world.sql("SELECT SUM(clicks) AS n FROM link_clicks").first?.decode(
                    column: "n",
                    as: Int?.self
                )
            }
            #expect(stored == 1, "clicks are stored while a message is being sent")
            for _ in 0..<400 { clicks.count(code: "abc", platform: .iPhone, at: world.clock.wallClock.milliseconds()) }
            running.cancel()
            let started = ContinuousClock.now
            _ = try? await running.value
            // The message takes 30 s: a shutdown well under that did not wait for it (bound loose for busy cores).
            #expect(ContinuousClock.now - started < .seconds(15))
            let after = try await world.sql("SELECT SUM(clicks) AS n FROM link_clicks").first?.decode(
                column: "n",
                as: Int?.self
            )
            #expect(after == 401, "the clicks counted before the shutdown are stored")
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func rateLimitsAreSharedByEveryServerOnTheDatabase(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            let other = try await Self.secondHandle(world)
            let now = world.clock.wallClock.milliseconds()
            let limiters = [world.database, other].map {
                SharedRateLimiter(database: $0, name: "test", capacity: 5, perMinute: 1)
            }
            var allowed = 0
            for index in 0..<12 where try await limiters[index % 2].take("198.51.100.7", now: now) == nil {
                allowed += 1
            }
            #expect(allowed == 5, "two servers let \(allowed) through a bucket of 5")
            let wait = try #require(try await limiters[0].take("198.51.100.7", now: now))
            #expect((55...60).contains(wait))
            #expect(try await limiters[1].take("198.51.100.7", now: now + 61_000) == nil, "refilled after a minute")
            #expect(try await limiters[1].take("198.51.100.8", now: now) == nil, "another key has its own bucket")
            try await Pruning(database: world.database, clock: world.clock.wallClock).run(now: now + 3_600_001)
            #expect(
                try await world.sql("SELECT COUNT(*) AS n FROM rate_limits").first?.decode(column: "n", as: Int.self)
                    == 1
            )
            try await other.close()
        }
    }

    @Test func networksAreParsedAndIPv6IsKeyedByItsPrefix() throws {
        let proxies = try TrustedProxies(["127.0.0.0/8", "::1", "fd00::/8", "::ffff:10.0.0.0/104"])
        #expect(proxies.trusts("127.0.0.1"))
        #expect(proxies.trusts("::ffff:127.0.0.1"), "an IPv4-mapped address is the IPv4 address")
        #expect(proxies.trusts("127.255.0.9"))
        #expect(proxies.trusts("fd12:3456::1"))
        #expect(proxies.trusts("10.1.2.3"))
        #expect(!proxies.trusts("128.0.0.1"))
        #expect(!proxies.trusts("fe80::1"))
        #expect(!proxies.trusts("not an address"))
        for bad in ["127.0.0.1/33", "localhost", "10.0.0.0/", "::1/129", "1.2.3", "::ffff:10.0.0.0/90", ""] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try TrustedProxies([bad]) }
        }
        #expect(ClientNetwork.key("2001:db8:1:2:aaaa:bbbb:cccc:dddd") == "2001:db8:1:2::/64")
        #expect(ClientNetwork.key("2001:db8:1:2::9") == ClientNetwork.key("2001:db8:1:2:ffff::1"))
        #expect(ClientNetwork.key("::ffff:198.51.100.7") == "198.51.100.7")
        #expect(ClientNetwork.key("198.51.100.7") == "198.51.100.7")

        var headers = HTTPFields()
        headers[TrustedProxies.forwardedFor] = "203.0.113.9, 10.0.0.2"
        let peer = try SocketAddress(ipAddress: "::ffff:127.0.0.1", port: 1)
        #expect(proxies.clientAddress(peer: peer, headers: headers) == "203.0.113.9")

        // Hops as proxies write them, with a port or in brackets; anything else is the client's claim: an unknown
        // client, never the trusted proxy itself (which reads /metrics and shares no bucket with strangers).
        for (hop, address) in [
            ("203.0.113.9:41234", "203.0.113.9"), ("[2001:db8::1]", "2001:db8::1"),
            ("[2001:db8::1]:443", "2001:db8::1"), ("garbage", TrustedProxies.unknownClient),
            ("203.0.113.9:port", TrustedProxies.unknownClient), ("[10.0.0.2]", TrustedProxies.unknownClient),
            ("2001:db8::1:443", "2001:db8::1:443"), ("127.0.0.1:80", "127.0.0.1"),
        ] {
            headers[TrustedProxies.forwardedFor] = "\(hop), 10.0.0.2"
            let seen = proxies.clientAddress(peer: peer, headers: headers)
            #expect(seen == address, "\(hop)")
        }
        headers[TrustedProxies.forwardedFor] = "garbage"
        #expect(proxies.clientAddress(peer: peer, headers: headers) == TrustedProxies.unknownClient)
        #expect(!proxies.trusts(TrustedProxies.unknownClient))
    }

    @Test func addressesThatWouldReadAsAnotherRecipientAreRefused() throws {
        for bad in [
            "x<y@example.com", "a,b@example.com", "a;b@example.com", "(a)@example.com", "a\"b@example.com",
            ".a@example.com", "a..b@example.com", "a.@example.com", "a>@example.com", "\"a\"b\"@example.com",
        ] {
            #expect(throws: EmailAddressError.invalidLocalPart, "\(bad)") { try EmailAddress(bad) }
        }
        for good in [
            "ada@example.com", "a.b+tag@example.com", "o'brien@example.com", "\"a@b\"@example.com", "josé@example.com",
            "{x}|~@example.com",
        ] {
            #expect(throws: Never.self, "\(good)") { try EmailAddress(good) }
        }
    }

    @Test func concurrentMigrationsOnAnEmptyPostgreSQLAllSucceed() async throws {
        guard TestDatabase.postgresql.isAvailable else { return }
        for _ in 0..<5 {
            let (database, cleanup) = try await TestDatabase.postgresql.open()
            let handles = [
                database, try await Database.open(database.url, logger: Logger(label: "test")),
                try await Database.open(database.url, logger: Logger(label: "test")),
            ]
            let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                for handle in handles {
                    group.addTask { try await Migrator(database: handle, logger: Logger(label: "test")).migrate() }
                }
                return try await group.reduce(into: [Int]()) { $0 += $1 }
            }
            #expect(applied.sorted() == Migration.all.map(\.version), "each migration applied once")
            let keys = try await withThrowingTaskGroup(of: String.self) { group in
                for handle in handles {
                    group.addTask {
                        try await DeepLinksApplication.developmentKeys(database: handle, logger: Logger(label: "test"))
                            .serialized
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(keys.count == 1, "every server reads the one development key")
            for handle in handles.dropFirst() { try await handle.close() }
            await cleanup()
        }
    }

    @Test func storageFailuresAnswer503InJSONWithoutTheDriversText() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.database.close()
            try await world.serve { api in
                let response = try await api.requestReset("ada@example.com")
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "5")
                #expect(response.object["error"] as? String == "storage_unavailable")
                let health = try await api.get("/healthz")
                #expect(health.status == .serviceUnavailable)
                #expect(!health.text.contains(world.database.url.redacted), "the answer names no database address")
            }
        }
    }

    /// A pool with no connection free (every one held by a frozen database's queries) is a storage failure too:
    /// 503 with a reason in the log, not a 500.
    @Test func noFreeConnectionIsAStorageFailureWithAReason() {
        let error = ConnectionPoolTimeoutError.connectionRequestTimeout
        #expect(Database.isStorageFailure(error))
        #expect(
            Database.reason(error)
                == "no database connection came free within 10 s (the database is slow, stopped or unreachable)"
        )
    }

    @Test func checksThatNameAVictimsAddressSlowDownWithoutKillingTheLink() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                try await api.signUp("victim@example.com", Self.password)
                let token = try await api.resetToken(for: "victim@example.com")
                var statuses: [Int] = []
                for index in 0..<8 {
                    let random = String(repeating: String(UnicodeScalar(UInt8(65 + index))), count: 43)
                    statuses.append(Int(try await api.verify(random, email: "victim@example.com").status.code))
                }
                #expect(statuses.prefix(5).allSatisfy { $0 == 400 })
                #expect(statuses.suffix(3).allSatisfy { $0 == 429 }, "\(statuses)")
                #expect(try await api.verify(token).status == .ok, "the victim's link is still live")
            }
        }
    }

    @Test func oneNetworkSpendsOnlyItsShareOfTheBudget() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let configure: (inout ServerSettings) -> Void = {
                $0.passwordReset.mailBudgetPerNetworkPerHour = 2
                $0.trustedProxies = try! TrustedProxies(["127.0.0.1", "::1"])
            }
            try await world.serve(configure) { api in
                for index in 0..<4 { try await api.signUp("near\(index)@example.com", Self.password) }
                for index in 0..<3 {
                    try await api.requestReset(
                        "near\(index)@example.com",
                        headers: [
                            .contentType: "application/json", TrustedProxies.forwardedFor: "2001:db8:7:7::\(index + 1)",
                        ]
                    )
                }
                _ = try await world.mail.waitFor(2)
                try await Task.sleep(for: .seconds(1.5))
                #expect(await world.mail.messages.count == 2, "one /64 gets two mails to new accounts an hour")
                try await api.requestReset(
                    "near3@example.com",
                    headers: [.contentType: "application/json", TrustedProxies.forwardedFor: "198.51.100.9"]
                )
                _ = try await world.mail.waitFor(3)
                #expect(
                    await world.mail.messages.map(\.to).contains("near3@example.com"),
                    "another network is not held back"
                )
            }
        }
    }

    @Test func theHourlyBudgetHoldsBackMailToNewAccountsOnly() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve({ $0.passwordReset.mailBudgetPerHour = 2 }) { api in
                try await api.signUp("established@example.com", Self.password)
            }
            world.clock.advance(seconds: 2 * 86_400)
            try await world.serve({ $0.passwordReset.mailBudgetPerHour = 2 }) { api in
                for index in 0..<4 { try await api.signUp("fresh\(index)@example.com", Self.password) }
                for index in 0..<4 { try await api.requestReset("fresh\(index)@example.com") }
                _ = try await world.mail.waitFor(2)
                try await Task.sleep(for: .seconds(1.5))
                #expect(await world.mail.messages.count == 2)
                let health = try await api.get("/healthz")
                #expect(
                    (health.object["warnings"] as? [String])?.contains { $0.contains("budget") } == true,
                    "\(health.text)"
                )
                _ = try await api.resetToken(for: "established@example.com")
                #expect(world.logs.lines.withLock { $0.contains { $0.contains("hourly budget") } })
            }
        }
    }
}

/// Throttles, sessions, pruning and headers of the built-in accounts and operations.
@Suite struct AbuseTests {
    static let password = ResetTokenTests.password

    @Test func signUpsAreLimitedPerNetworkAndSignInsPerAddress() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve({
                $0.passwordReset.signUpBurst = 3; $0.passwordReset.signInBurst = 100
            }) { api in
                var statuses: [Int] = []
                for index in 0..<5 {
                    statuses.append(
                        Int(
                            try await api.post(
                                "/v1/accounts",
                                ResetClient.json(["email": "s\(index)@example.com", "password": Self.password])
                            ).status.code
                        )
                    )
                }
                #expect(statuses == [201, 201, 201, 429, 429])
                var signIns: [Int] = []
                for _ in 0..<12 {
                    signIns.append(
                        Int(
                            try await api.post(
                                "/v1/sessions",
                                ResetClient.json(["email": "s0@example.com", "password": "not the password at all"])
                            ).status.code
                        )
                    )
                }
                #expect(
                    signIns.prefix(10).allSatisfy { $0 == 401 } && signIns.suffix(2).allSatisfy { $0 == 429 },
                    "\(signIns)"
                )
                #expect(try await api.signIn("s1@example.com", Self.password) != nil, "another address is not slowed")
            }
        }
    }

    @Test func hashingPastTheLimitAnswers503AtOnce() async throws {
        let gate = InFlightGate(limit: 1)
        let (entered, enter) = AsyncStream.makeStream(of: Void.self)
        let slow = Task {
            try await gate.run {
                enter.yield(); try await Task.sleep(for: .seconds(1)); return 1
            }
        }
        for await _ in entered { break }
        await #expect(throws: APIError.self) { try await gate.run { 2 } }
        #expect(try await slow.value == 1)
        #expect(try await gate.run { 3 } == 3, "free again once the first is done")
    }

    @Test func sessionsExpireWhenIdleAndAfterTheirLifetime() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                try await api.signUp("sessions@example.com", Self.password)
                let used = try #require(try await api.signIn("sessions@example.com", Self.password))
                world.clock.advance(seconds: 29 * 86_400)
                #expect(try await api.me(used) == .ok)
                world.clock.advance(seconds: 29 * 86_400)
                #expect(try await api.me(used) == .ok, "used 29 days ago: still live")
                world.clock.advance(seconds: 31 * 86_400)
                #expect(try await api.me(used) == .unauthorized, "unused for 31 days")
                let fresh = try #require(try await api.signIn("sessions@example.com", Self.password))
                for _ in 0..<4 {
                    world.clock.advance(seconds: 25 * 86_400)
                    _ = try await api.me(fresh)
                }
                #expect(try await api.me(fresh) == .unauthorized, "signed in 100 days ago, whatever its use")
                try await Pruning(database: world.database, clock: world.clock.wallClock).run(
                    now: world.clock.wallClock.milliseconds()
                )
                #expect(try await world.sql("SELECT token_hash FROM sessions").isEmpty)
            }
        }
    }

    /// A sign-up nobody signs in to, or resets, within 30 days is pruned (sign-up proves no address: a flood of
    /// made-up accounts would otherwise stay for ever); one signed in to, or reset (which proves the address),
    /// stays; so does every account an upgrade found, on both databases.
    @Test(arguments: TestDatabase.allCases)
    func unusedSignUpsArePrunedAfterThirtyDays(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind, external: false) { world in
            try await world.serve { api in
                for name in ["unused", "signed-in", "reset"] {
                    try await api.signUp("\(name)@example.com", Self.password)
                }
                #expect(try await api.signIn("signed-in@example.com", Self.password) != nil)
                let token = try await api.resetToken(for: "reset@example.com")
                #expect(try await api.confirm(token, Self.password + " again").status == .noContent)
                func accounts() async throws -> [String] {
                    try await world.sql("SELECT email FROM accounts ORDER BY email").map {
                        try $0.decode(column: "email", as: String.self)
                    }
                }
                let pruning = Pruning(database: world.database, clock: world.clock.wallClock)
                world.clock.advance(seconds: 29 * 86_400)
                try await pruning.run(now: world.clock.wallClock.milliseconds())
                #expect(try await accounts().count == 3, "29 days: every account kept")
                world.clock.advance(seconds: 2 * 86_400)
                try await pruning.run(now: world.clock.wallClock.milliseconds())
                #expect(try await accounts() == ["reset@example.com", "signed-in@example.com"])
                #expect(try await api.signIn("unused@example.com", Self.password) == nil, "gone")
                try await api.signUp("unused@example.com", Self.password)
                #expect(try await api.signIn("unused@example.com", Self.password) != nil, "and free to sign up again")
            }
        }
    }

    /// Click counts are kept `--click-retention-days` (today included), per day, referrer and rule alike; 0 keeps
    /// them all; on both databases.
    @Test(arguments: TestDatabase.allCases)
    func clickCountsArePrunedPastTheirRetention(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind, external: false) { world in
            let now = world.clock.wallClock.milliseconds()
            let day: Int64 = 86_400_000
            let kept = ClickCounter.day(now - 29 * day)
            let gone = ClickCounter.day(now - 30 * day)
            for (index, date) in [kept, gone].enumerated() {
                _ = try await world.sql(
                    "INSERT INTO link_clicks (code, day, platform, bot, source, clicks) VALUES ('old', \(bind: date), 'iphone', \(bind: false), 'link', \(bind: index + 1))"
                )
                _ = try await world.sql(
                    "INSERT INTO link_referrers (code, day, referrer, clicks) VALUES ('old', \(bind: date), 'news.example.com', 1)"
                )
                _ = try await world.sql(
                    "INSERT INTO link_rule_clicks (code, day, rule, variant, clicks) VALUES ('old', \(bind: date), 'ab', '', 1)"
                )
            }
            func days(_ table: String) async throws -> [String] {
                try await world.sql("SELECT day FROM \(unsafeRaw: table) ORDER BY day").map {
                    try $0.decode(column: "day", as: String.self)
                }
            }
            try await Pruning(database: world.database, clock: world.clock.wallClock, clickRetentionDays: 0).run(
                now: now
            )
            #expect(try await days("link_clicks") == [gone, kept], "0 keeps every day")
            try await Pruning(database: world.database, clock: world.clock.wallClock, clickRetentionDays: 30).run(
                now: now
            )
            for table in ["link_clicks", "link_referrers", "link_rule_clicks"] {
                #expect(try await days(table) == [kept], "\(table): 30 days kept, today and the 29 before")
            }
        }
    }

    @Test func metricsAnswerLoopbackAndAllowedNetworksOnly() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let configure: (inout ServerSettings) -> Void = {
                $0.trustedProxies = try! TrustedProxies(["127.0.0.1"])
                $0.metricsAllowedFrom = ["10.0.0.0/8"]
            }
            try await world.serve(configure) { api in
                let local = try await api.get("/metrics")
                #expect(local.status == .ok, "loopback")
                #expect(local.text.contains("deeplinks_mail_outbox_queued 0"), "the queue's gauge, read at the scrape")
                #expect(try await api.get("/metrics", headers: [TrustedProxies.forwardedFor: "10.2.3.4"]).status == .ok)
                let outside = try await api.get("/metrics", headers: [TrustedProxies.forwardedFor: "203.0.113.5"])
                #expect(outside.status == .forbidden)
                // A hop that is no address is not the proxy's own request.
                for claim in ["garbage", "203.0.113.5:99999", "[::1"] {
                    let claimed = try await api.get("/metrics", headers: [TrustedProxies.forwardedFor: claim])
                    #expect(claimed.status == .forbidden, "\(claim)")
                }
                #expect(
                    try await api.get("/metrics", headers: [TrustedProxies.forwardedFor: "10.2.3.4:5555"]).status == .ok
                )
                #expect(outside.headers[.strictTransportSecurity] == "max-age=31536000")
                #expect(try await api.get("/healthz").headers[.strictTransportSecurity] == "max-age=31536000")
            }
            try await world.serve({
                configure(&$0); $0.metricsAllowedFrom = nil
            }) { api in
                let anyone = try await api.get("/metrics", headers: [TrustedProxies.forwardedFor: "203.0.113.5"])
                #expect(anyone.status == .ok, "open to all")
            }
        }
    }

    @Test func aFreshServerAnswersItsRootWithAStartPage() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                let page = try await api.get("/")
                #expect(page.status == .ok)
                #expect(page.headers[.contentType] == "text/html; charset=utf-8")
                for expected in [
                    "ABCDE12345.com.example.demo", "/.well-known/apple-app-site-association", "/healthz", "/metrics",
                ] {
                    #expect(page.text.contains(expected), "\(expected)")
                }
                #expect(
                    try await api.get("/?link=https://elsewhere.example.org/x").status == .badRequest,
                    "a Firebase long link is still read (a web link off the allowlist: refused with the reason)"
                )
            }
        }
    }

    @Test func clicksForADeletedLinkAreNotStored() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let clicks = ClickCounter(database: world.database)
            let now = world.clock.wallClock.milliseconds()
            try await world.database.withConnection { sql in
                try await sql.raw(
                    "INSERT INTO links (code, document, created_at, updated_at) VALUES ('kept', '{}', \(bind: now), \(bind: now))"
                ).run()
            }
            clicks.count(code: "kept", platform: .iPhone, at: now)
            clicks.count(code: "deleted", platform: .iPhone, at: now)
            try await clicks.flush()
            let codes = try await world.sql("SELECT code FROM link_clicks").map {
                try $0.decode(column: "code", as: String.self)
            }
            #expect(codes == ["kept"])
        }
    }

    @Test func pruningDeletesWhatNoLongerServes() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let now = world.clock.wallClock.milliseconds()
            let day: Int64 = 86_400_000
            try await world.database.withConnection { sql in
                try await sql.raw(
                    "INSERT INTO audit_events (event, at) VALUES ('old', \(bind: now - 91 * day)), ('new', \(bind: now))"
                ).run()
                try await sql.raw(
                    """
                    INSERT INTO mail_outbox (kind, sealed_message, created_at, next_attempt_at, sent_at)
                    VALUES ('sent-old', '', \(bind: now - 8 * day), 0, \(bind: now - 8 * day)), ('queued-old', 'x', \(bind: now - 8 * day), 0, NULL),
                           ('sent-new', '', \(bind: now), 0, \(bind: now))
                    """
                ).run()
            }
            try await Pruning(database: world.database, clock: world.clock.wallClock).run(now: now)
            #expect(
                try await world.sql("SELECT event FROM audit_events").map {
                    try $0.decode(column: "event", as: String.self)
                } == ["new"]
            )
            let kinds = try await world.sql("SELECT kind FROM mail_outbox ORDER BY id").map {
                try $0.decode(column: "kind", as: String.self)
            }
            #expect(kinds == ["queued-old", "sent-new"], "a message never sent is kept, however old")
        }
    }
}
