import DeepLinksSupport
import Crypto
import CryptoExtras
import Foundation

/// Signs outgoing mail with DKIM (RFC 6376), relaxed/relaxed: `rsa-sha256` with an RSA key of 2048 bits or
/// more, or `ed25519-sha256` (RFC 8463). The receiving server finds the public key in DNS at
/// `SELECTOR._domainkey.DOMAIN` (TXT `v=DKIM1; k=rsa|ed25519; p=...`, printed by ``dnsRecord``).
public struct DKIMSigner: Sendable {
    public enum Key: Sendable {
        case rsa(_RSA.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
    }

    public let key: Key
    /// The signing domain (`d=`): the From address's domain, for DMARC alignment.
    public let domain: String
    public let selector: String
    /// The header fields signed, in this order (each present in every message the server renders).
    static let signedHeaders = ["from", "to", "subject", "date", "message-id", "mime-version", "content-type"]

    public init(key: Key, domain: String, selector: String) {
        self.key = key
        self.domain = domain
        self.selector = selector
    }

    /// A private key in PEM (PKCS#1 or PKCS#8 RSA, or a PKCS#8 Ed25519 key), as `openssl genpkey` writes it.
    public init(pem: String, domain: String, selector: String) throws(ConfigurationError) {
        let key: Key
        if let rsa = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) {
            key = .rsa(rsa)
        } else if let ed25519 = try? Curve25519.Signing.PrivateKey(pemRepresentation: pem) {
            key = .ed25519(ed25519)
        } else {
            throw ConfigurationError(
                setting: "DKIM key",
                reason: "is neither an RSA key of 2048 bits or more nor an Ed25519 key in PEM"
            )
        }
        guard HostName.problem(domain) == nil else {
            throw ConfigurationError(setting: "DKIM domain", reason: "'\(domain)' is not a host name")
        }
        guard !selector.isEmpty,
            selector.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") })
        else {
            throw ConfigurationError(
                setting: "DKIM selector",
                reason: "'\(selector)' is not a selector (letters, digits, '-', '.')"
            )
        }
        self.init(key: key, domain: domain, selector: selector)
    }

    /// The DNS TXT record that publishes the public key.
    public var dnsRecord: String {
        switch key {
        case .rsa(let key):
            // `p=` is the SubjectPublicKeyInfo, base64, as RFC 6376 specifies for k=rsa.
            "v=DKIM1; k=rsa; p=" + key.publicKey.derRepresentation.base64EncodedString()
        case .ed25519(let key):
            "v=DKIM1; k=ed25519; p=" + key.publicKey.rawRepresentation.base64EncodedString()
        }
    }

    /// `message` (CRLF line ends, headers then a blank line then the body) with a DKIM-Signature header first.
    public func sign(_ message: String, at time: Date) throws -> String {
        guard let split = message.range(of: "\r\n\r\n") else { return message }
        let header = String(message[..<split.lowerBound])
        let body = String(message[split.upperBound...])
        let fields = Self.fields(header)
        let bodyHash = Data(SHA256.hash(data: Data(Self.relaxedBody(body).utf8))).base64EncodedString()
        let algorithm = if case .rsa = key { "rsa-sha256" } else { "ed25519-sha256" }
        let signed = Self.signedHeaders.filter { name in fields.contains { $0.name == name } }
        // One tag a line: every line of the header stays under 78 characters.
        let value = [
            "v=1; a=\(algorithm); c=relaxed/relaxed;",
            "d=\(domain); s=\(selector); t=\(Int(time.timeIntervalSince1970));",
            "h=\(signed.joined(separator: ":"));", "bh=\(bodyHash);", "b=",
        ].joined(separator: "\r\n\t")
        // The signed data: each signed field (the last of its name, RFC 6376 5.4.2), then this header with an
        // empty b=, relaxed, the last without its CRLF.
        var data = ""
        for name in signed {
            if let field = fields.last(where: { $0.name == name }) {
                data += Self.relaxedHeader(name, field.value) + "\r\n"
            }
        }
        data += Self.relaxedHeader("dkim-signature", value)
        let digest = SHA256.hash(data: Data(data.utf8))
        let signature: Data =
            switch key {
            case .rsa(let key): try key.signature(for: digest, padding: .insecurePKCS1v1_5).rawRepresentation
            // RFC 8463: Ed25519 (pure) over the SHA-256 hash.
            case .ed25519(let key): try key.signature(for: Data(digest))
            }
        let encoded = signature.base64EncodedString()
        // Folded every 72 characters: whitespace inside b= is ignored by verifiers, and lines stay short.
        let folded = stride(from: 0, to: encoded.count, by: 72).map { start -> String in
            let from = encoded.index(encoded.startIndex, offsetBy: start)
            return String(
                encoded[from..<(encoded.index(from, offsetBy: 72, limitedBy: encoded.endIndex) ?? encoded.endIndex)]
            )
        }.joined(separator: "\r\n\t")
        return "DKIM-Signature: " + value + folded + "\r\n" + message
    }

    /// The header's fields, unfolded names lower-cased, values as written (folding kept).
    static func fields(_ header: String) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for line in header.components(separatedBy: "\r\n") {
            if line.first == " " || line.first == "\t", !fields.isEmpty {
                fields[fields.count - 1].value += "\r\n" + line
            } else if let colon = line.firstIndex(of: ":") {
                fields.append(
                    (
                        line[..<colon].trimmingCharacters(in: .whitespaces).lowercased(),
                        String(line[line.index(after: colon)...])
                    )
                )
            }
        }
        return fields
    }

    /// RFC 6376 3.4.2: the name lower-cased, the value unfolded, runs of whitespace one space, none at the ends.
    static func relaxedHeader(_ name: String, _ value: String) -> String {
        let unfolded = value.replacingOccurrences(of: "\r\n", with: "")
        return name + ":" + collapse(unfolded).trimmingCharacters(in: .whitespaces)
    }

    /// RFC 6376 3.4.4: runs of whitespace one space, none at line ends, no empty lines at the end, one CRLF.
    static func relaxedBody(_ body: String) -> String {
        var lines = body.components(separatedBy: "\r\n").map { line -> String in
            var collapsed = collapse(line)
            while collapsed.last == " " { collapsed.removeLast() }
            return collapsed
        }
        while lines.last == "" { lines.removeLast() }
        return lines.isEmpty ? "" : lines.joined(separator: "\r\n") + "\r\n"
    }

    private static func collapse(_ text: String) -> String {
        var result = ""
        var inSpace = false
        for character in text {
            if character == " " || character == "\t" {
                if !inSpace { result.append(" ") }
                inSpace = true
            } else {
                result.append(character)
                inSpace = false
            }
        }
        return result
    }
}
