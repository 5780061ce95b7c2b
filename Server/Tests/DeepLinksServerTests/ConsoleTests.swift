import DeepLinksTestSupport
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

    /// Signs in through the form; `device`: the device cookie of a browser the operator signed in from before.
    static func signIn(_ api: ResetClient, _ email: String, password: String = password, device: String? = nil)
        async throws -> (Visit, TestResponse)
    {
        var visit = Visit()
        visit.cookies[ConsoleRoutes.deviceCookie] = device
        visit.read(try await api.get("/console/sign-in", headers: visit.headers))
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
            await #expect(throws: OperatorError.taken) {
                try await operators.create(
                    email: "editor@example.com",
                    password: Self.password,
                    role: .admin,
                    hasher: hasher
                )
            }
            await #expect(throws: OperatorError.weakPassword(["too_short"])) {
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
                    let answer = try await api.post("/console/new", editor.form(sent), headers: headers)
                    #expect(answer.status == .forbidden && answer.text.contains("Form refused"))
                }
                #expect(try await api.get("/v1/links/from-console", headers: SmartLinkTests.admin).status == .notFound)

                var good = fields
                good["csrf"] = editor.csrf
                let made = try await api.post("/console/new", editor.form(good), headers: headers)
                #expect(made.status == .seeOther && made.headers[.location] == "/console/links/from-console")
                let stored = try await api.get("/v1/links/from-console", headers: SmartLinkTests.admin)
                #expect(stored.object["route"] as? String == "/post/3" && stored.object["passQuery"] as? Bool == true)
                // Any code has its page: the console's own pages are not under /console/links/.
                for code in ["new", "import"] {
                    let body = #"{"code": "\#(code)", "route": "/post/1"}"#
                    #expect(try await api.post("/v1/links", body, headers: SmartLinkTests.admin).status == .created)
                    let page = try await api.get("/console/links/\(code)", headers: editor.headers)
                    #expect(page.status == .ok && page.text.contains(#"id="details""#), "the link \(code)'s page")
                }

                // The validator's problems, each beside its field; nothing written.
                var bad = good
                bad["code"] = "bad-one"
                bad["route"] = "/nowhere"
                bad["destinations.ios"] = "http://links.example.com/x"
                bad["expiresAt"] = "tomorrow"
                let refused = try await api.post("/console/new", editor.form(bad), headers: headers)
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
                let json = try await api.post("/console/new", "{}", headers: editor.headers)
                #expect(json.status == .unsupportedMediaType)
                let twice = try await api.post("/console/new", "csrf=a&csrf=b", headers: headers)
                #expect(twice.status == .badRequest)
                let huge = try await api.post(
                    "/console/new",
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

    /// A `multipart/form-data` body as a browser writes it: each field a part, the file with its name.
    static func multipart(_ fields: [(name: String, value: String)], file: (name: String, text: String)?) -> String {
        var body = fields.map {
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"\($0.name)\"\r\n\r\n\($0.value)\r\n"
        }
        .joined()
        if let file {
            body +=
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(file.name)\"\r\nContent-Type: text/csv\r\n\r\n\(file.text)\r\n"
        }
        return body + "--\(boundary)--\r\n"
    }

    static let boundary = "----deeplinksTestBoundary7MA4YWxk"

    /// The console's import: an export uploaded as a file, checked first (nothing written), then imported; a report
    /// per row. Editors only, with the form's token; a bad upload says why and writes nothing.
    @Test(arguments: TestDatabase.allCases)
    func theConsoleImportsAnUploadedExportAndReportsEachRow(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            let operators = Operators(database: world.database, clock: world.clock.wallClock)
            let hasher = world.settings().passwordReset.hasher
            for (email, role) in [("editor@example.com", OperatorRole.editor), ("viewer@example.com", .viewer)] {
                _ = try await operators.create(email: email, password: Self.password, role: role, hasher: hasher)
            }
            try await world.serve(SmartLinkTests.configure) { api in
                var (editor, _) = try await Self.signIn(api, "editor@example.com")
                let form = try await api.get("/console/import", headers: editor.headers)
                #expect(form.status == .ok && form.text.contains(#"enctype="multipart/form-data""#))
                #expect(form.text.contains(#"action="/console/import?csrf="#))
                editor.read(form)
                var headers = editor.headers
                headers[.contentType] = "multipart/form-data; boundary=\(Self.boundary)"
                let csv = "code,route\nimported-a,/post/1\nimported-b,/post/2\nbad-row,/nowhere\nimported-a,/post/3\n"
                func upload(_ fields: [(name: String, value: String)], _ text: String? = csv) async throws
                    -> TestResponse
                {
                    // The form's token travels in its action (checked before the body is read), as the page writes it.
                    let csrf = fields.first { $0.name == "csrf" }.map { "?csrf=\($0.value)" } ?? ""
                    return try await api.post(
                        "/console/import\(csrf)",
                        Self.multipart(fields, file: text.map { ("export;1.csv", $0) }),
                        headers: headers
                    )
                }
                func stored(_ code: String) async throws -> Bool {
                    try await api.get("/v1/links/\(code)", headers: SmartLinkTests.admin).status == .ok
                }
                let choices = [("format", "csv"), ("onConflict", "skip")]

                let checked = try await upload([("csrf", editor.csrf), ("dryRun", "on")] + choices)
                #expect(checked.status == .ok, "\(checked.text)")
                #expect(checked.text.contains("Checked only: nothing was written."))
                #expect(checked.text.contains("2 valid, 2 refused."), "\(checked.text)")
                #expect(checked.text.contains("<code>export;1.csv</code>"), "the file's name, with its semicolon")
                #expect(checked.text.contains("the code repeats line 2"))
                #expect(try await !stored("imported-a"))

                let imported = try await upload([("csrf", editor.csrf)] + choices)
                #expect(imported.status == .ok && imported.text.contains("2 imported, 2 refused."), "\(imported.text)")
                let written = (
                    try await stored("imported-a"), try await stored("imported-b"), try await stored("bad-row")
                )
                #expect(written == (true, true, false))
                let again = try await upload([("csrf", editor.csrf)] + choices)
                #expect(again.text.contains("2 skipped, 2 refused."), "\(again.text)")
                // Columns the file names otherwise, as field=column pairs; a pair that is not one, or names no
                // column, says so and keeps what was typed.
                let renamed = "slug,path\nrenamed-c,/post/4\n"
                let mapped = try await upload(
                    [("csrf", editor.csrf), ("columns", "code=slug, route = path")] + choices,
                    renamed
                )
                #expect(mapped.text.contains("1 imported."), "\(mapped.text)")
                #expect(try await stored("renamed-c"))
                for (columns, reason) in [
                    ("code slug", "write each as field=column"),
                    ("code=slug, route=where", "no column &#39;where&#39; in the header row"),
                ] {
                    let refused = try await upload([("csrf", editor.csrf), ("columns", columns)] + choices, renamed)
                    #expect(refused.status == .unprocessableContent && refused.text.contains(reason), "\(refused.text)")
                    #expect(refused.text.contains(#"value="\#(columns)""#), "the columns typed are kept")
                }

                // Refused, nothing written: no token, a viewer, no file, a file that is not CSV of the format.
                let other = "code,route\nnever-written,/post/1\n"
                let forged = try await upload([("csrf", "forged")] + choices, other)
                #expect(forged.status == .forbidden && forged.text.contains("Form refused"))
                var (viewer, _) = try await Self.signIn(api, "viewer@example.com")
                viewer.read(try await api.get("/console/links", headers: viewer.headers))
                var viewerHeaders = viewer.headers
                viewerHeaders[.contentType] = headers[.contentType]
                let denied = try await api.post(
                    "/console/import?csrf=\(viewer.csrf)",
                    Self.multipart([("csrf", viewer.csrf)] + choices, file: ("x.csv", other)),
                    headers: viewerHeaders
                )
                #expect(denied.status == .forbidden && denied.text.contains("Not allowed"))
                var stranger: HTTPFields = [:]
                stranger[.contentType] = headers[.contentType]
                let unsigned = try await api.post(
                    "/console/import",
                    Self.multipart(choices, file: ("x.csv", other)),
                    headers: stranger
                )
                #expect(unsigned.status == .seeOther && unsigned.headers[.location] == "/console/sign-in")
                let noFile = try await upload([("csrf", editor.csrf)] + choices, nil)
                #expect(noFile.status == .unprocessableContent && noFile.text.contains("Choose a file to import."))
                let noHeader = try await upload(
                    [("csrf", editor.csrf), ("format", "bitly"), ("onConflict", "skip")],
                    other
                )
                #expect(noHeader.status == .unprocessableContent && noHeader.text.contains("cannot be read as bitly"))
                #expect(noHeader.text.contains(#"<option value="bitly" selected>"#), "the choices are kept")
                let badChoice = try await upload(
                    [("csrf", editor.csrf), ("format", "xlsx"), ("onConflict", "skip")],
                    other
                )
                #expect(badChoice.status == .unprocessableContent)

                // Hostile bodies: not multipart, no closing boundary, a field twice.
                var urlencoded = editor.headers
                urlencoded[.contentType] = "application/x-www-form-urlencoded"
                let notMultipart = try await api.post(
                    "/console/import?csrf=\(editor.csrf)",
                    "csrf=\(editor.csrf)",
                    headers: urlencoded
                )
                #expect(notMultipart.status == .unsupportedMediaType)
                let whole = Self.multipart([("csrf", editor.csrf)] + choices, file: ("x.csv", other))
                let cut = try await api.post(
                    "/console/import?csrf=\(editor.csrf)",
                    String(whole.dropLast(20)),
                    headers: headers
                )
                #expect(cut.status == .badRequest && cut.text.contains("closing boundary"), "\(cut.text)")
                let twice = try await upload([("csrf", editor.csrf), ("csrf", editor.csrf)] + choices, other)
                #expect(twice.status == .badRequest && twice.text.contains("appears twice"))
                let large = "code,route\n" + String(repeating: "never-written,/post/1\n", count: 400_000)  // 8.8 MB
                let tooLarge = try await upload([("csrf", editor.csrf)] + choices, large)
                #expect(tooLarge.status == .contentTooLarge && tooLarge.text.contains("The file is larger than 8 MiB"))
                #expect(try await !stored("never-written"))
            }
        }
    }

    /// `MultipartForm` reads what browsers send and refuses, with a reason, what does not follow the format.
    @Test func multipartBodiesAreReadOrRefusedWithAReason() throws {
        func parse(_ text: String, boundary: String = "b0und") throws -> [String: MultipartForm.Part] {
            try MultipartForm.parse(Array(text.utf8), boundary: boundary)
        }
        let parts = try parse(
            "preamble\r\n--b0und\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nline 1\r\nline 2\r\n"
                + "--b0und\r\ncontent-disposition: form-data; filename=\"x;y.csv\"; name=file\r\n\r\n\r\n"
                + "--b0und\r\nContent-Disposition: form-data; name=\"empty\"\r\n\r\n\r\n--b0und--\r\nepilogue"
        )
        #expect(parts["a"] == MultipartForm.Part(filename: nil, value: Array("line 1\r\nline 2".utf8)))
        #expect(parts["file"]?.filename == "x;y.csv" && parts["file"]?.value == [], "a quoted ; is the name's")
        #expect(parts["empty"]?.text == "" && parts.count == 3)

        #expect(try MultipartForm.boundary("multipart/form-data; boundary=\"a b\"") == "a b")
        #expect(try MultipartForm.boundary("Multipart/Form-Data;boundary=xyz") == "xyz")
        let refusals: [(String, String)] = [
            ("--b0und\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nno end", "closing boundary"),
            ("--b0und\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b0und--", "not a named form-data field"),
            ("--b0und\r\nContent-Type: text/plain\r\n\r\nx\r\n--b0und--", "no Content-Disposition"),
            ("--b0undgarbage\r\n\r\nx\r\n--b0und--", "text after a boundary"),
            ("--b0und\r\nContent-Disposition: form-data; name=\"a\"", "no end to its headers"),
            ("nothing of the kind", "does not contain its boundary"),
            (
                (0...MultipartForm.maxParts).map {
                    "--b0und\r\nContent-Disposition: form-data; name=\"f\($0)\"\r\n\r\nx\r\n"
                }
                .joined() + "--b0und--",
                "more than 16 fields"
            ),
        ]
        for (body, reason) in refusals {
            #expect {
                try parse(body)
            } throws: { error in
                (error as? APIError)?.status == .badRequest && "\(error)".contains(reason)
            }
        }
        for type in ["application/x-www-form-urlencoded", "multipart/form-data", nil] as [String?] {
            #expect(throws: APIError.self, "\(type ?? "none")") { try MultipartForm.boundary(type) }
        }
        #expect(throws: APIError.self) {
            try MultipartForm.boundary("multipart/form-data; boundary=" + String(repeating: "x", count: 71))
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
