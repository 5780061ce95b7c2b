import AsyncHTTPClient
import Crypto
import DeepLinks
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// Accounts that live in the app team's own backend: the server keeps no password and no session, it
/// carries the reset link. The backend answers two signed hooks, `POST {backend}/deeplinks/lookup`
/// (`{"email"}` → `{"subject"}`, or 404 for no account) and `POST {backend}/deeplinks/password`
/// (`{"subject","password","endSessions":true}` → 2xx once the password is changed and the sessions ended,
/// 422 `{"reasons":[...]}` for a password it refuses), and may ask for links (`POST /v1/reset-links`) and
/// consume tokens (`POST /v1/reset-links/consume`) itself. See the article "Use your own accounts".
public struct ExternalAccounts: Sendable, Equatable {
    /// The backend's base address, without a trailing slash: `https://` anywhere, `http://` on loopback only.
    public var backend: String
    /// How long a hook may take before the call counts as failed.
    public var timeoutSeconds: Int

    public init(backend: String, timeoutSeconds: Int = 5) {
        self.backend = backend.hasSuffix("/") ? String(backend.dropLast()) : backend
        self.timeoutSeconds = timeoutSeconds
    }

    /// Whether a URL's host is this machine: `localhost`, or an address in 127.0.0.0/8 or `[::1]`, parsed as an
    /// address (`127.attacker.example` is a name, and a name other than `localhost` is never loopback).
    static func isLoopback(_ host: String) -> Bool {
        if host.lowercased() == "localhost" { return true }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return IPAddress(bare)?.isLoopback ?? false
    }

    /// What is wrong with a backend address, or nil: hooks carry passwords, so they travel over HTTPS except
    /// to this machine.
    /// - Parameter carrying: what the calls carry, for the reason plain http is refused.
    static func backendProblem(_ address: String, carrying: String = "hooks carry passwords") -> String? {
        guard let parts = try? URLParts(parsing: address, limits: URLLimits(allowsPort: true)),
            let host = parts.host, !host.isEmpty, parts.query == nil, parts.fragment == nil
        else { return "is not an absolute http(s) address without credentials, query or fragment" }
        switch parts.scheme {
        case "https": return nil
        case "http":
            // `localhost.` (the URL policy leaves the dot out of `host`) is a name resolved through DNS, not the
            // hosts file's `localhost`: not loopback.
            let authority = address.drop { $0 != "/" }.dropFirst(2).prefix { $0 != "/" }
            let named = authority.hasPrefix("[") ? authority : authority.prefix { $0 != ":" }
            return isLoopback(host) && !named.hasSuffix(".")
                ? nil : "uses plain http to \(named): \(carrying), use https (http is for loopback)"
        default: return "is not an http(s) address"
        }
    }
}

extension ExternalAccounts {
    /// A backend's user id: 1 to 255 characters, no control characters.
    static func isSubject(_ value: String) -> Bool {
        (1...255).contains(value.utf8.count)
            && !value.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
