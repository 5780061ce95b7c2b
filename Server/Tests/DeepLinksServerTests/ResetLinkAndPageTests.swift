import DeepLinks
@testable import DeepLinksMail
@testable import DeepLinksServer
import DeepLinksTestSupport
import DemoAppRoutes
import Foundation
import HTTPTypes
import SQLKit
import Testing

/// specs/reset-security.md §4.3 (link and email) and §4.4 (landing page).
@Suite struct ResetLinkAndPageTests {
    static let email = ResetTokenTests.email
    static let password = ResetTokenTests.password

    @Test func L1_theOriginComesFromConfigurationOnly() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                try await api.requestReset(
                    Self.email,
                    headers: [
                        .contentType: "application/json", .init("Host")!: "evil.example",
                        .init("X-Forwarded-Host")!: "evil.example",
                        .init("Forwarded")!: "host=evil.example",
                    ]
                )
                let message = try #require(try await world.mail.waitFor(1).first)
                #expect(!message.text.contains("evil"))
                #expect(!message.html.contains("evil"))
                #expect(message.text.contains("https://links.example.com/reset-password#token="))
            }
        }
    }

    /// With the address in the link (opt-in: `emailParameter`), `+` and `@` survive mail, app and API.
    @Test func L2_plusAndAtRoundTripThroughMailAppAndAPI() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve({ $0.app.passwordReset?.emailParameter = "email" }) { api in
                let address = "user+tag@example.com"
                try await api.signUp(address, Self.password)
                _ = try await api.resetToken(for: address)
                let message = try #require(await world.mail.messages.first)
                let universal = try #require(
                    message.text.split(separator: "\n").first { $0.hasPrefix("https://") }.map(String.init)
                )
                #expect(universal.contains("email=user%2Btag%40example.com"))
                // The app parses the link with the shared route table: `%2B` is `+`, never a space.
                guard case .resetPassword(let token, let email) = try DemoRoute.table.destination(for: universal) else {
                    Issue.record("the link does not reach the reset screen")
                    return
                }
                #expect(email == address)
                #expect(try await api.verify(token, email: email).status == .ok)
                #expect(
                    try await api.confirm(token, "fresh words for a plus address", email: email).status == .noContent
                )
                #expect(try await api.signIn(address, "fresh words for a plus address") != nil)
            }
        }
    }

    @Test func L3_theSecretStaysOutOfLogsAndTheQuery() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let secrets = try await world.serveReturning { api in
                try await api.signUp(Self.email, Self.password)
                let token = try await api.resetToken(for: Self.email)
                let message = try #require(await world.mail.messages.first)
                let universal = try #require(message.text.split(separator: "\n").first { $0.hasPrefix("https://") })
                #expect(
                    !universal.contains("?") && universal.contains("#token="),
                    "the https link carries the token in the fragment"
                )
                _ = try await api.get("/reset-password?token=\(token)")
                _ = try await api.verify(token)
                _ = try await api.confirm(token, "a replacement passphrase here")
                _ = try await api.confirm(token, "short")
                return [token, Self.password, "a replacement passphrase here"]
            }
            let lines = world.logs.lines.withLock { $0 }
            #expect(!lines.isEmpty)
            for secret in secrets {
                #expect(!lines.contains { $0.contains(secret) }, "a log line holds a secret")
            }
            let audit = try await world.sql("SELECT event, ip_hash, user_agent FROM audit_events")
            for row in audit {
                let fields = [
                    try row.decode(column: "event", as: String.self),
                    try row.decode(column: "ip_hash", as: String?.self) ?? "",
                    try row.decode(column: "user_agent", as: String?.self) ?? "",
                ]
                for secret in secrets { #expect(!fields.joined().contains(secret)) }
            }
        }
    }

    @Test func L4_theEmailInALinkMustBeTheTokensAccount() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                try await api.signUp("bob@example.com", Self.password)
                let token = try await api.resetToken(for: Self.email)
                #expect(
                    try await api.confirm(token, "bob takes over the account", email: "bob@example.com").status
                        == .badRequest
                )
                #expect(try await api.signIn(Self.email, Self.password) != nil, "no side effect")
                #expect(try await api.signIn("bob@example.com", Self.password) != nil)
                #expect(try await api.verify(token, email: "Ada@Example.com").status == .ok)
            }
        }
    }

    @Test func L5_headersAreStaticAndStrippedOfLineBreaks() throws {
        let mail = OutgoingMail(
            to: "ada@example.com\r\nBcc: eve@example.com",
            subject: "Reset\r\nBcc: eve@example.com",
            text: "t",
            html: "h"
        )
        let rendered = mail.rendered(
            from: "Demo <no-reply@links.example.com>",
            date: Date(timeIntervalSince1970: 0),
            messageID: "id@x"
        )
        let headers = rendered.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
        #expect(!headers.contains { $0.hasPrefix("Bcc:") })
        #expect(headers.filter { $0.hasPrefix("To:") } == ["To: ada@example.comBcc: eve@example.com"])
        #expect(throws: EmailAddressError.controlCharacter) {
            try EmailAddress("ada@example.com\r\nBcc: eve@example.com")
        }
    }

    @Test func L6_theMessageHasOneClickableHTTPSLinkOnTheConfiguredHost() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                _ = try await api.resetToken(for: Self.email)
                let message = try #require(await world.mail.messages.first)
                let hrefs = message.html.components(separatedBy: "href=\"").dropFirst().map {
                    String($0.prefix { $0 != "\"" })
                }
                // No custom-scheme link unless the configuration opts in: any app can register a scheme.
                try #require(hrefs.count == 1)
                #expect(hrefs[0].hasPrefix("https://links.example.com/reset-password#token="))
                #expect(!message.text.contains("demoapp:"))
                #expect(message.html.contains("clicktracking=\"off\""))
                #expect(message.text.contains("https://links.example.com/reset-password#token="))
                let rendered = try #require(await world.mail.renderedMessages.first)
                #expect(rendered.contains("multipart/alternative"))
            }
        }
    }

    @Test func L7_aCustomSchemeLinkIsOptIn() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve({ $0.app.passwordReset?.customSchemeRoute = "reset-password-scheme" }) { api in
                try await api.signUp(Self.email, Self.password)
                _ = try await api.resetToken(for: Self.email)
                let message = try #require(await world.mail.messages.first)
                let hrefs = message.html.components(separatedBy: "href=\"").dropFirst().map {
                    String($0.prefix { $0 != "\"" })
                }
                try #require(hrefs.count == 2)
                #expect(hrefs[0].hasPrefix("https://links.example.com/reset-password#token="))
                #expect(hrefs[1].hasPrefix("demoapp://reset-password?token="))
                guard
                    case .resetPassword(_, let email) = try DemoRoute.table.destination(
                        for: hrefs[1].replacingOccurrences(of: "&amp;", with: "&")
                    )
                else {
                    Issue.record("the custom-scheme link does not reach the reset screen")
                    return
                }
                #expect(email == nil, "the address is in a link only when the configuration names its parameter")
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func P1_scannersNeverConsumeTheToken(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                let token = try await api.resetToken(for: Self.email)
                let scanner: HTTPFields = [.userAgent: "Go-http-client/1.1"]
                for _ in 0..<5 {
                    #expect(try await api.get("/reset-password?token=\(token)", headers: scanner).status == .ok)
                    #expect(try await api.get("/reset-password", headers: scanner).status == .ok)
                }
                #expect(
                    try await api.get("/reset-password?token=\(token)", method: .head, headers: scanner).status == .ok
                )
                _ = try await api.get("/reset-password?token=\(token)", method: .options, headers: scanner)
                #expect(try await api.verify(token).status == .ok)
                #expect(try await api.confirm(token, "after all the scanners came").status == .noContent)
            }
        }
    }

    @Test func P2_P3_thePageIsPrivateSelfContainedAndShowsTheFormAtOnce() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                let page = try await api.get("/reset-password")
                #expect(page.status == .ok)
                #expect(page.headers[.init("Referrer-Policy")!] == "no-referrer")
                #expect(page.headers[.cacheControl] == "no-store")
                #expect(page.headers[.init("X-Robots-Tag")!]?.contains("noindex") == true)
                let csp = try #require(page.headers[.contentSecurityPolicy])
                #expect(csp.contains("default-src 'none'"))
                #expect(csp.contains("script-src 'self'"))
                #expect(!csp.contains("unsafe-inline"))
                let html = page.text
                #expect(!html.contains("<script>"), "no inline script: the CSP allows none")
                #expect(html.contains(#"autocomplete="new-password""#))
                #expect(html.contains(#"<label for="password">"#))
                #expect(
                    html.contains(
                        #"<meta name="apple-itunes-app" content="app-id=1234567890, app-argument=https://links.example.com/reset-password">"#
                    )
                )
                #expect(!html.contains("http://"), "no cross-origin or insecure resource")
                for link in html.components(separatedBy: "<a ").dropFirst() {
                    #expect(link.contains(#"rel="noreferrer noopener""#))
                }
                // Without a token the page offers a link (the "not you?" notice sends people here), not an error.
                let lines = html.components(separatedBy: "\n")
                #expect(lines.contains(#"<section id="again">"#))
                #expect(html.contains(#"<h2 id="again-title">Get a reset link</h2>"#))
                #expect(!html.contains("expired"))
                #expect(try #require(lines.first { $0.hasPrefix(#"<form id="reset""#) }).hasSuffix(" hidden>"))
                // With a token in the query, the form is there at once; the script does the same for a fragment.
                let withToken = try await api.get("/reset-password?token=\(String(repeating: "A", count: 43))").text
                let form = try #require(
                    withToken.components(separatedBy: "\n").first { $0.hasPrefix(#"<form id="reset""#) }
                )
                #expect(!form.contains("hidden"), "the form is visible without waiting: \(form)")
                let script = try await api.get("/assets/reset-password.js")
                #expect(script.status == .ok)
                #expect(script.headers[.contentType]?.hasPrefix("text/javascript") == true)
                #expect(!script.text.contains("URLSearchParams"), "it would turn + into a space")
                #expect(script.text.contains("history.replaceState"))
            }
        }
    }

    /// The page's forms work without its script: a form post to the page's own path, answered with the page.
    @Test func thePageWorksWithoutItsScript() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
                try await api.signUp("user+tag@example.com", Self.password)
                // "Send me a link": `+` arrives as %2B, a space as `+`, as browsers encode forms.
                let requested = try await api.post(
                    "/reset-password",
                    "intent=request&email=user%2Btag%40example.com",
                    headers: form
                )
                #expect(requested.status == .ok)
                #expect(
                    requested.text.contains(
                        "If an account uses this address, a link is on its way. It works for 30 minutes, once."
                    )
                )
                #expect(requested.text.contains(#"value="user+tag@example.com""#))
                let message = try #require(try await world.mail.waitFor(1).first)
                let token = try #require(ResetClient.token(in: message.text))
                // A weak password: the form again, the token kept, the reason shown.
                let weak = try await api.post(
                    "/reset-password",
                    "intent=confirm&token=\(token)&password=short",
                    headers: form
                )
                #expect(weak.status == .unprocessableContent)
                #expect(weak.text.contains("Use a longer password."))
                #expect(weak.text.contains(#"name="token" value="\#(token)""#))
                // A good one: done; the token is spent, and a second post says so.
                let body = "intent=confirm&token=\(token)&password=quiet+lantern+over+maple+ridge"
                let done = try await api.post("/reset-password", body, headers: form)
                #expect(done.status == .ok)
                #expect(done.text.contains(#"<section id="done">"#))
                #expect(
                    try await api.signIn("user+tag@example.com", "quiet lantern over maple ridge") != nil,
                    "+ is a space in a form"
                )
                let again = try await api.post("/reset-password", body, headers: form)
                #expect(again.status == .badRequest)
                #expect(again.text.contains("This link has expired or was already used"))
                // Bad inputs: a JSON body, a repeated field, a malformed address, an unknown intent.
                #expect(try await api.post("/reset-password", #"{"intent":"request"}"#).status == .unsupportedMediaType)
                #expect(
                    try await api.post("/reset-password", "intent=request&intent=confirm", headers: form).status
                        == .badRequest
                )
                let malformed = try await api.post(
                    "/reset-password",
                    "intent=request&email=not-an-address",
                    headers: form
                )
                #expect(malformed.status == .badRequest)
                #expect(malformed.text.contains("This is not an address we can send to"))
                #expect(try await api.post("/reset-password", "intent=nothing", headers: form).status == .badRequest)
            }
        }
    }

    @Test func aRequestOverTheLimitSaysHowLongToWait() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve({ $0.passwordReset.requestBurst = 1 }) { api in
                let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
                #expect(
                    try await api.post("/reset-password", "intent=request&email=a%40example.com", headers: form).status
                        == .ok
                )
                let limited = try await api.post(
                    "/reset-password",
                    "intent=request&email=a%40example.com",
                    headers: form
                )
                #expect(limited.status == .tooManyRequests)
                #expect(limited.text.contains("Too many requests: wait "))
                #expect(!limited.text.contains("a link is on its way"))
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func P4_C5_theCheckEndpointAnswersTheSameForUnknownExpiredUsedAndMismatched(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            try await world.serve { api in
                try await api.signUp(Self.email, Self.password)
                try await api.signUp("bob@example.com", Self.password)
                let used = try await api.resetToken(for: Self.email)
                #expect(try await api.confirm(used, "a new and long passphrase").status == .noContent)
                let bobs = try await api.resetToken(for: "bob@example.com")
                let valid = try await api.verify(bobs)
                #expect(valid.status == .ok)
                #expect(valid.text == #"{"email":"b***@example.com","valid":true}"#)
                let answers = [
                    try await api.verify(String(repeating: "x", count: 43)),
                    try await api.verify(used),
                    try await api.verify(bobs, email: Self.email),
                    try await api.confirm(used, "whatever long passphrase"),
                    try await api.verify("<script>"),
                ]
                world.clock.advance(seconds: 31 * 60)
                let expired = try await api.verify(bobs)
                for answer in answers + [expired] {
                    #expect(answer.status == .badRequest)
                    #expect(answer.text == #"{"error":"invalid_or_expired_token"}"#)
                }
            }
        }
    }

    @Test func P5_reflectedParametersAreInert() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                let payload = "\"><script>alert(1)</script>"
                let encoded = payload.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let html = try await api.get("/reset-password?token=\(encoded)&email=\(encoded)").text
                #expect(!html.contains("<script>alert"))
                #expect(!html.contains("alert(1)"), "a token without a token's shape is not placed in the page")
                let token = String(repeating: "a", count: 43)
                #expect(
                    try await api.get("/reset-password?token=\(token)").text.contains(
                        #"name="token" value="\#(token)""#
                    )
                )
            }
        }
    }
}
