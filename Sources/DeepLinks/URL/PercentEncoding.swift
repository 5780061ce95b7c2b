/// Printing side of the URL policy: everything outside RFC 3986's unreserved set
/// (`A-Z a-z 0-9 - . _ ~`) is percent-encoded, so `+` prints as `%2B`, `@` as `%40`, `/` as `%2F`.
public enum PercentEncoding {
    public static func encode(_ string: String) -> String {
        var output = ""
        output.reserveCapacity(string.utf8.count)
        append(string, to: &output)
        return output
    }

    /// Appends `text` to `output`, encoded: the printer builds a URL in one string this way.
    static func append(_ text: some StringProtocol, to output: inout String) {
        // Most values need no escape: append them whole.
        if text.utf8.allSatisfy(isUnreserved) {
            output += text
            return
        }
        for byte in text.utf8 {
            if isUnreserved(byte) {
                output.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                output.unicodeScalars.append("%")
                output.unicodeScalars.append(Unicode.Scalar(hexDigits[Int(byte >> 4)]))
                output.unicodeScalars.append(Unicode.Scalar(hexDigits[Int(byte & 0xF)]))
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
