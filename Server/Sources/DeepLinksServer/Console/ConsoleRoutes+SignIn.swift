import Crypto
import DeepLinks
import DeepLinksQR
import DeepLinksSupport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Sign-in and sign-out: the throttles, the device cookie, the session.
extension ConsoleRoutes {
    func registerSignIn(on router: Router<AppRequestContext>) {
        router.get("/console/sign-in", use: signInPage)
        router.post("/console/sign-in", use: signIn)
        group(router, .viewer)
            .post("/console/sign-out", use: signOut)
    }

    @Sendable func signInPage(_ request: Request, context: AppRequestContext) async throws -> Response {
        if let token = request.cookies[Self.sessionCookie]?.value, try await operators.session(token) != nil {
            return Self.redirect("/console/links")
        }
        let next = request.uri.queryParameters["next"].map(String.init).flatMap(Self.safeNext)
        return signInPage(.ok, next: next)
    }

    @Sendable func signIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = try await FormBody.read(request, context: context)
        let next = form["next"].flatMap(Self.safeNext)
        guard let expected = request.cookies[Self.signInCookie]?.value, let sent = form["csrf"],
            SecureBytes.equal(Array(expected.utf8), Array(sent.utf8))
        else {
            return signInPage(
                .forbidden,
                next: next,
                error: "The form expired or came from another site: sign in again."
            )
        }
        let email = form["email"] ?? ""
        let address = proxies.clientAddress(peer: context.peer, headers: request.headers)
        let now = clock.milliseconds()
        // A browser the operator signed in from (its device cookie) has a bucket of its own and nothing else:
        // neither a stranger's wrong passwords for the address nor a neighbour's on the same network (NAT, VPN
        // exit, an IPv6 /64) lock the owner out there. Every other browser takes from its network's bucket,
        // then the address's. A right password gives its token back: only wrong ones empty a bucket.
        var device = request.cookies[Self.deviceCookie]?.value
        if let token = device, try await !operators.isDevice(token, of: email) { device = nil }
        let bucket = device.map { "device:\(Operators.digest($0))" } ?? Operators.signInBucket(email)
        var wait = device == nil ? try await networkLimiter.take(ClientNetwork.key(address), now: now) : nil
        if wait == nil { wait = try await addressLimiter.take(bucket, now: now) }
        if let wait {
            var response = signInPage(
                .tooManyRequests,
                email: email,
                next: next,
                error: "Too many attempts: try again in \(wait) seconds."
            )
            response.headers[.retryAfter] = String(wait)
            return response
        }
        guard
            let signedIn = try await hashing.run({
                try await operators.verify(email: email, password: form["password"] ?? "", hasher: hasher)
            })
        else {
            return signInPage(.unauthorized, email: email, next: next, error: "The email or the password is wrong.")
        }
        try await addressLimiter.give(bucket)
        let token = try await operators.startSession(signedIn)
        var response = Self.redirect(next ?? "/console/links")
        response.headers.append(HTTPField(name: .setCookie, value: Self.setCookie(Self.sessionCookie, token)))
        response.headers.append(HTTPField(name: .setCookie, value: Self.clearCookie(Self.signInCookie)))
        if device == nil {
            let remembered = try await operators.rememberDevice(of: signedIn)
            response.headers.append(
                HTTPField(
                    name: .setCookie,
                    value: Self.setCookie(Self.deviceCookie, remembered)
                        + "; Max-Age=\(Operators.deviceLifetimeMilliseconds / 1000)"
                )
            )
        }
        return response
    }

    @Sendable func signOut(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await form(request, context) { _, _ in
            if let token = request.cookies[Self.sessionCookie]?.value { try await operators.endSession(token) }
            var response = Self.redirect("/console/sign-in")
            response.headers.append(HTTPField(name: .setCookie, value: Self.clearCookie(Self.sessionCookie)))
            return response
        }
    }

    /// The sign-in page with a fresh pre-session CSRF token in its own cookie.
    private func signInPage(
        _ status: HTTPResponse.Status,
        email: String = "",
        next: String?,
        error: String? = nil
    ) -> Response {
        let csrf = Base64URL.encode(SecureBytes.random(count: 32))
        return ConsolePages.response(
            status,
            ConsolePages.signIn(csrf: csrf, email: email, error: error, next: next),
            headers: [.setCookie: Self.setCookie(Self.signInCookie, csrf)]
        )
    }
}
