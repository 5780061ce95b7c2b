@testable import DeepLinksServer
import Foundation
import SQLKit
import Testing

@Suite struct MailDeliveryTests {
    static let email = ResetTokenTests.email
    static let password = ResetTokenTests.password

    @Test(arguments: TestDatabase.allCases)
    func noMailIsLostWhileTheSMTPServerIsDown(_ kind: TestDatabase) async throws {
        guard ResetJourneyTests.isAvailable else { return }
        let address = "outbox-\(kind)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await ResetWorld.with(kind) { world in
            // Port 9 (discard) on loopback: nothing listens, the connection is refused.
            try await world.serve({ $0.mail = try! MailURL(parsing: "smtp://127.0.0.1:9") }, configuredMail: true) { api in
                try await api.signUp(address, Self.password)
                try await api.requestReset(address)
                let deadline = ContinuousClock.now + .seconds(10)
                var row: (any SQLRow)?
                while ContinuousClock.now < deadline {
                    row = try await world.sql("SELECT attempts, sent_at, last_error, next_attempt_at FROM mail_outbox").first
                    if try row?.decode(column: "attempts", as: Int.self) ?? 0 >= 1 { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                let failed = try #require(row)
                #expect(try failed.decode(column: "attempts", as: Int.self) == 1)
                #expect(try failed.decode(column: "sent_at", as: Int64?.self) == nil)
                let reason = try #require(try failed.decode(column: "last_error", as: String?.self))
                #expect(reason.contains("127.0.0.1:9"), "\(reason)")
            }
            // The SMTP server is back (and the server restarted): after the backoff, the message goes out.
            world.clock.advance(seconds: 60)
            try await world.serve({ $0.mail = try! MailURL(parsing: ResetJourneyTests.smtpURL!) }, configuredMail: true) { _ in
                let message = try await ResetJourneyTests.waitForMessage(to: address, subject: "Reset your")
                #expect(ResetClient.token(in: message.text) != nil)
                // The row is marked once the SMTP server has answered: wait for that write too.
                var sent: (any SQLRow)?
                for _ in 0..<100 {
                    sent = try await world.sql("SELECT sent_at, sealed_message FROM mail_outbox").first
                    if try sent?.decode(column: "sent_at", as: Int64?.self) != nil { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(try sent?.decode(column: "sent_at", as: Int64?.self) != nil)
                #expect(try sent?.decode(column: "sealed_message", as: String.self) == "", "a sent message's body is erased")
            }
        }
    }

    @Test func credentialsAreNeverSentWithoutTLS() async throws {
        guard ResetJourneyTests.isAvailable else { return }
        guard case .smtp(var settings) = try MailURL(parsing: ResetJourneyTests.smtpURL!) else { return }
        settings.username = "mailer"
        settings.password = "hunter2-secret"
        let transport = SMTPTransport(settings: settings, heloName: "links.example.com")
        let mail = OutgoingMail(to: "ada@example.com", subject: "s", text: "t", html: "h")
        do {
            try await transport.deliver(mail, rendered: mail.rendered(from: "a@b.c", date: Date(), messageID: "x@y"))
            Issue.record("the message was sent with credentials over a plain connection")
        } catch let error as MailDeliveryError {
            #expect(error.isPermanent)
            #expect(error.reason.contains("never sent in the clear"))
            #expect(!error.reason.contains("hunter2"))
        }
    }

    @Test func theFolderTransportWritesOneCompleteFilePerMessage() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let transport = FolderMailTransport(folder: folder.path)
        let mail = OutgoingMail(to: "ada@example.com", subject: "Réinitialiser", text: "café ☕", html: "<p>café</p>")
        for _ in 0..<3 {
            try await transport.deliver(mail, rendered: mail.rendered(from: "Demo <no-reply@links.example.com>", date: Date(), messageID: "id@links.example.com"))
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".eml") }
        #expect(files.count == 3)
        let raw = try String(contentsOf: folder.appendingPathComponent(files[0]), encoding: .utf8)
        let parsed = try #require(ResetJourneyTests.parse(raw))
        #expect(parsed.text == "café ☕")
        #expect(parsed.headers["subject"] == "=?UTF-8?B?\(Data("Réinitialiser".utf8).base64EncodedString())?=")
        // A folder that cannot be created is a delivery error, with the reason.
        let blocked = FolderMailTransport(folder: "/proc/deeplinks-mail")
        await #expect(throws: MailDeliveryError.self) { try await blocked.deliver(mail, rendered: "x") }
    }
}
