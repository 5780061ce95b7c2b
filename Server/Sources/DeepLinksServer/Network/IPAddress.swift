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

    /// 127.0.0.0/8 or `::1`: this machine.
    var isLoopback: Bool {
        switch self {
        case .v4(let bytes): bytes[0] == 127
        case .v6(let bytes): bytes == Array(repeating: 0, count: 15) + [1]
        }
    }

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

    /// The address of a socket's peer, from its bytes: `sockaddr_in` holds it at bytes 4..<8, `sockaddr_in6` at
    /// 8..<24, after the family and port (and the flow label), on Linux and Darwin alike.
    init?(_ socket: SocketAddress) {
        switch socket {
        case .v4(let address):
            self = withUnsafeBytes(of: address.address) { .v4(Array($0[4..<8])) }
        case .v6(let address):
            let bytes = withUnsafeBytes(of: address.address) { Array($0[8..<24]) }
            if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                self = .v4(Array(bytes.suffix(4)))
            } else {
                self = .v6(bytes)
            }
        case .unixDomainSocket:
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
