import Foundation

/// Lower-case hexadecimal, two digits a byte: stored digests, ETags, hook signatures.
package enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]] }
        return String(decoding: text, as: UTF8.self)
    }
}
