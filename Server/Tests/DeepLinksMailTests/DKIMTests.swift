import Crypto
import CryptoExtras
@testable import DeepLinksMail
import DeepLinksSupport
import DeepLinksTestSupport
import Foundation
import Testing

/// DKIM signatures checked by dkimpy (PyPI), a verifier nobody on the project wrote, with its DNS lookup
/// answered from the signer's own record.
@Suite struct DKIMTests {
    static let mail = OutgoingMail(
        to: "ada+tag@example.com",
        subject: "Réinitialisez votre mot de passe",
        text: "Open this link:  \nhttps://links.example.com/reset-password#token=abc\n\n\n",
        html: "<p>Open <a href=\"https://links.example.com/reset-password#token=abc\">this link</a>.</p>"
    )

    static func verify(_ message: String, record: String) throws -> Int32? {
        try DKIMVerifier.verify(message, record: record)
    }

    @Test(arguments: ["rsa", "ed25519"])
    func aSignedMessageVerifiesAndATamperedOneDoesNot(_ kind: String) throws {
        let key: DKIMSigner.Key =
            kind == "rsa"
            ? .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048)) : .ed25519(Curve25519.Signing.PrivateKey())
        let signer = DKIMSigner(key: key, domain: "links.example.com", selector: "deeplinks")
        let date = Date(timeIntervalSince1970: 1_790_000_000)
        let rendered = Self.mail.rendered(
            from: "Demo <no-reply@links.example.com>",
            date: date,
            messageID: "id@links.example.com"
        )
        let signed = try signer.sign(rendered, at: date)
        #expect(
            signed.hasPrefix(
                "DKIM-Signature: v=1; a=\(kind)-sha256; c=relaxed/relaxed;\r\n\td=links.example.com; s=deeplinks; t="
            )
        )
        let header = try #require(signed.components(separatedBy: "\r\nFrom: ").first)
        #expect(
            header.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 78 },
            "every line short: \(header)"
        )
        guard let status = try Self.verify(signed, record: signer.dnsRecord) else { return }
        #expect(status == 0, "dkimpy verifies the \(kind) signature")
        // A changed subject, or a changed body, breaks it.
        let subject = signed.replacingOccurrences(of: "Subject: =?UTF-8?B?", with: "Subject: =?UTF-8?B?QQ")
        #expect(try Self.verify(subject, record: signer.dnsRecord) == 1)
        let lines = signed.components(separatedBy: "\r\n")
        let bodyLine = try #require(lines.lastIndex { $0.count == 76 })
        var tampered = lines
        tampered[bodyLine] = String(tampered[bodyLine].reversed())
        #expect(try Self.verify(tampered.joined(separator: "\r\n"), record: signer.dnsRecord) == 1)
        // Another key's record does not verify it.
        let other = DKIMSigner(
            key: .ed25519(Curve25519.Signing.PrivateKey()),
            domain: "links.example.com",
            selector: "deeplinks"
        )
        #expect(try Self.verify(signed, record: other.dnsRecord) == 1)
    }

    @Test func relaxedCanonicalizationFollowsRFC6376() {
        #expect(DKIMSigner.relaxedHeader("subject", " Hello \r\n\t  World  ") == "subject:Hello World")
        #expect(DKIMSigner.relaxedBody("a  b \r\nc\t\r\n\r\n\r\n") == "a b\r\nc\r\n")
        #expect(DKIMSigner.relaxedBody("\r\n\r\n") == "")
    }

    @Test func aKeyThatIsNotOneIsRefused() throws {
        #expect(
            throws: ConfigurationError(
                setting: "DKIM key",
                reason: "is neither an RSA key of 2048 bits or more nor an Ed25519 key in PEM"
            )
        ) {
            _ = try DKIMSigner(
                pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
                domain: "example.com",
                selector: "s"
            )
        }
        let small = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024)).pemRepresentation
        #expect(throws: ConfigurationError.self) {
            _ = try DKIMSigner(pem: small, domain: "example.com", selector: "s")
        }
        let good = Curve25519.Signing.PrivateKey().pemRepresentation
        #expect(
            throws: ConfigurationError(
                setting: "DKIM selector",
                reason: "'a b' is not a selector (letters, digits, '-', '.')"
            )
        ) {
            _ = try DKIMSigner(pem: good, domain: "example.com", selector: "a b")
        }
        #expect(
            try DKIMSigner(pem: good, domain: "example.com", selector: "2026").dnsRecord.hasPrefix(
                "v=DKIM1; k=ed25519; p="
            )
        )
    }
}
