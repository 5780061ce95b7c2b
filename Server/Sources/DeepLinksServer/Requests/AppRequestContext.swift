import Foundation
import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's core storage, with a body limit suited to a JSON
/// API, and the peer's address (which ``ClientAddress`` trusts or not for forwarded headers).
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The TCP peer, when the request came over a socket.
    public let peer: SocketAddress?
    /// Who an API group's key speaks for (``KeyRoleMiddleware``): nil for the configured admin key.
    var keyHolder: Operators.KeyHolder?
    /// The signed-in operator of a console group (``ConsoleRoleMiddleware``).
    var operatorViewer: Operators.Viewer?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.peer = source.channel.remoteAddress
    }

    /// Bodies over 64 KiB are refused with 413 before they are read.
    public var maxUploadSize: Int { 64 * 1024 }
}

extension Request {
    /// The token of an `Authorization: Bearer` header (a session's or an API key), trimmed.
    var bearerToken: String? {
        guard let value = headers[.authorization], value.count > 7, value.prefix(7).lowercased() == "bearer " else {
            return nil
        }
        return String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }

    /// The host the client asked for (`Host`, or `:authority`), lower-cased, without a port.
    var requestedHost: String? {
        guard let authority = head.authority else { return nil }
        if authority.hasPrefix("[") { return authority.prefix { $0 != "]" }.dropFirst().lowercased() }
        return authority.prefix { $0 != ":" }.lowercased()
    }
}

/// A route added to a role's group was reached without its middleware: a mistake in the registration.
struct MissingRoleMiddleware: Error {}

extension AppRequestContext {
    /// The signed-in operator; only in a console group (``ConsoleRoutes/group(_:_:)``).
    func viewer() throws -> Operators.Viewer {
        guard let operatorViewer else { throw MissingRoleMiddleware() }
        return operatorViewer
    }
}
