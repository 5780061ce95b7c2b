import DeepLinksSupport
import Foundation

/// One message to send: a text part and an HTML part, to one recipient (the address stored with the account).
public struct OutgoingMail: Sendable, Codable, Equatable {
    public var to: String
    public var subject: String
    public var text: String
    public var html: String

    public init(to: String, subject: String, text: String, html: String) {
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
    }

    /// RFC 5322 with a `multipart/alternative` body, both parts base64 (any UTF-8, lines under 78 octets).
    ///
    /// Header values pass through ``headerValue(_:)``: CR, LF and other control characters are dropped,
    /// so nothing reaching a header can start another (L5); a non-ASCII subject is an RFC 2047 encoded word.
    public func rendered(from: String, date: Date, messageID: String) -> String {
        let boundary = "=_deeplinks_" + Base64URL.encode(SecureBytes.random(count: 12))
        var lines = [
            "From: \(Self.headerValue(from))",
            "To: \(IDNA.address(Self.headerValue(to)))",
            "Subject: \(Self.encodedWord(Self.headerValue(subject)))",
            "Date: \(Self.rfc5322Date(date))",
            "Message-ID: <\(Self.headerValue(messageID))>",
            "MIME-Version: 1.0",
            "Auto-Submitted: auto-generated",
            // Asks ESPs that honour it not to rewrite links for click tracking (L6).
            "X-SMTPAPI: {\"filters\":{\"clicktrack\":{\"settings\":{\"enable\":0}}}}",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
            "",
        ]
        for (type, body) in [("text/plain", text), ("text/html", html)] {
            lines += ["--\(boundary)", "Content-Type: \(type); charset=utf-8", "Content-Transfer-Encoding: base64", ""]
            lines += Self.base64Lines(body)
        }
        lines += ["--\(boundary)--", ""]
        return lines.joined(separator: "\r\n")
    }

    package static func headerValue(_ value: String) -> String {
        String(
            String.UnicodeScalarView(
                value.unicodeScalars.filter {
                    $0.properties.generalCategory != .control && $0 != "\u{2028}" && $0 != "\u{2029}"
                }
            )
        )
    }

    static func encodedWord(_ value: String) -> String {
        value.allSatisfy(\.isASCII) ? value : "=?UTF-8?B?\(Data(value.utf8).base64EncodedString())?="
    }

    static func base64Lines(_ body: String) -> [String] {
        let encoded = Data(body.utf8).base64EncodedString()
        return stride(from: 0, to: encoded.count, by: 76).map { start in
            let from = encoded.index(encoded.startIndex, offsetBy: start)
            return String(
                encoded[from..<(encoded.index(from, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex)]
            )
        }
    }

    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
