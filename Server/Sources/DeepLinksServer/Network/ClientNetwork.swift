import Foundation

/// The key a client's throttles use: an IPv4 address as it is, an IPv6 address by its /64 (one subscriber's
/// whole prefix, which they can rotate through freely), an IPv4-mapped IPv6 address as the IPv4 address.
enum ClientNetwork {
    static func key(_ address: String) -> String {
        guard let parsed = IPAddress(address) else { return address }
        switch parsed {
        case .v4: return parsed.description
        case .v6(let bytes):
            return IPAddress.v6(Array(bytes.prefix(8)) + Array(repeating: 0, count: 8)).description + "/64"
        }
    }
}
