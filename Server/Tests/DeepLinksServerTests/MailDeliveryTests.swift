@testable import DeepLinksMail
@testable import DeepLinksServer
import DeepLinksTestSupport
import Foundation
import NIOSSL
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
            try await world.serve({ $0.mail = try! MailURL(parsing: "smtp://127.0.0.1:9") }, configuredMail: true) {
                api in
                try await api.signUp(address, Self.password)
                try await api.requestReset(address)
                let deadline = ContinuousClock.now + .seconds(10)
                var row: (any SQLRow)?
                while ContinuousClock.now < deadline {
                    row = try await world.sql("SELECT attempts, sent_at, last_error, next_attempt_at FROM mail_outbox")
                        .first
                    if try row?.decode(column: "last_error", as: String?.self) != nil { break }
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
            try await world.serve({ $0.mail = try! MailURL(parsing: ResetJourneyTests.smtpURL!) }, configuredMail: true)
            { _ in
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
                #expect(
                    try sent?.decode(column: "sealed_message", as: String.self) == "",
                    "a sent message's body is erased"
                )
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
            #expect(!error.isPermanent, "a configuration to fix, not a message to drop")
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
            try await transport.deliver(
                mail,
                rendered: mail.rendered(
                    from: "Demo <no-reply@links.example.com>",
                    date: Date(),
                    messageID: "id@links.example.com"
                )
            )
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

/// The SMTP transport against a real aiosmtpd with TLS and AUTH (Tests/Support/smtp_tls_server.py).
@Suite struct SMTPTLSTests {
    @Test func startTLSAndImplicitTLSDeliverWithAuthAndRefuseWhatTheyShould() async throws {
        guard ResetJourneyTests.isAvailable else { return }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support/smtp_tls_server.py")
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", script.path, folder.path]
        let input = Pipe(), output = Pipe()
        server.standardInput = input
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            try? input.fileHandleForWriting.close()
            server.waitUntilExit()
        }
        let reader = output.fileHandleForReading
        let line = await Task.detached {
            var text = ""
            while !text.contains("\n") {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }.value
        let ports = line.split(whereSeparator: \.isWhitespace).dropFirst().compactMap { Int($0) }
        try #require(ports.count == 2, "the SMTP server did not start: \(line)")
        let trusted = try NIOSSLCertificate.fromPEMFile(folder.appendingPathComponent("cert.pem").path)

        func transport(port: Int, implicitTLS: Bool, password: String = "s3cret pass", trust: Bool = true)
            -> SMTPTransport
        {
            var transport = SMTPTransport(
                settings: .init(
                    host: "localhost",
                    port: port,
                    implicitTLS: implicitTLS,
                    username: "mailer",
                    password: password
                ),
                heloName: "links.example.com"
            )
            if trust { transport.tlsConfiguration.trustRoots = .certificates(trusted) }
            return transport
        }
        func send(_ transport: SMTPTransport, to address: String) async throws {
            let mail = OutgoingMail(to: address, subject: "TLS", text: "hello", html: "<p>hello</p>")
            try await transport.deliver(
                mail,
                rendered: mail.rendered(
                    from: "Demo <no-reply@links.example.com>",
                    date: Date(),
                    messageID: "tls@links.example.com"
                )
            )
        }

        for (port, implicitTLS) in [(ports[0], false), (ports[1], true)] {
            let address = "tls-\(implicitTLS ? "smtps" : "starttls")@example.com"
            try await send(transport(port: port, implicitTLS: implicitTLS), to: address)
            let stored = try FileManager.default.contentsOfDirectory(
                atPath: folder.appendingPathComponent("mailbox/new").path
            )
            let recipients = try stored.map {
                try String(contentsOf: folder.appendingPathComponent("mailbox/new/\($0)"), encoding: .utf8)
            }
            #expect(
                recipients.contains { $0.contains("To: \(address)") },
                "\(implicitTLS ? "smtps" : "STARTTLS") delivered"
            )

            // A wrong password is the relay's configuration, not the recipient's: retried (an operator fixes
            // the password and the message goes), and the reason does not repeat it.
            do {
                try await send(transport(port: port, implicitTLS: implicitTLS, password: "wrong horse"), to: address)
                Issue.record("a wrong password was accepted")
            } catch let error as MailDeliveryError {
                #expect(!error.isPermanent, "\(error)")
                #expect(!error.reason.contains("wrong horse"))
            }
            // A certificate nobody vouches for is refused before anything is sent; a retry may help later.
            do {
                try await send(transport(port: port, implicitTLS: implicitTLS, trust: false), to: address)
                Issue.record("an untrusted certificate was accepted")
            } catch let error as MailDeliveryError {
                #expect(!error.isPermanent)
                #expect(error.reason.contains("TLS"), "\(error)")
            }
        }
    }
}
