import Crypto
@testable import DeepLinksMail
@testable import DeepLinksServer
import DeepLinksTestSupport
import Foundation
import Testing

/// DKIM on the way out: mail the server sends through a real SMTP server is signed, and dkimpy verifies it as it
/// arrived (the signer itself: `DeepLinksMailTests/DKIMTests`).
@Suite struct DKIMDeliveryTests {
    /// Through the real SMTP server: the From address is the envelope sender (SPF aligns, bounces reach it), and
    /// the message as it arrived verifies.
    @Test func mailSentThroughSMTPIsSignedForTheFromDomainAndSentFromIt() async throws {
        guard ResetJourneyTests.isAvailable else { return }
        let signer = DKIMSigner(
            key: .ed25519(Curve25519.Signing.PrivateKey()),
            domain: "acme-mail.example",
            selector: "s1"
        )
        let address = "dkim-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(
                {
                    $0.mail = try! MailURL(parsing: ResetJourneyTests.smtpURL!)
                    $0.mailFrom = "Acme <mailer@acme-mail.example>"
                    $0.dkim = signer
                },
                configuredMail: true
            ) { api in
                try await api.signUp(address, ResetTokenTests.password)
                try await api.requestReset(address)
                let folder = URL(fileURLWithPath: ResetJourneyTests.mailbox!).appendingPathComponent("new")
                var raw: String?
                for _ in 0..<200 where raw == nil {
                    for file
                        in (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil))
                        ?? []
                    {
                        if let text = try? String(contentsOf: file, encoding: .utf8), text.contains("To: \(address)") {
                            raw = text
                        }
                    }
                    if raw == nil { try await Task.sleep(for: .milliseconds(100)) }
                }
                let message = try #require(raw, "no message reached the SMTP server")
                #expect(
                    message.contains("X-MailFrom: mailer@acme-mail.example"),
                    "the envelope sender is the From address"
                )
                #expect(message.contains("d=acme-mail.example; s=s1;"))
                // Maildir stores LF line ends; the message went over the wire with CRLF.
                let wire = message.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(
                    of: "\n",
                    with: "\r\n"
                )
                guard let status = try DKIMVerifier.verify(wire, record: signer.dnsRecord) else { return }
                #expect(status == 0, "dkimpy verifies the message as it arrived")
            }
        }
    }
}
