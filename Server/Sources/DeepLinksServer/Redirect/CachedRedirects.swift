import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Answers a short link the link cache holds, when its answer is a redirect, on the connection's event loop.
///
/// Every other request goes on to Hummingbird's router, on Swift concurrency's pool. A redirect of a cached link
/// needs neither: the cache, the click counter and the platform's decision are synchronous. Skipping the hand-off to
/// the pool, the router and the middleware chain is what makes a cached redirect cheap (see the scale benchmark in
/// Benchmarks/RESULTS.md). The answer is the one the router gives (``LinkRedirect/respond(_:code:request:peer:counting:onlyRedirect:)``
/// computes both), with the headers the middleware and Hummingbird add: `Strict-Transport-Security`, `Date`,
/// `Server`; the request is recorded in the metrics under the route's own name.
///
/// The handler sits after Hummingbird's `HTTPConnectionStateHandler`, so the idle timeout and graceful shutdown
/// see every request and response. Requests it answers keep their order: while a request handed to the router has
/// not been answered, every later one goes to the router as well (pipelined requests are answered in order). A
/// request with a body, or with `Connection: close`, goes to the router, which reads the body and closes.
final class CachedRedirects: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The redirect for a request head (and the connection's peer, asked only when a link's rules need it), nil
    /// when the router must answer it.
    typealias Answer = @Sendable (HTTPRequest, () -> SocketAddress?) -> HTTPResponse?

    private let answer: Answer
    private let serverName: String
    /// A request head waiting for its end (a candidate, not yet handed on).
    private var held: HTTPRequest?
    /// Requests handed to the router whose response has not ended.
    private var routed = 0

    init(serverName: String, answer: @escaping Answer) {
        self.serverName = serverName
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if routed == 0, Self.mayAnswer(head) {
                held = head
            } else {
                route(head, context: context)
            }
        case .body:
            if let head = held { route(head, context: context) }
            context.fireChannelRead(data)
        case .end:
            guard let head = held else {
                context.fireChannelRead(data)
                return
            }
            held = nil
            if var response = answer(head, { context.channel.remoteAddress }) {
                response.headerFields[.date] = Self.date()
                response.headerFields[.server] = serverName
                response.headerFields[.contentLength] = "0"
                context.write(wrapOutboundOut(.head(response)), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            } else {
                route(head, context: context)
                context.fireChannelRead(data)
            }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { routed -= 1 }
        context.write(data, promise: promise)
    }

    private func route(_ head: HTTPRequest, context: ChannelHandlerContext) {
        held = nil
        routed += 1
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    /// A `GET` or `HEAD` of one path segment, without a body and not closing the connection, whose target is short
    /// enough that its work is small (``ClickQuery/fitsEventLoop(_:)``): a long query goes to the pool.
    static func mayAnswer(_ head: HTTPRequest) -> Bool {
        guard head.method == .get || head.method == .head, let path = head.path?.utf8, path.count > 1,
            ClickQuery.fitsEventLoop(path),
            !path.dropFirst().contains(UInt8(ascii: "/")), head.headerFields[.contentLength] == nil,
            head.headerFields[.transferEncoding] == nil
        else { return false }
        return head.headerFields[values: .connection].allSatisfy { !$0.lowercased().contains("close") }
    }

    /// The `Date` header, formatted once a second for every connection (a formatter costs far more than a lock).
    private static func date() -> String {
        let now = Date()
        let second = Int64(now.timeIntervalSince1970)
        return dates.withLock { cached in
            if cached.second != second { cached = (second, HTTPDate.format(now)) }
            return cached.text
        }
    }

    private static let dates = Mutex((second: Int64.min, text: ""))
}

/// Hummingbird's HTTP/1.1 channel with ``CachedRedirects`` placed after its connection-state handler.
struct HTTP1WithCachedRedirects: ServerChildChannel {
    let channel: HTTP1Channel
    let redirects: @Sendable () -> CachedRedirects

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        self.channel.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let state = try channel.pipeline.syncOperations.handler(type: HTTPConnectionStateHandler.self)
            try channel.pipeline.syncOperations.addHandler(redirects(), position: .after(state))
            return value
        }
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await channel.handle(value: value, logger: logger)
    }
}
