/// A URL split the way the matcher compares it (§15): scheme and host lower-cased, path, query and fragment
/// kept as written (percent-encoded). Non-ASCII characters are percent-encoded as UTF-8 first (U4).
struct AASAURL: Sendable, Hashable {
    var scheme: String
    var host: String
    var port: Int?
    var path: String
    var query: String?
    var fragment: String?

    init?(_ string: String) {
        var text = Self.encodeNonASCII(string)
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[text.index(after: hash)...])
            text = String(text[..<hash])
        }
        if let question = text.firstIndex(of: "?") {
            query = String(text[text.index(after: question)...])
            text = String(text[..<question])
        }
        guard let colon = text.firstIndex(of: ":"), text[text.index(after: colon)...].hasPrefix("//") else {
            return nil
        }
        scheme = text[..<colon].lowercased()
        let rest = text[text.index(colon, offsetBy: 3)...]
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        // U3: userinfo ignored
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if let portColon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            port = Int(authority[authority.index(after: portColon)...])
            authority = authority[..<portColon]
        }
        host = authority.lowercased()
        path = String(rest[authorityEnd...])
    }

    static func encodeNonASCII(_ text: String) -> String {
        guard !text.utf8.allSatisfy({ $0 < 0x80 }) else { return text }
        var output = ""
        for byte in text.utf8 {
            if byte < 0x80 {
                output.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                output += "%" + String(byte, radix: 16, uppercase: true)
            }
        }
        return output
    }

    /// Percent-decodes as UTF-8 for `percentEncoded: false` (PE3, PE5): `+` stays, invalid escapes stay as written.
    static func decode(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
                let value = UInt8(String(decoding: utf8[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
