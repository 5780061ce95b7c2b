import DeepLinksSupport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A network: an address and a prefix length (`10.0.0.0/8`, `fd00::/8`); a bare address is a network of one.
struct IPNetwork: Sendable, Hashable {
    let address: IPAddress
    let prefixLength: Int

    /// - Throws: ``ConfigurationError`` naming the entry and why it is refused.
    init(parsing entry: String) throws(ConfigurationError) {
        let parts = entry.trimmingCharacters(in: .whitespaces).split(
            separator: "/",
            maxSplits: 1,
            omittingEmptySubsequences: false
        )
        guard let address = IPAddress(parts[0]) else {
            throw ConfigurationError(
                setting: "trusted proxies",
                reason: "'\(entry)' is not an IP address or a CIDR network (10.0.0.0/8, fd00::/8)"
            )
        }
        let bits = address.bytes.count * 8
        // A mapped IPv6 network (`::ffff:10.0.0.0/104`) counts in IPv6 bits; parsed, it is IPv4.
        let mapped = parts[0].contains(":") && bits == 32
        var length = bits
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...(mapped ? 128 : bits)).contains(given), !(mapped && given < 96) else {
                throw ConfigurationError(
                    setting: "trusted proxies",
                    reason: "'\(entry)' has a prefix length outside 0 to \(mapped ? 128 : bits)"
                )
            }
            length = mapped ? given - 96 : given
        }
        self.address = address
        self.prefixLength = length
    }

    func contains(_ other: IPAddress) -> Bool {
        let mine = address.bytes
        let theirs = other.bytes
        guard mine.count == theirs.count else { return false }
        var remaining = prefixLength
        for index in mine.indices where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if mine[index] & mask != theirs[index] & mask { return false }
            remaining -= 8
        }
        return true
    }
}
