import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// A request's body must keep arriving: at least ``minimumBytesPerSecond`` on average over each window of
/// ``ServerSettings/bodyTimeoutSeconds`` after its head (a body smaller than a window's worth must be complete within
/// one window). A connection whose body falls behind is closed, and counted
/// (`deeplinks_http_slow_bodies_closed_total`). Without it, a client that sends a complete head and then its body a
/// byte at a time would hold the connection and its task as long as it liked: Hummingbird's idle timeout stops
/// counting once the head is complete. It holds behind a proxy too: a proxy that streams a slow client's body
/// (Caddy does) is cut off the same way, and answers that client 502.
final class BodyDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    /// 1 KiB/s: far below any network a person uses, far above a byte every few seconds.
    static let minimumBytesPerSecond = 1024

    private let window: TimeAmount
    private let minimumBytes: Int
    private let closed: @Sendable () -> Void
    private var inBody = false
    private var received = 0
    private var timer: Scheduled<Void>?

    init(windowSeconds: Int, closed: @escaping @Sendable () -> Void) {
        window = .seconds(Int64(windowSeconds))
        minimumBytes = windowSeconds * Self.minimumBytesPerSecond
        self.closed = closed
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            // A request without a body (every GET of a redirect) schedules nothing.
            let length = head.headerFields[.contentLength].flatMap { Int($0) } ?? 0
            guard length > 0 || head.headerFields[.transferEncoding] != nil else { break }
            inBody = true
            received = 0
            schedule(context)
        case .body(let buffer):
            received += buffer.readableBytes
        case .end:
            inBody = false
            timer?.cancel()
            timer = nil
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    /// At the end of each window: closed if the body is still coming and came too slowly in it.
    private func schedule(_ context: ChannelHandlerContext) {
        timer?.cancel()
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: window) {
            guard self.inBody else { return }
            if self.received < self.minimumBytes {
                self.timer = nil
                self.closed()
                context.close(promise: nil)
            } else {
                self.received = 0
                self.schedule(context)
            }
        }
    }
}
