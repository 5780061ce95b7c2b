import Foundation

/// An OS version as a rule compares it: major and minor (`17.4`, `26`).
package struct OSVersion: Sendable, Comparable, Hashable, Codable, CustomStringConvertible {
    package let major: Int
    package let minor: Int

    package init(major: Int, minor: Int = 0) {
        (self.major, self.minor) = (major, minor)
    }

    /// `17`, `17.4`, `17.4.1` (the patch is ignored); nil for anything else.
    package init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count),
            parts.allSatisfy({ (1...3).contains($0.count) && $0.allSatisfy(\.isASCIIDigit) }),
            let major = Int(parts[0])
        else { return nil }
        self.init(major: major, minor: parts.count > 1 ? Int(parts[1]) ?? 0 : 0)
    }

    package static func < (a: OSVersion, b: OSVersion) -> Bool { (a.major, a.minor) < (b.major, b.minor) }

    package var description: String { minor == 0 ? "\(major)" : "\(major).\(minor)" }

    package init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let version = OSVersion(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "a version such as 17 or 17.4")
            )
        }
        self = version
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
