@testable import DeepLinksMail
@testable import DeepLinksServer
import Foundation
import Testing

/// Mail to internationalized domains, through a real SMTP server without SMTPUTF8 (the conversion itself:
/// `DeepLinksMailTests/IDNATests`).
@Suite struct IDNADeliveryTests {
    /// Through the real SMTP server, which does not offer SMTPUTF8: the mail to `ada@bücher.example` arrives.
    @Test func mailToAnInternationalDomainIsDelivered() async throws {
        guard ResetJourneyTests.isAvailable else { return }
        let local = "idna-\(UUID().uuidString.prefix(8).lowercased())"
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve({ $0.mail = try! MailURL(parsing: ResetJourneyTests.smtpURL!) }, configuredMail: true)
            { api in
                try await api.signUp("\(local)@bücher.example", ResetTokenTests.password)
                try await api.requestReset("\(local)@bücher.example")
                let message = try await ResetJourneyTests.waitForMessage(
                    to: "\(local)@xn--bcher-kva.example",
                    subject: "Reset your"
                )
                #expect(ResetClient.token(in: message.text) != nil)
            }
        }
    }

    /// A local part that is not ASCII needs SMTPUTF8: sign-up says so when the configured relay lacks it (the
    /// test's aiosmtpd does), instead of accepting an address no mail will reach.
    @Test func signUpRefusesAnAddressTheRelayCannotDeliver() async throws {
        guard ResetJourneyTests.isAvailable else { return }
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve({ $0.mail = try! MailURL(parsing: ResetJourneyTests.smtpURL!) }, configuredMail: true)
            { api in
                let refused = try await api.post(
                    "/v1/accounts",
                    ResetClient.json(["email": "josé@example.com", "password": ResetTokenTests.password])
                )
                #expect(refused.status == .unprocessableContent)
                #expect(refused.text.contains("address_undeliverable"))
                try await api.signUp("jose@bücher.example", ResetTokenTests.password)  // the domain goes as IDNA
            }
        }
        // Mail to a folder delivers anything.
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in try await api.signUp("josé@example.com", ResetTokenTests.password) }
        }
    }
}
