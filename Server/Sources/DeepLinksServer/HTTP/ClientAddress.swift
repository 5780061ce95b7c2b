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

/// An IP address, parsed (`inet_pton`): an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is the IPv4 address.
enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    case v4([UInt8])
    case v6([UInt8])

    init?(_ text: some StringProtocol) {
        var text = String(text)
        // A zone (`fe80::1%eth0`) names an interface, not an address.
        if let percent = text.firstIndex(of: "%") { text = String(text[..<percent]) }
        // Byte buffers rather than `in_addr`/`in6_addr`: what inet_pton writes is the address in network order.
        var v4 = [UInt8](repeating: 0, count: 4)
        var v6 = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET, text, &v4) == 1 {
            self = .v4(v4)
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            let bytes = v6
            if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                self = .v4(Array(bytes.suffix(4)))
            } else {
                self = .v6(bytes)
            }
        } else {
            return nil
        }
    }

    var bytes: [UInt8] {
        switch self {
        case .v4(let bytes), .v6(let bytes): bytes
        }
    }

    /// The canonical text: dotted quad, or RFC 5952's compressed IPv6 form.
    var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var bytes = bytes
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        guard inet_ntop(family, &bytes, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

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

/// Which address a request comes from, for throttles and audit: the TCP peer, unless the peer is a
/// trusted proxy, in which case the rightmost `X-Forwarded-For` entry that is not itself trusted (R5).
/// A forwarded header from any other peer is ignored, so a client cannot choose its own bucket.
///
/// Entries are addresses or CIDR networks, compared as parsed addresses: `::ffff:127.0.0.1` is `127.0.0.1`.
/// An entry that is neither is refused when the server starts.
public struct TrustedProxies: Sendable, Equatable {
    let networks: [IPNetwork]

    /// No proxy: every request's address is its TCP peer's.
    public init() {
        networks = []
    }

    public init(_ entries: [String]) throws(ConfigurationError) {
        var networks: [IPNetwork] = []
        for entry in entries { networks.append(try IPNetwork(parsing: entry)) }
        self.networks = networks
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    func trusts(_ address: String) -> Bool {
        guard let parsed = IPAddress(address) else { return false }
        return trusts(parsed)
    }

    private func trusts(_ address: IPAddress) -> Bool {
        networks.contains { $0.contains(address) }
    }

    /// The address of a request whose forwarded hop is no address (`garbage`): never trusted, never a proxy's,
    /// and one throttle bucket for all such requests (a client cannot pick a fresh bucket by writing a new text).
    static let unknownClient = "unknown"

    func clientAddress(peer: SocketAddress?, headers: HTTPFields) -> String {
        guard let peerIP = peer?.ipAddress else { return Self.unknownClient }
        let peerText = IPAddress(peerIP)?.description ?? peerIP
        guard trusts(peerIP) else { return peerText }
        let hops = headers[values: Self.forwardedFor].flatMap { $0.split(separator: ",") }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        // The rightmost hop the trusted proxies did not add. One that is not an address is the client's claim, not
        // the proxy's: the request comes from an unknown client, never from the trusted proxy itself.
        for hop in hops.reversed() {
            guard let address = Self.hopAddress(hop) else { return Self.unknownClient }
            if !trusts(address) { return address.description }
        }
        return peerText
    }

    /// A hop as proxies write it: an address, `203.0.113.7:41234`, `[2001:db8::1]` or `[2001:db8::1]:41234`.
    static func hopAddress(_ hop: String) -> IPAddress? {
        func isPort(_ text: Substring) -> Bool {
            (1...5).contains(text.count) && text.allSatisfy(\.isASCII) && UInt16(text) != nil
        }
        if hop.hasPrefix("[") {
            guard let close = hop.firstIndex(of: "]"),
                case .v6 = IPAddress(hop[hop.index(after: hop.startIndex)..<close])
            else { return nil }
            let rest = hop[hop.index(after: close)...]
            guard rest.isEmpty || (rest.first == ":" && isPort(rest.dropFirst())) else { return nil }
            return IPAddress(hop[hop.index(after: hop.startIndex)..<close])
        }
        let parts = hop.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard case .v4 = IPAddress(parts[0]), isPort(parts[1]) else { return nil }
            return IPAddress(parts[0])
        }
        return IPAddress(hop)
    }
}
