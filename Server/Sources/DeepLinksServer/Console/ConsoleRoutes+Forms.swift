import Crypto
import DeepLinks
import DeepLinksQR
import DeepLinksSupport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Sessions and forms: the signed-in page, the CSRF check, cookies and redirects.
extension ConsoleRoutes {
    /// The routes added to the group are for a signed-in operator with at least `role` (``ConsoleRoleMiddleware``).
    func group(_ router: Router<AppRequestContext>, _ role: OperatorRole) -> RouterGroup<AppRequestContext> {
        router.group().add(middleware: ConsoleRoleMiddleware(role: role, operators: operators))
    }

    /// A form post of the signed-in operator (the group's role already checked): the CSRF token first; a post
    /// without the right token changes nothing.
    func form(
        _ request: Request,
        _ context: AppRequestContext,
        _ body: (ConsolePages.Viewer, [String: String]) async throws -> Response
    ) async throws -> Response {
        let viewer = try context.viewer()
        let fields = try await FormBody.read(request, context: context)
        if let refused = Self.refusal(csrf: fields["csrf"], viewer) { return refused }
        return try await body(viewer, fields)
    }

    /// The answer to a form whose CSRF token is missing or wrong; nil when it is the session's.
    static func refusal(csrf sent: String?, _ viewer: ConsolePages.Viewer) -> Response? {
        if let sent, SecureBytes.equal(Array(sent.utf8), Array(viewer.csrf.utf8)) { return nil }
        return ConsolePages.response(
            .forbidden,
            ConsolePages.message(
                title: "Form refused",
                viewer: viewer,
                text:
                    "The form expired or came from another site (its CSRF token is missing or wrong): nothing was changed. Reload the page and try again."
            )
        )
    }

    /// The import form as it first shows: the format told from the header row, taken codes skipped, checked without
    /// writing.
    static let importDefaults = ["format": "auto", "onConflict": "skip", "dryRun": "on"]

    /// The token a session's forms carry: an HMAC of the session token, so nothing more is stored.
    static func csrf(_ session: String) -> String {
        let key = SymmetricKey(data: SHA256.hash(data: Array(session.utf8)))
        return Base64URL.encode(Array(HMAC<SHA256>.authenticationCode(for: Array("console-csrf".utf8), using: key)))
    }

    static func setCookie(_ name: String, _ value: String) -> String {
        "\(name)=\(value); Path=/console; Secure; HttpOnly; SameSite=Strict"
    }

    static func clearCookie(_ name: String) -> String {
        "\(name)=; Path=/console; Max-Age=0; Secure; HttpOnly; SameSite=Strict"
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// A path to return to after sign-in: the console's own, never another site's (`//host`).
    static func safeNext(_ path: String) -> String? {
        guard path.hasPrefix("/console/"), !path.contains("//"), !path.contains("\\"), path.count < 500,
            path.allSatisfy({ $0.isASCII && !$0.isWhitespace })
        else { return nil }
        return path
    }
}

/// A console group's role: the session cookie's operator, with at least `role`, is the request's
/// (``AppRequestContext/viewer()``); otherwise the sign-in page (303, back to this page after) or 403. No handler
/// checks a role itself.
struct ConsoleRoleMiddleware: RouterMiddleware {
    let role: OperatorRole
    let operators: Operators

    func handle(
        _ request: Request,
        context: AppRequestContext,
        next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let token = request.cookies[ConsoleRoutes.sessionCookie]?.value,
            let signedIn = try await operators.session(token)
        else {
            let path = request.uri.path
            return ConsoleRoutes.redirect(
                "/console/sign-in" + (request.method == .get ? "?next=\(ConsolePages.formEncoded(path))" : "")
            )
        }
        let viewer = ConsolePages.Viewer(signedIn: signedIn, csrf: ConsoleRoutes.csrf(token))
        guard signedIn.role >= role else {
            return ConsolePages.response(
                .forbidden,
                ConsolePages.message(
                    title: "Not allowed",
                    viewer: viewer,
                    text:
                        "Your role (\(signedIn.role.rawValue)) does not allow this: \(role.grants) needs the role \(role.rawValue)."
                )
            )
        }
        var context = context
        context.operatorViewer = viewer
        return try await next(request, context)
    }
}
