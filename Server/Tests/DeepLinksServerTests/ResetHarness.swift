@testable import DeepLinksMail
import DeepLinksSecrets
import DeepLinksServer
@testable import DeepLinksStorage
import DeepLinksTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import SQLKit
import Synchronization
import Testing

/// A wall clock the test moves by hand.
final class ManualClock: Sendable {
    private let now = Mutex(Int64(Date().timeIntervalSince1970 * 1000))
    var wallClock: WallClock { WallClock { self.now.withLock { $0 } } }
    func advance(seconds: Int64) { now.withLock { $0 += seconds * 1000 } }
}

/// Keeps every message the server sends, optionally taking `delay` per message (a slow mail server).
actor MailCatcher: MailTransport {
    private(set) var messages: [OutgoingMail] = []
    private(set) var renderedMessages: [String] = []
    let delay: Duration

    init(delay: Duration = .zero) {
        self.delay = delay
    }

    func deliver(_ mail: OutgoingMail, rendered: String) async throws {
        if delay > .zero { try await Task.sleep(for: delay) }
        messages.append(mail)
        renderedMessages.append(rendered)
    }

    /// The messages that carry a reset link.
    var resetMessages: [OutgoingMail] { messages.filter { $0.subject.hasPrefix("Reset your") } }

    /// Waits until at least `count` messages arrived (the background jobs run every second, or when woken).
    func waitFor(_ count: Int, timeout: Duration = .seconds(30)) async throws -> [OutgoingMail] {
        let deadline = ContinuousClock.now + timeout
        while messages.count < count {
            guard ContinuousClock.now < deadline else {
                Issue.record("expected \(count) messages, got \(messages.count)")
                return messages
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return messages
    }
}

/// Every log line the server writes, with its metadata, to search for secrets.
final class LogCapture: Sendable {
    let lines = Mutex<[String]>([])

    var logger: Logger {
        Logger(label: "test") { _ in Handler(capture: self) }
    }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.lines.withLock { $0.append("\(event.level) \(event.message) \(merged)") }
        }
    }
}

/// One database, clock, mail catcher and log for a test; ``serve(_:body:)`` runs the server on a live
/// socket over them, as many times as a test needs (to restart it, or change its keys).
struct ResetWorld: Sendable {
    let kind: TestDatabase
    let database: Database
    let cleanup: @Sendable () async -> Void
    let clock = ManualClock()
    let mail: MailCatcher
    let logs = LogCapture()
    let keys: SecretKeys
    /// The app team's backend when the accounts are external: sign-up, sign-in and sessions are its own, and
    /// the server reaches it through its hooks.
    let backend: TeamBackend?

    /// The admin key of external-account worlds (the backend's endpoints need it).
    static let adminKey = "test-admin-key-0123456789abcdef"

    /// `DEEPLINKS_TEST_ACCOUNTS=external` runs the reset tests against external accounts (`make test` runs
    /// them both ways).
    static let externalByDefault = ProcessInfo.processInfo.environment["DEEPLINKS_TEST_ACCOUNTS"] == "external"

    static func open(_ kind: TestDatabase, mailDelay: Duration = .zero, external: Bool = externalByDefault)
        async throws -> ResetWorld
    {
        let (database, cleanup) = try await kind.open()
        do {
            try await Migrator(database: database, logger: Logger(label: "test")).migrate()
        } catch {
            // A pool dropped unclosed stops the whole test process: close it, and say what failed.
            await cleanup()
            throw SetUpFailure(reason: "migrating the \(kind.rawValue) database: \(Database.reason(error))")
        }
        return ResetWorld(
            kind: kind,
            database: database,
            cleanup: cleanup,
            mail: MailCatcher(delay: mailDelay),
            keys: .random(),
            backend: external ? TeamBackend() : nil
        )
    }

    /// Settings for tests: a cheap hash, no request floor, generous per-IP buckets, this world's key.
    func settings(_ configure: (inout ServerSettings) -> Void = { _ in }) -> ServerSettings {
        var settings = ServerSettings()
        settings.port = 0
        settings.secretKeys = keys
        settings.passwordReset.hasher = PasswordHasher(logN: 4)
        settings.passwordReset.requestFloorMilliseconds = 0
        settings.passwordReset.requestBurst = 100_000
        settings.passwordReset.confirmBurst = 100_000
        settings.passwordReset.signUpBurst = 100_000
        settings.passwordReset.signInBurst = 100_000
        // Debian's 660,000 country ranges are read by the tests that need them (ClickAnalyticsTests, PlacesTests).
        settings.geoipDatabase = "none"
        // Apple's CDN is not asked (UniversalLinkHealthTests asks a stand-in).
        settings.appleCDNCheckMinutes = 0
        // The harness's one client connection may sit idle while a test waits on a loaded machine (a flush, a mail,
        // an import): the server must not close it under the test (15 s did, beside the parallel suite). A minute,
        // not more: a graceful shutdown waits for a connection it cannot close, up to that long (300 s held one
        // run's shutdown for minutes). The tests of idle timeouts set their own.
        settings.idleTimeoutSeconds = 60
        configure(&settings)
        return settings
    }

    func serve(
        _ configure: (inout ServerSettings) -> Void = { _ in },
        configuredMail: Bool = false,
        body: @Sendable (ResetClient) async throws -> Void
    ) async throws {
        try await serveReturning(configure, configuredMail: configuredMail, body: body)
    }

    /// ``serve(_:body:)`` for a body that hands a value (a token, say) to the next server.
    @discardableResult
    /// - Parameter configuredMail: send mail where `settings.mail` says, instead of to ``mail``.
    func serveReturning<T: Sendable>(
        _ configure: (inout ServerSettings) -> Void = { _ in },
        configuredMail: Bool = false,
        body: @Sendable (ResetClient) async throws -> T
    ) async throws -> T {
        let configured = settings(configure)
        @Sendable func run(_ address: String?) async throws -> T {
            var settings = configured
            if let address, let backend {
                settings.app.externalAccounts = ExternalAccounts(backend: address, timeoutSeconds: 2)
                settings.hookSecrets = backend.secretKeys
                if settings.smartLinks.adminKeyDigest == nil { try settings.smartLinks.setAdminKey(Self.adminKey) }
            }
            let app = try DeepLinksApplication.make(
                settings: settings,
                database: database,
                clock: clock.wallClock,
                mailTransport: configuredMail ? nil : mail,
                logger: logs.logger
            )
            return try await app.test(.live) { client in
                try await body(ResetClient(client: client, world: self))
            }
        }
        guard let backend else { return try await run(nil) }
        return try await backend.serve { address in try await run(address) }
    }

    /// Runs `body` in a fresh world on `kind`, then removes its database.
    static func with(
        _ kind: TestDatabase,
        mailDelay: Duration = .zero,
        external: Bool = externalByDefault,
        _ body: (ResetWorld) async throws -> Void
    ) async throws {
        guard kind.isAvailable else { return }
        let world = try await open(kind, mailDelay: mailDelay, external: external)
        do {
            try await body(world)
        } catch {
            await world.cleanup()
            // PostgreSQL's errors describe nothing ("Generic description..."): say the server's message.
            let reason = Database.reason(error)
            throw "\(error)".hasPrefix("PSQLError") ? SetUpFailure(reason: "on \(kind.rawValue): \(reason)") : error
        }
        await world.cleanup()
    }

    /// Takes `email`'s account out of service: disabled here, or gone from the team's backend (whose lookup
    /// then answers 404).
    func disable(_ email: String) async throws {
        if let backend {
            backend.state.withLock { $0.users = $0.users.filter { $0.value.email != email } }
        } else {
            _ = try await sql("UPDATE accounts SET disabled = \(bind: true) WHERE email = \(bind: email)")
        }
    }

    func sql(_ query: SQLQueryString) async throws -> [any SQLRow] {
        try await database.withConnection { try await $0.raw(query).all() }
    }
}

/// The API as a client sees it, over the live socket.
struct ResetClient: Sendable {
    let client: any TestClientProtocol
    let world: ResetWorld

    @discardableResult
    func post(_ path: String, _ json: String, headers: HTTPFields = [.contentType: "application/json"]) async throws
        -> TestResponse
    {
        Self.markupEscapedOnce(
            try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: json)) { $0 }
        )
    }

    func get(_ path: String, method: HTTPRequest.Method = .get, headers: HTTPFields = [:]) async throws -> TestResponse
    {
        Self.markupEscapedOnce(try await client.execute(uri: path, method: method, headers: headers) { $0 })
    }

    /// Every page the tests read is checked for markup escaped as text (`&lt;li&gt;`): a page built of ``HTML``
    /// whose piece was a `String` shows its tags instead of rendering them.
    static func markupEscapedOnce(_ response: TestResponse) -> TestResponse {
        guard response.headers[.contentType]?.hasPrefix("text/html") == true else { return response }
        let tags =
            "p|a|li|ul|ol|tr|td|th|table|tbody|code|strong|section|h1|h2|h3|label|input|option|select|form"
            + "|fieldset|legend|button|div|span|br|svg|rect|text|meta|script|main|header|nav|figure|textarea|pre"
        if let found = response.text.firstMatch(of: try! Regex("&lt;/?(\(tags))[ >/&]")) {
            Issue.record("markup escaped as text in a page: …\(response.text[found.range].prefix(60))…")
        }
        return response
    }

    static func json(_ value: [String: String]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }

    func signUp(_ email: String, _ password: String) async throws {
        if let backend = world.backend {
            backend.addUser(email: email, password: password)
            return
        }
        let response = try await post("/v1/accounts", Self.json(["email": email, "password": password]))
        #expect(response.status == .created, "sign-up of \(email): \(String(buffer: response.body))")
    }

    /// A session token, or nil when the credentials are refused.
    func signIn(_ email: String, _ password: String) async throws -> String? {
        if let backend = world.backend { return backend.signIn(email: email, password: password) }
        let response = try await post("/v1/sessions", Self.json(["email": email, "password": password]))
        guard response.status == .created else { return nil }
        return (try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])?["token"]
            as? String
    }

    /// A password change by the signed-in user: `/v1/me/password` here, or the team's backend, which then
    /// ends the user's reset links (`/v1/reset-links/revoke`).
    func changePassword(session: String, current: String, new: String) async throws -> HTTPResponse.Status {
        guard let backend = world.backend else {
            return try await post(
                "/v1/me/password",
                Self.json(["currentPassword": current, "newPassword": new]),
                headers: [.contentType: "application/json", .authorization: "Bearer \(session)"]
            ).status
        }
        let subject = backend.state.withLock { state in
            state.users.first { $0.value.sessions.contains(session) && $0.value.password == current }?.key
        }
        guard let subject else { return .unauthorized }
        backend.state.withLock { $0.users[subject]?.password = new }
        return try await post(
            "/v1/reset-links/revoke",
            Self.json(["subject": subject]),
            headers: [.contentType: "application/json", .authorization: "Bearer \(ResetWorld.adminKey)"]
        ).status
    }

    func me(_ session: String) async throws -> HTTPResponse.Status {
        if let backend = world.backend { return backend.isSignedIn(session) ? .ok : .unauthorized }
        return try await get("/v1/me", headers: [.authorization: "Bearer \(session)"]).status
    }

    @discardableResult
    func requestReset(_ email: String, headers: HTTPFields = [.contentType: "application/json"]) async throws
        -> TestResponse
    {
        try await post("/v1/password-resets", Self.json(["email": email]), headers: headers)
    }

    /// Requests a link for `email` and returns the token of the reset message that arrives for it.
    func resetToken(for email: String) async throws -> String {
        let before = await world.mail.resetMessages.count
        let response = try await requestReset(email)
        #expect(response.status == .accepted)
        // Waits for the mail job (every second, or when woken); generous for two cores busy with the whole suite.
        let deadline = ContinuousClock.now + .seconds(30)
        while await world.mail.resetMessages.count <= before, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        return try #require(Self.token(in: await world.mail.resetMessages.last?.text ?? ""))
    }

    static func token(in text: String) -> String? {
        guard let range = text.range(of: #"#token=[A-Za-z0-9_-]+"#, options: .regularExpression) else { return nil }
        return String(text[range].dropFirst("#token=".count))
    }

    func verify(_ token: String, email: String? = nil) async throws -> TestResponse {
        var body = ["token": token]
        body["email"] = email
        return try await post("/v1/password-resets/verify", Self.json(body))
    }

    func confirm(_ token: String, _ password: String, email: String? = nil) async throws -> TestResponse {
        var body = ["token": token, "password": password]
        body["email"] = email
        return try await post("/v1/password-resets/confirm", Self.json(body))
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
    var object: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]) ?? [:] }
}

extension TestClient.Response {
    var text: String { String(buffer: body ?? ByteBuffer()) }
    var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body ?? ByteBuffer())) as? [String: Any]) ?? [:]
    }
}

/// A database error with the driver's reason (PostgreSQL's errors describe nothing).
struct SetUpFailure: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
