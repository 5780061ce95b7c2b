import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's core storage, with a body limit suited to a JSON
/// API, and the peer's address (which ``ClientAddress`` trusts or not for forwarded headers).
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The TCP peer, when the request came over a socket.
    public let peer: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.peer = source.channel.remoteAddress
    }

    /// Bodies over 64 KiB are refused with 413 before they are read.
    public var maxUploadSize: Int { 64 * 1024 }
}

extension Request {
    /// The host the client asked for (`Host`, or `:authority`), lower-cased, without a port.
    var requestedHost: String? {
        guard let authority = head.authority else { return nil }
        if authority.hasPrefix("[") { return authority.prefix { $0 != "]" }.dropFirst().lowercased() }
        return authority.prefix { $0 != ":" }.lowercased()
    }
}
