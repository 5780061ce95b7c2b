import NIOCore
import NIOHTTPTypes
import Synchronization

/// At most `perPeer` open connections from one client address (its IPv6 /64), so one client holding
/// connections open (a slow-header flood) cannot take every file descriptor and starve `/healthz`; trusted
/// proxies are exempt (every client behind them shares their address). A connection over the cap is closed
/// as soon as it opens.
///
/// The other half is Hummingbird's idle timeout, which the server sets (``ServerSettings/idleTimeoutSeconds``):
/// it counts from the connection's start, or the last response, to the next request's complete head, so a
/// client that sends its header a byte at a time is closed all the same.
final class ConnectionLimiter: Sendable {
    let perPeer: Int
    let proxies: TrustedProxies
    private let open = Mutex<[String: Int]>([:])

    init(perPeer: Int, proxies: TrustedProxies) {
        self.perPeer = perPeer
        self.proxies = proxies
    }

    /// A handler for one connection's pipeline.
    func handler() -> any RemovableChannelHandler {
        Handler(limiter: self)
    }

    /// The key a connection from `address` counts under, or nil for a trusted proxy (not counted).
    func key(_ address: String) -> String? {
        proxies.trusts(address) ? nil : ClientNetwork.key(address)
    }

    /// Counts a connection under `key`; false when the cap is reached (the connection is not counted).
    func admit(_ key: String) -> Bool {
        open.withLock { open in
            guard open[key, default: 0] < perPeer else { return false }
            open[key, default: 0] += 1
            return true
        }
    }

    func release(_ key: String) {
        open.withLock { open in
            open[key, default: 1] -= 1
            if open[key] == 0 { open[key] = nil }
        }
    }

    final class Handler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        let limiter: ConnectionLimiter
        private var counted: String?

        init(limiter: ConnectionLimiter) {
            self.limiter = limiter
        }

        func handlerAdded(context: ChannelHandlerContext) {
            guard let address = context.channel.remoteAddress?.ipAddress, let key = limiter.key(address) else { return }
            if limiter.admit(key) {
                counted = key
            } else {
                context.close(promise: nil)
            }
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            if let counted { limiter.release(counted) }
            counted = nil
        }
    }
}
