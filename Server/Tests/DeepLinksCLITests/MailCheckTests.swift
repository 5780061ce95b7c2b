import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `deeplinks check --mail`: our own reset mail, as the server writes it, passes; copies rewritten the way mail
/// services and careless templates rewrite links do not.
@Suite struct MailCheckTests {
    /// A reset mail from a real `deeplinks serve` (mail to a folder), for the demo app.
    /// A `deeplinks serve` on a free port, its SQLite file and mail folder in `folder`: the process and its port.
    static func serve(in folder: URL, environment: [String: String] = [:]) async throws -> (Process, Int) {
        let (process, log) = try CommandRunner.startInBackground(
            [
                "serve", "--port", "0", "--database-url", "sqlite:\(folder.path)/db.sqlite", "--mail-url",
                folder.appendingPathComponent("mail").path,
            ],
            environment: environment,
            in: folder
        )
        let line = try #require(
            try await log.waitForLine(containing: "listening on http://127.0.0.1:"),
            "\(log.contents)"
        )
        return (process, try #require(line.split(separator: ":").last.flatMap { Int($0.prefix(while: \.isNumber)) }))
    }

    static func ourResetMail(in folder: URL) async throws -> URL {
        let (process, port) = try await serve(in: folder)
        defer { if process.isRunning { process.terminate() } }
        for (path, body) in [
            ("/v1/accounts", #"{"email":"ada+tag@example.com","password":"violet tangerine submarine orbit"}"#),
            ("/v1/password-resets", #"{"email":"ada+tag@example.com"}"#),
        ] {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
            _ = try await URLSession.shared.data(for: request)
        }
        let mail = folder.appendingPathComponent("mail")
        for _ in 0..<100 {
            if let file = try? FileManager.default.contentsOfDirectory(at: mail, includingPropertiesForKeys: nil).first(
                where: { $0.pathExtension == "eml" })
            {
                return file
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw CancellationError()
    }

    @Test func ourOwnResetMailPassesAndRewrittenCopiesDoNot() async throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let ours = try await Self.ourResetMail(in: folder)
        let good = try CommandRunner.run(["check", "--mail", ours.path])
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        #expect(
            good.stdout.contains("link: https://links.example.com/reset-password#token=REDACTED -> reset-password\n"),
            "\(good.stdout)"
        )
        #expect(good.stdout.hasSuffix("ok: 1 link(s)\n"))
        #expect(
            good.stdout.range(of: "token=[A-Za-z0-9_-]{43}", options: .regularExpression) == nil,
            "the secret is never printed"
        )

        // The same link as a mail service and a template would have rewritten it, in a plain 8-bit copy.
        let token = String(repeating: "A", count: 43)
        let rewritten = """
            From: Demo <no-reply@links.example.com>\r
            To: ada@example.com\r
            Subject: Reset your Demo password\r
            Content-Type: multipart/alternative; boundary="x"\r
            \r
            --x\r
            Content-Type: text/plain; charset=utf-8\r
            Content-Transfer-Encoding: quoted-printable\r
            \r
            https://links.example.com/reset-password?token=3D\(token)&email=3Dada%40example.com\r
            --x\r
            Content-Type: text/html; charset=utf-8\r
            \r
            <a href="https://u1234.ct.sendgrid.net/ls/click?upn=abc">Choose a new password</a>\r
            <a href="demoapp://reset-password?token=\(token)">In the app</a>\r
            --x--\r

            """
        let file = folder.appendingPathComponent("rewritten.eml")
        try Data(rewritten.utf8).write(to: file)
        let bad = try CommandRunner.run(["check", "--mail", file.path, "--json"])
        #expect(bad.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(bad.stdout.utf8)) as? [String: Any])
        #expect(report["ok"] as? Bool == false)
        let links = try #require(report["links"] as? [[String: Any]])
        #expect(links.count == 3, "\(links)")
        let problems = links.flatMap { $0["problems"] as? [String] ?? [] }
        let warnings = links.flatMap { $0["warnings"] as? [String] ?? [] }
        #expect(problems.contains { $0.hasPrefix("an address in the query ('email')") }, "\(problems)")
        #expect(
            problems.contains { $0.hasPrefix("the app does not open it: no route") },
            "a token in the query is no route of the app: \(problems)"
        )
        #expect(problems.contains { $0.hasPrefix("wrapped by SendGrid click tracking (u1234.ct.sendgrid.net)") })
        #expect(warnings.contains { $0.hasPrefix("a custom-scheme link in HTML: webmail") })
        #expect(!bad.stdout.contains(token), "the secret is never printed")
    }

    @Test func aFileThatIsNoMessageExitsWith2() throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("image.eml")
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: file)
        for path in [file.path, "/no/such.eml"] {
            let result = try CommandRunner.run(["check", "--mail", path])
            #expect(result.status == 2)
            #expect(result.stderr.hasPrefix("error: \(path): "), "\(result.stderr)")
        }
    }

    @Test func aParameterLinkTrackingProtectionRemovesIsWarnedAbout() throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let message = """
            From: Demo <news@links.example.com>\r
            To: ada@example.com\r
            Subject: Ten per cent off\r
            Content-Type: text/plain; charset=utf-8\r
            \r
            https://links.example.com/post/10?mc_eid=4f2a9c&utm_source=mail\r

            """
        let file = folder.appendingPathComponent("campaign.eml")
        try Data(message.utf8).write(to: file)
        let result = try CommandRunner.run(["check", "--mail", file.path, "--json"])
        #expect(result.status == 0, "a warning is no problem: \(result.stdout)\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let warnings = (report["links"] as? [[String: Any]] ?? []).flatMap { $0["warnings"] as? [String] ?? [] }
        #expect(warnings.count == 1, "utm_source survives: \(warnings)")
        #expect(
            warnings.first?.hasPrefix("Mail removes 'mc_eid' when the link is opened (Link Tracking Protection") == true
        )
    }

    /// A short link in the message is looked up in the server's database and judged by what it leads to: its rules
    /// (named, with `?d=1` to see which fires) and a parameter one of them relies on that Mail removes; a code that
    /// is no link is a problem.
    @Test func aShortLinkInTheMailIsJudgedByItsRules() async throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = "sqlite:\(folder.path)/db.sqlite"
        let key = "mail-check-admin-key-0123456789abcdef"
        let (process, port) = try await Self.serve(in: folder, environment: ["DEEPLINKS_ADMIN_KEY": key])
        defer { if process.isRunning { process.terminate() } }
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/links")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        request.httpBody = Data(
            #"{"code":"spring","route":"/post/1","rules":[{"name":"from ads","when":{"query":{"name":"gclid"}},"then":{"url":"https://links.example.com/"}}]}"#
                .utf8
        )
        let (_, created) = try await URLSession.shared.data(for: request)
        #expect((created as? HTTPURLResponse)?.statusCode == 201)
        process.terminate()
        process.waitUntilExit()

        let message = """
            From: Demo <news@links.example.com>\r
            To: ada@example.com\r
            Subject: Spring\r
            Content-Type: text/plain; charset=utf-8\r
            \r
            https://links.example.com/spring https://links.example.com/nolink\r

            """
        let file = folder.appendingPathComponent("spring.eml")
        try Data(message.utf8).write(to: file)
        let result = try CommandRunner.run(["check", "--mail", file.path, "--json", "--database-url", database])
        #expect(result.status == 1, "a short link that is no link is a problem: \(result.stdout)\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let links = report["links"] as? [[String: Any]] ?? []
        let spring = links.first { $0["url"] as? String == "https://links.example.com/spring" }
        let warnings = spring?["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.hasPrefix("the short link 'spring' has 1 rule(s) (from ads)") }, "\(warnings)")
        #expect(warnings.contains { $0.hasPrefix("the short link 'spring': ") && $0.contains("gclid") }, "\(warnings)")
        let missing = links.first { $0["url"] as? String == "https://links.example.com/nolink" }
        #expect((missing?["problems"] as? [String])?.contains { $0.contains("'nolink' is no link of") } == true)
    }
}
