/// Both sides of the URL policy's escapes. Printing: everything outside RFC 3986's unreserved set
/// (`A-Z a-z 0-9 - . _ ~`) is percent-encoded, so `+` prints as `%2B`, `@` as `%40`, `/` as `%2F`. Reading:
/// ``decode(_:limits:)``, the decoder ``LinkURL`` uses for every component.
public enum PercentEncoding {
    /// `text` percent-decoded exactly once (`+` stays a plus sign), refused as ``LinkURL`` refuses a
    /// component: an invalid escape, a control character or NUL (raw or decoded), bytes that are not UTF-8,
    /// or a result over `limits.maxValueLength`.
    public static func decode(_ text: some StringProtocol, limits: URLLimits = .default) throws(URLDiagnostic)
        -> String
    {
        var text = String(text)
        do {
            return try text.withUTF8 { bytes in
                let parser = URLParser(bytes: bytes, limits: limits)
                if let control = bytes.firstIndex(where: { $0 < 0x20 || $0 == 0x7F }) {
                    throw URLDiagnostic(.controlCharacter, .url, at: control, "a control character")
                }
                return try parser.decode(0, bytes.count, .url)
            }
        } catch {
            throw error as! URLDiagnostic  // decode throws nothing else; withUTF8 only rethrows untyped
        }
    }

    public static func encode(_ string: String) -> String {
        // Most texts need no escape: return them whole.
        if string.utf8.allSatisfy(isUnreserved) { return string }
        var output: [UInt8] = []
        output.reserveCapacity(string.utf8.count + 16)
        append(string, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends `text`'s bytes to `output`, encoded: the printer writes a URL into one buffer this way.
    static func append(_ text: some StringProtocol, to output: inout [UInt8]) {
        for byte in text.utf8 {
            if isUnreserved(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0xF)])
            }
        }
    }

    @inline(__always)
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
}
