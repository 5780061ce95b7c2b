import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// Which address a request comes from, for throttles and audit: the TCP peer, unless the peer is a
/// trusted proxy, in which case the rightmost `X-Forwarded-For` entry that is not itself trusted (R5).
/// A forwarded header from any other peer is ignored, so a client cannot choose its own bucket.
public struct TrustedProxies: Sendable, Equatable {
    public var addresses: Set<String>

    public init(_ addresses: [String] = []) {
        self.addresses = Set(addresses)
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    func clientAddress(peer: SocketAddress?, headers: HTTPFields) -> String {
        guard let peerIP = peer?.ipAddress else { return "unknown" }
        guard addresses.contains(peerIP) else { return peerIP }
        let hops = headers[values: Self.forwardedFor].flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        return hops.last { !addresses.contains($0) && !$0.isEmpty } ?? peerIP
    }
}

/// Token buckets by key (an IP address, say), in memory: `capacity` requests at once, refilled at `perMinute`.
final class RateLimiter: Sendable {
    let capacity: Double
    let perMinute: Double
    private let state = Mutex<[String: (tokens: Double, at: Int64)]>([:])

    init(capacity: Int, perMinute: Int) {
        self.capacity = Double(capacity)
        self.perMinute = Double(perMinute)
    }

    /// Takes a token for `key`; returns nil when allowed, or the seconds to wait.
    func take(_ key: String, now: Int64) -> Int? {
        state.withLock { buckets in
            if buckets.count > 100_000 { buckets.removeAll(keepingCapacity: true) }
            var bucket = buckets[key] ?? (capacity, now)
            bucket.tokens = min(capacity, bucket.tokens + Double(now - bucket.at) / 60_000 * perMinute)
            bucket.at = now
            defer { buckets[key] = bucket }
            guard bucket.tokens >= 1 else {
                return Int(((1 - bucket.tokens) / perMinute * 60).rounded(.up))
            }
            bucket.tokens -= 1
            return nil
        }
    }
}
