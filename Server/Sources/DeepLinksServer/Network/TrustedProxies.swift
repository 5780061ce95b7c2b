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

    /// Whether the TCP peer is one of the proxies, read from the socket address (no text made and parsed).
    func trusts(peer: SocketAddress?) -> Bool {
        guard !networks.isEmpty, let peer, let address = IPAddress(peer) else { return false }
        return trusts(address)
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
        let hops = headers[values: Self.forwardedFor].flatMap {
            $0.split(separator: ",", omittingEmptySubsequences: false)
        }
        .map { $0.trimmingCharacters(in: .whitespaces) }
        // The rightmost hop the trusted proxies did not add. One that is not an address (an empty one too: a header
        // of `,` or nothing) is the client's claim, not the proxy's: the request comes from an unknown client, never
        // from the trusted proxy itself. Without the header, the request is the proxy's own.
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
