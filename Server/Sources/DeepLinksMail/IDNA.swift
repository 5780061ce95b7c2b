import Foundation

/// Internationalized domain names on the wire: an address's domain as ASCII (`bücher.example` as
/// `xn--bcher-kva.example`, RFC 3492 Punycode after NFKC and lower-casing), so that a relay without SMTPUTF8
/// delivers it; only a non-ASCII local part still needs SMTPUTF8.
enum IDNA {
    /// `address` with its domain in ASCII; the local part untouched.
    static func address(_ address: String) -> String {
        guard let at = address.lastIndex(of: "@") else { return address }
        return String(address[..<at]) + "@" + domain(String(address[address.index(after: at)...]))
    }

    /// Each label: as it is when ASCII (lower-cased), else `xn--` and its Punycode.
    static func domain(_ domain: String) -> String {
        domain.split(separator: ".", omittingEmptySubsequences: false).map { label -> String in
            let folded = String(label).precomposedStringWithCompatibilityMapping.lowercased()
            return folded.allSatisfy(\.isASCII) ? folded : "xn--" + punycode(folded)
        }.joined(separator: ".")
    }

    /// RFC 3492's encoder, for one label (short: the arithmetic cannot overflow).
    static func punycode(_ input: String) -> String {
        let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700
        let points = input.unicodeScalars.map { Int($0.value) }
        var output = String(String.UnicodeScalarView(input.unicodeScalars.filter(\.isASCII)))
        let basic = output.unicodeScalars.count
        if basic > 0 { output += "-" }
        func digit(_ value: Int) -> Character {
            Character(Unicode.Scalar(UInt8(value < 26 ? value + 97 : value - 26 + 48)))
        }
        func adapt(_ delta: Int, _ count: Int, _ first: Bool) -> Int {
            var delta = first ? delta / damp : delta / 2
            delta += delta / count
            var k = 0
            while delta > ((base - tMin) * tMax) / 2 {
                delta /= base - tMin
                k += base
            }
            return k + (base - tMin + 1) * delta / (delta + skew)
        }
        var n = 128
        var delta = 0
        var bias = 72
        var handled = basic
        while handled < points.count {
            let next = points.filter { $0 >= n }.min() ?? n
            delta += (next - n) * (handled + 1)
            n = next
            for point in points {
                if point < n { delta += 1 }
                guard point == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, handled + 1, handled == basic)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return output
    }
}
