import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import DeepLinksServer

/// The console's sessions, CSRF and roles, and the scoped API keys, over the live socket on both databases (the
/// pages themselves are driven in Chromium by Tests/Browser/console_test.py).
@Suite struct ConsoleTests {
    static let password = "tangerine-orbit-91-lantern"

    static func bearer(_ key: String) -> HTTPFields {
        [.contentType: "application/json", .authorization: "Bearer \(key)"]
    }

    @Test(arguments: TestDatabase.allCases)
    func scopedKeysAreEnforcedOnTheAPIBesideTheAdminKey(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            let operators = Operators(database: world.database, clock: world.clock.wallClock)
            let (_, viewer) = try await operators.createKey(name: "dashboard", role: .viewer, createdBy: nil)
            let (_, editor) = try await operators.createKey(name: "cms", role: .editor, createdBy: nil)
            try await world.serve(SmartLinkTests.configure) { api in
                #expect(try await api.get("/v1/links", headers: Self.bearer(viewer)).status == .ok)
                let refused = try await api.post("/v1/links", #"{"route": "/post/1"}"#, headers: Self.bearer(viewer))
                #expect(refused.status == .forbidden && refused.object["error"] as? String == "forbidden")
                #expect(
                    (refused.object["reason"] as? String)?.contains("needs editor") == true,
                    "the reason names the role needed: \(refused.text)"
                )
                #expect(try await api.get("/v1/links/zzz", headers: Self.bearer(viewer)).status == .notFound)
                let created = try await api.post(
                    "/v1/links",
                    #"{"code": "by-editor", "route": "/post/1"}"#,
                    headers: Self.bearer(editor)
                )
                #expect(created.status == .created, "\(created.text)")
                #expect(try await api.get("/v1/keys", headers: Self.bearer(editor)).status == .forbidden)
                #expect(try await api.get("/v1/links", headers: Self.bearer("dlk_not-a-key")).status == .unauthorized)

                // The configuration's admin key is an admin's: it makes a key, which works until revoked.
                let made = try await api.post(
                    "/v1/keys",
                    #"{"name": "deploy bot", "role": "admin"}"#,
                    headers: SmartLinkTests.admin
                )
                #expect(made.status == .created, "\(made.text)")
                let key = try #require(made.object["key"] as? String)
                let id = try #require(made.object["id"] as? Int)
                #expect(key.hasPrefix("dlk_") && made.object["prefix"] as? String == String(key.prefix(12)))
                let listed = try await api.get("/v1/keys", headers: Self.bearer(key))
                #expect(listed.status == .ok)
                #expect(!listed.text.contains(key), "the list never shows a key")
                #expect((listed.object["keys"] as? [[String: Any]])?.count == 3)
                for bad in [#"{"name": "x", "role": "owner"}"#, #"{"name": "", "role": "viewer"}"#, #"{"role": 1}"#] {
                    let answer = try await api.post("/v1/keys", bad, headers: Self.bearer(key))
                    #expect(answer.status == .badRequest, "\(bad): \(answer.text)")
                }
                #expect(
                    try await api.get("/v1/keys/99", method: .delete, headers: Self.bearer(key)).status == .notFound
                )
                #expect(
                    try await api.get("/v1/keys/\(id)", method: .delete, headers: Self.bearer(key)).status == .noContent
                )
                #expect(try await api.get("/v1/keys", headers: Self.bearer(key)).status == .unauthorized)
                #expect(try await api.get("/v1/keys", headers: SmartLinkTests.admin).status == .ok)
            }
            // Each key's last use is noted; nothing stored signs in.
            let keys = try await operators.keys()
            #expect(keys.first { $0.name == "dashboard" }?.lastUsedAt != nil)
            #expect(keys.first { $0.name == "deploy bot" }?.revokedAt != nil)
            let stored = try await world.sql("SELECT key_hash FROM api_keys")
            #expect(
                try stored.allSatisfy { try $0.decode(column: "key_hash", as: String.self).count == 64 },
                "keys are stored as SHA-256"
            )
        }
    }

    @Test func withoutTheAdminKeyAScopedKeyStillOpensTheAPI() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let (_, key) = try await Operators(database: world.database).createKey(
                name: "only",
                role: .viewer,
                createdBy: nil
            )
            try await world.serve { api in
                #expect(try await api.get("/v1/links", headers: Self.bearer(key)).status == .ok)
                let off = try await api.get("/v1/links")
                #expect(off.status == .serviceUnavailable && off.object["error"] as? String == "links_api_disabled")
            }
        }
    }

    /// A browser's visit, by hand: the cookies it keeps and the CSRF token of the last page.
    struct Visit {
        var cookies: [String: String] = [:]
        var csrf = ""

        var headers: HTTPFields {
            var fields: HTTPFields = [:]
            if !cookies.isEmpty {
                fields[.cookie] = cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                    .joined(separator: "; ")
            }
            return fields
        }

        mutating func read(_ response: TestResponse) {
            for value in response.headers[values: .setCookie] {
                let pair = value.prefix { $0 != ";" }.split(separator: "=", maxSplits: 1)
                let name = String(pair[0])
                if value.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = String(pair[1]) }
            }
            if let range = response.text.range(of: #"name="csrf" value=""#) {
                csrf = String(response.text[range.upperBound...].prefix { $0 != "\"" })
            }
        }

        func form(_ fields: [String: String]) -> String {
            fields.map { "\($0.key)=\(ConsolePages.formEncoded($0.value))" }.joined(separator: "&")
        }
    }

    static func signIn(_ api: ResetClient, _ email: String, password: String = password) async throws -> (
        Visit, TestResponse
    ) {
        var visit = Visit()
        visit.read(try await api.get("/console/sign-in"))
        var headers = visit.headers
        headers[.contentType] = "application/x-www-form-urlencoded"
        let answer = try await api.post(
            "/console/sign-in",
            visit.form(["email": email, "password": password, "csrf": visit.csrf]),
            headers: headers
        )
        visit.read(answer)
        return (visit, answer)
    }

    @Test(arguments: TestDatabase.allCases)
    func theConsoleSignsInChecksEveryFormAndEnforcesRoles(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            let operators = Operators(database: world.database, clock: world.clock.wallClock)
            let hasher = world.settings().passwordReset.hasher
            _ = try await operators.create(
                email: "Editor@Example.com",
                password: Self.password,
                role: .editor,
                hasher: hasher
            )
            _ = try await operators.create(
                email: "viewer@example.com",
                password: Self.password,
                role: .viewer,
                hasher: hasher
            )
            await #expect(throws: Operators.Failure.taken) {
                try await operators.create(
                    email: "editor@example.com",
                    password: Self.password,
                    role: .admin,
                    hasher: hasher
                )
            }
            await #expect(throws: Operators.Failure.weakPassword(["too_short"])) {
                try await operators.create(email: "x@example.com", password: "short", role: .admin, hasher: hasher)
            }
            try await world.serve(SmartLinkTests.configure) { api in
                let stranger = try await api.get("/console/links/abc")
                #expect(stranger.status == .seeOther)
                #expect(stranger.headers[.location] == "/console/sign-in?next=%2Fconsole%2Flinks%2Fabc")

                // The sign-in form's own token: a post without its cookie changes nothing.
                let forged = try await api.post(
                    "/console/sign-in",
                    "email=editor%40example.com&password=\(Self.password)&csrf=x",
                    headers: [.contentType: "application/x-www-form-urlencoded"]
                )
                #expect(
                    forged.status == .forbidden && forged.headers[.setCookie]?.contains("deeplinks_console=") != true
                )

                let (_, wrong) = try await Self.signIn(api, "editor@example.com", password: "not-it-at-all")
                #expect(wrong.status == .unauthorized && wrong.text.contains("The email or the password is wrong."))
                let (_, unknown) = try await Self.signIn(api, "nobody@example.com", password: "not-it-at-all")
                #expect(
                    unknown.status == .unauthorized && unknown.text.contains("The email or the password is wrong."),
                    "an unknown address gets the same answer"
                )

                var (editor, signedIn) = try await Self.signIn(api, "EDITOR@example.com")
                #expect(signedIn.status == .seeOther && signedIn.headers[.location] == "/console/links")
                let cookie = try #require(
                    signedIn.headers[values: .setCookie].first { $0.hasPrefix("deeplinks_console=") }
                )
                #expect(
                    cookie.contains("; Secure") && cookie.contains("; HttpOnly") && cookie.contains("SameSite=Strict")
                )

                let list = try await api.get("/console/links", headers: editor.headers)
                #expect(list.status == .ok)
                let policy = try #require(list.headers[.contentSecurityPolicy])
                #expect(!policy.contains("script-src") && policy.contains("default-src 'none'"), "no script: \(policy)")
                editor.read(list)

                // A form without the session's token, or with another's: 403, nothing written.
                var headers = editor.headers
                headers[.contentType] = "application/x-www-form-urlencoded"
                let fields = ["code": "from-console", "route": "/post/3", "passQuery": "on"]
                for token in ["", "forged", ConsoleRoutes.csrf("another-session")] {
                    var sent = fields
                    if !token.isEmpty { sent["csrf"] = token }
                    let answer = try await api.post("/console/links/new", editor.form(sent), headers: headers)
                    #expect(answer.status == .forbidden && answer.text.contains("Form refused"))
                }
                #expect(try await api.get("/v1/links/from-console", headers: SmartLinkTests.admin).status == .notFound)

                var good = fields
                good["csrf"] = editor.csrf
                let made = try await api.post("/console/links/new", editor.form(good), headers: headers)
                #expect(made.status == .seeOther && made.headers[.location] == "/console/links/from-console")
                let stored = try await api.get("/v1/links/from-console", headers: SmartLinkTests.admin)
                #expect(stored.object["route"] as? String == "/post/3" && stored.object["passQuery"] as? Bool == true)

                // The validator's problems, each beside its field; nothing written.
                var bad = good
                bad["code"] = "bad-one"
                bad["route"] = "/nowhere"
                bad["destinations.ios"] = "http://links.example.com/x"
                bad["expiresAt"] = "tomorrow"
                let refused = try await api.post("/console/links/new", editor.form(bad), headers: headers)
                #expect(refused.status == .unprocessableContent)
                for id in ["route-error", "destinations-ios-error", "expiresAt-error"] {
                    #expect(refused.text.contains(#"id="\#(id)""#), "\(id) shown")
                }
                #expect(try await api.get("/v1/links/bad-one", headers: SmartLinkTests.admin).status == .notFound)

                // A viewer reads but changes nothing, whatever it posts.
                var (viewer, _) = try await Self.signIn(api, "viewer@example.com")
                viewer.read(try await api.get("/console/links/from-console", headers: viewer.headers))
                var viewerHeaders = viewer.headers
                viewerHeaders[.contentType] = "application/x-www-form-urlencoded"
                let denied = try await api.post(
                    "/console/links/from-console/delete",
                    viewer.form(["csrf": viewer.csrf]),
                    headers: viewerHeaders
                )
                #expect(denied.status == .forbidden && denied.text.contains("Not allowed"))
                #expect(try await api.get("/console/keys", headers: viewer.headers).status == .forbidden)
                #expect(try await api.get("/v1/links/from-console", headers: SmartLinkTests.admin).status == .ok)

                // Hostile bodies: not a form, a repeated field, too large.
                let json = try await api.post("/console/links/new", "{}", headers: editor.headers)
                #expect(json.status == .unsupportedMediaType)
                let twice = try await api.post("/console/links/new", "csrf=a&csrf=b", headers: headers)
                #expect(twice.status == .badRequest)
                let huge = try await api.post(
                    "/console/links/new",
                    "route=" + String(repeating: "a", count: 70_000),
                    headers: headers
                )
                #expect(huge.status == .contentTooLarge)

                // A session ends after 12 hours unused.
                world.clock.advance(seconds: 13 * 3600)
                #expect(try await api.get("/console/links", headers: editor.headers).status == .seeOther)
            }
        }
    }

    @Test func signInIsThrottledPerAddress() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                var statuses: [HTTPResponse.Status] = []
                for _ in 0..<7 {
                    statuses.append(
                        try await Self.signIn(api, "someone@example.com", password: "wrong-password-1").1.status
                    )
                }
                #expect(statuses.prefix(5).allSatisfy { $0 == .unauthorized } && statuses.last == .tooManyRequests)
            }
        }
    }

    @Test func afterSignInOnlyTheConsolesOwnPathsAreFollowed() {
        #expect(ConsoleRoutes.safeNext("/console/links/abc") == "/console/links/abc")
        for hostile in [
            "//evil.example/console/", "https://evil.example/", "/console//evil", "/elsewhere", "/console/\\evil",
            "/console/a b",
        ] {
            #expect(ConsoleRoutes.safeNext(hostile) == nil, "\(hostile)")
        }
    }
}
