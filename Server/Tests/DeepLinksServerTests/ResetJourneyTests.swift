import DeepLinksJSON
@testable import DeepLinksMail
import AppSiteAssociation
import DeepLinks
import DeepLinksServer
import DeepLinksTesting
import DemoAppRoutes
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The reference journey with real parts: the server on a live socket sends its mail through a real SMTP
/// server (aiosmtpd, started by .ci/run); the link is checked against the association file the server
/// serves, delivered by the simulated device to an app model that routes it with the shared route table,
/// and the app's own API client (URLSession) sets the new password.
@Suite struct ResetJourneyTests {
    static let smtpURL = ProcessInfo.processInfo.environment["DEEPLINKS_TEST_SMTP_URL"]
    static let mailbox = ProcessInfo.processInfo.environment["DEEPLINKS_TEST_SMTP_MAILBOX"]

    static var isAvailable: Bool {
        guard smtpURL == nil || mailbox == nil else { return true }
        let reason =
            "SMTP journey skipped: DEEPLINKS_TEST_SMTP_URL and DEEPLINKS_TEST_SMTP_MAILBOX are not set (bash .ci/run starts aiosmtpd and sets them)"
        print("◇ \(reason)")
        if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record("\(reason), but CI must run it") }
        return false
    }

    @Test(arguments: [
        "journey-\(UUID().uuidString.prefix(8).lowercased())@example.com",
        "user+\(UUID().uuidString.prefix(8).lowercased())@example.com",
    ])
    func aForgottenPasswordIsResetFromTheMailToTheAppsResetScreen(_ address: String) async throws {
        guard Self.isAvailable else { return }
        let oldPassword = "violet tangerine submarine orbit"
        let newPassword = "quiet lantern over maple ridge"
        try await ResetWorld.with(.sqlite) { world in
            let app = try DeepLinksApplication.make(
                settings: world.settings { $0.mail = try! MailURL(parsing: Self.smtpURL!) },
                database: world.database,
                clock: WallClock.system,
                logger: world.logs.logger
            )
            try await app.test(.live) { client in
                let api = DemoAppAPIClient(base: URL(string: "http://127.0.0.1:\(try #require(client.port))")!)
                #expect(try await api.post("/v1/accounts", ["email": address, "password": oldPassword]).status == 201)
                let otherDevice = try #require(
                    try await api.post("/v1/sessions", ["email": address, "password": oldPassword]).json["token"]
                        as? String
                )
                #expect(try await api.post("/v1/password-resets", ["email": address]).status == 202)

                // The message, as the SMTP server received it.
                let message = try await Self.waitForMessage(to: address, subject: "Reset your")
                let universal = try #require(
                    message.text.split(separator: "\n").map(String.init).first { $0.hasPrefix("https://") }
                )
                #expect(message.html.contains("href=\"\(universal.replacingOccurrences(of: "&", with: "&amp;"))\""))

                // iOS opens the app for this link, by the file this server serves.
                let (aasa, _) = try await URLSession.shared.data(
                    from: api.base.appendingPathComponent(".well-known/apple-app-site-association")
                )
                let decision = AASAMatcher(document: try JSONValue.parse(aasa)).decide(
                    appID: "ABCDE12345.com.example.demo",
                    url: universal
                )
                #expect(decision.verdict == .match, "\(decision.trace)")

                // Cold start, scene delegate: the device delivers the link, the app handles it once, when ready.
                var scenario = DeliveryScenario(lifecycle: .sceneDelegate, state: .notRunning, kind: .universalLink)
                scenario.readyAt = .afterEvents(2)
                let outcome = DeliverySimulator(scenario).run(.library, urls: [universal])
                #expect(outcome.violations.isEmpty, "\(outcome.violations)")
                #expect(outcome.handled == [universal])

                // The app model routes it with the shared table to its reset screen, every parameter intact.
                let handled = try #require(outcome.handled.first)
                guard case .resetPassword(let token, let email) = try DemoRoute.table.destination(for: handled) else {
                    Issue.record("\(handled) does not reach the reset screen")
                    return
                }
                // The address stays out of the link (spam filters flag it, proxies log it): the token names the account.
                #expect(email == nil)
                #expect(try await api.post("/v1/password-resets/verify", ["token": token]).status == 200)
                var confirm = ["token": token, "password": newPassword]
                confirm["email"] = email
                #expect(try await api.post("/v1/password-resets/confirm", confirm).status == 204)

                #expect(try await api.post("/v1/sessions", ["email": address, "password": oldPassword]).status == 401)
                #expect(try await api.post("/v1/sessions", ["email": address, "password": newPassword]).status == 201)
                #expect(
                    try await api.get("/v1/me", bearer: otherDevice).status == 401,
                    "the other sessions are revoked"
                )
                let notice = try await Self.waitForMessage(to: address, subject: "Your Demo password was changed")
                #expect(!notice.text.contains(token))
            }
        }
    }

    /// A message the SMTP server stored in its maildir, decoded.
    struct ReceivedMessage {
        var headers: [String: String]
        var text: String
        var html: String
    }

    static func waitForMessage(to address: String, subject: String, timeout: Duration = .seconds(20)) async throws
        -> ReceivedMessage
    {
        let deadline = ContinuousClock.now + timeout
        let folder = URL(fileURLWithPath: mailbox!).appendingPathComponent("new")
        while ContinuousClock.now < deadline {
            for file in (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil))
                ?? []
            {
                guard let raw = try? String(contentsOf: file, encoding: .utf8), let message = parse(raw),
                    message.headers["to"] == address, message.headers["subject"]?.hasPrefix(subject) == true
                else { continue }
                return message
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw JourneyError("no message to \(address) with subject \(subject) within \(timeout)")
    }

    /// Enough MIME for our own messages: headers, a multipart/alternative boundary, base64 parts.
    static func parse(_ raw: String) -> ReceivedMessage? {
        let lines = raw.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n")
        guard let blank = lines.firstIndex(of: "") else { return nil }
        var headers: [String: String] = [:]
        for line in lines[..<blank] {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces
            )
        }
        guard let type = headers["content-type"], let range = type.range(of: "boundary=\"") else { return nil }
        let boundary = String(type[range.upperBound...].prefix { $0 != "\"" })
        var parts: [String: String] = [:]
        for part in lines[blank...].joined(separator: "\n").components(separatedBy: "--\(boundary)") {
            let partLines = part.components(separatedBy: "\n").drop { $0.isEmpty }
            guard let contentType = partLines.first(where: { $0.lowercased().hasPrefix("content-type:") }),
                let bodyStart = partLines.firstIndex(of: "")
            else { continue }
            let encoded = partLines[bodyStart...].joined()
            guard let data = Data(base64Encoded: encoded), let body = String(data: data, encoding: .utf8) else {
                continue
            }
            parts[contentType.contains("text/html") ? "html" : "text"] = body
        }
        return ReceivedMessage(headers: headers, text: parts["text"] ?? "", html: parts["html"] ?? "")
    }
}

struct JourneyError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The demo app's API client, as the app would write it: URLSession and JSON.
struct DemoAppAPIClient: Sendable {
    let base: URL

    struct Reply {
        var status: Int
        var json: [String: Any]
    }

    func post(_ path: String, _ body: [String: String]) async throws -> Reply {
        var request = URLRequest(url: base.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        return try await send(request)
    }

    func get(_ path: String, bearer: String) async throws -> Reply {
        var request = URLRequest(url: base.appendingPathComponent(path))
        request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization")
        return try await send(request)
    }

    private func send(_ request: URLRequest) async throws -> Reply {
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return Reply(status: status, json: json)
    }
}
