import Foundation
import Testing

/// `deeplinks doctor` against local HTTPS servers with a self-signed certificate (trusted with `--ca-file`), one
/// per fixture: a good file, a redirect, a page that is not JSON, a CDN copy that is stale, a CDN that has no copy.
/// Each broken fixture must be named by its cause.
@Suite(.serialized) struct DoctorCommandTests {
    static let good = #"""
        {"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.demo"],"components":[{"/":"/account/*","exclude":true},{"/":"/post/*"},{"/":"/search"}]}]}}
        """#
    static let stale = #"""
        {"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.demo"],"components":[{"/":"/search"}]}]}}
        """#

    /// The fixtures, each on its own port: what `GET` of `path` answers (any path when empty; 404 for others). The
    /// CDN's answer only at `/a/v1/DOMAIN`, as Apple's CDN serves it.
    static let cdnPath = "/a/v1/links.example.com"
    static let fixtures: [(name: String, path: String, status: Int, headers: [String: String], body: String)] = [
        ("good", "", 200, ["Content-Type": "application/json"], good),
        ("redirect", "", 301, ["Location": "https://www.example.com/.well-known/apple-app-site-association"], ""),
        ("html", "", 200, ["Content-Type": "text/html"], "<html><body>Not found</body></html>"),
        ("cdnSame", cdnPath, 200, ["Content-Type": "application/json"], good),
        ("stale", cdnPath, 200, ["Content-Type": "application/json"], stale),
        (
            "cdnFailure", cdnPath, 404,
            ["Apple-Failure-Reason": "SWCERR00301 Timeout", "Apple-Failure-Details": "the origin did not answer"], ""
        ),
    ]

    static let server = """
        import http.server, json, ssl, sys, threading
        fixtures = json.loads(sys.argv[3])
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        ports = {}
        def serve(name, path, status, headers, body):
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    if path and self.path != path:
                        self.send_response(404)
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    data = body.encode()
                    self.send_response(status)
                    for key, value in headers.items(): self.send_header(key, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                def log_message(self, *args): pass
            httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
            httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
            ports[name] = httpd.server_address[1]
            threading.Thread(target=httpd.serve_forever, daemon=True).start()
        for fixture in fixtures: serve(*fixture)
        print(json.dumps(ports), flush=True)
        sys.stdin.read()
        """

    struct Fixtures {
        let ports: [String: Int]
        let caFile: String
        func origin(_ name: String) -> String { "https://127.0.0.1:\(ports[name]!)" }
        func cdn(_ name: String) -> String { "https://127.0.0.1:\(ports[name]!)/a/v1/" }
    }

    static func withFixtures(_ body: (Fixtures) async throws -> Void) async throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cert = folder.appendingPathComponent("cert.pem").path
        let key = folder.appendingPathComponent("key.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ]
        openssl.standardError = FileHandle.nullDevice
        openssl.standardOutput = FileHandle.nullDevice
        try openssl.run()
        let made = try await CommandRunner.onThread {
            openssl.waitUntilExit()
            return openssl.terminationStatus == 0
        }
        try #require(made, "openssl could not make a certificate")

        let fixtures = try JSONSerialization.data(
            withJSONObject: Self.fixtures.map { [$0.name, $0.path, $0.status, $0.headers, $0.body] as [Any] }
        )
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", server, cert, key, String(decoding: fixtures, as: UTF8.self)]
        let output = Pipe()
        let input = Pipe()
        python.standardOutput = output
        python.standardInput = input
        python.standardError = FileHandle.nullDevice  // none of the test runner's output held open
        try python.run()
        defer {
            try? input.fileHandleForWriting.close()  // the fixture server exits at the end of its input
            python.terminate()
        }
        let reader = output.fileHandleForReading
        let line = try await CommandRunner.onThread { reader.availableLine() }
        let ports = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Int])
        try await body(Fixtures(ports: ports, caFile: cert))
    }

    static func doctor(_ arguments: [String], _ fixtures: Fixtures) async throws -> CommandRunner.Output {
        try await CommandRunner.runAside(["doctor"] + arguments + ["--ca-file", fixtures.caFile])
    }

    @Test func aWellServedFileWithTheSameCDNCopyOpensTheApp() async throws {
        try await Self.withFixtures { fixtures in
            let result = try await Self.doctor(
                [
                    "https://links.example.com/post/10", "--origin", fixtures.origin("good"), "--cdn-url",
                    fixtures.cdn("cdnSame"),
                ],
                fixtures
            )
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("route: post https://links.example.com/post/10"))
            #expect(result.stdout.contains("opens the app\n"))
            #expect(result.stdout.contains("the user may have chosen Safari for this domain"))
        }
    }

    @Test func eachBrokenFixtureIsNamedByItsCause() async throws {
        try await Self.withFixtures { fixtures in
            let link = "https://links.example.com/post/10"
            let cases: [([String], String)] = [
                (["--origin", fixtures.origin("redirect"), "--no-cdn"], "FILE_NOT_READ: iOS does not read the file"),
                (["--origin", fixtures.origin("redirect"), "--no-cdn"], "iOS follows no redirect"),
                (["--origin", fixtures.origin("html"), "--no-cdn"], "FILE_NOT_READ"),
                (["--origin", fixtures.origin("good"), "--cdn-url", fixtures.cdn("stale")], "CDN_STALE"),
                (["--origin", fixtures.origin("good"), "--cdn-url", fixtures.cdn("stale")], "PATH_NOT_CLAIMED"),
                (
                    ["--origin", fixtures.origin("good"), "--cdn-url", fixtures.cdn("cdnFailure")],
                    "CDN_HAS_NO_FILE: Apple's CDN holds no usable copy, so devices find no file"
                ),
                (
                    ["--origin", fixtures.origin("good"), "--cdn-url", fixtures.cdn("cdnFailure")],
                    "Apple-Failure-Reason: SWCERR00301 Timeout (the origin did not answer)"
                ),
                (["--origin", "https://127.0.0.1:1", "--no-cdn"], "FILE_UNREACHABLE"),
                (
                    ["--origin", fixtures.origin("good"), "--no-cdn", "--referrer", "https://links.example.com/blog"],
                    "SAME_DOMAIN_TAP"
                ),
                (
                    [
                        "--origin", fixtures.origin("good"), "--no-cdn", "--user-agent",
                        "Mozilla/5.0 (iPhone) Instagram 340.0.0.22.109",
                    ],
                    "IN_APP_BROWSER: Instagram's own browser"
                ),
            ]
            for (arguments, cause) in cases {
                let result = try await Self.doctor([link] + arguments, fixtures)
                #expect(result.status == 1, "\(arguments): \(result.stdout)\(result.stderr)")
                #expect(result.stdout.contains(cause), "\(arguments): \(result.stdout)")
                #expect(result.stdout.contains("opens Safari, because:"))
            }
            let excluded = try await Self.doctor(
                ["https://links.example.com/account/settings", "--origin", fixtures.origin("good"), "--no-cdn"],
                fixtures
            )
            #expect(excluded.stdout.contains("PATH_EXCLUDED"), "\(excluded.stdout)")
        }
    }

    @Test func aMailScannersRewriteIsUnwrappedAndNamed() async throws {
        try await Self.withFixtures { fixtures in
            let wrapped =
                "https://eur01.safelinks.protection.outlook.com/?url=https%3A%2F%2Flinks.example.com%2Fpost%2F10&data=05%7C01&reserved=0"
            let result = try await Self.doctor(
                [wrapped, "--origin", fixtures.origin("good"), "--no-cdn", "--json"],
                fixtures
            )
            #expect(result.status == 1)
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            )
            #expect(report["url"] as? String == "https://links.example.com/post/10")
            #expect(report["opensApp"] as? Bool == false)
            let codes = (report["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            #expect(codes == ["MAIL_SCANNER_REWRITE"], "the rest is fine: \(result.stdout)")
            #expect((report["trace"] as? [String])?.isEmpty == false)
        }
    }

    /// A short-link domain (an earlier `page.link`-style one) is judged for the first app, its path as a code: the
    /// command has no database, so it says the code is not looked up (the console's doctor looks it up).
    @Test func aShortLinkDomainIsJudgedForTheFirstApp() async throws {
        try await Self.withFixtures { fixtures in
            let options = ["--other-link-domain", "old.page.example", "--origin", fixtures.origin("good"), "--no-cdn"]
            let code = try await Self.doctor(["https://old.page.example/search"] + options, fixtures)
            #expect(code.status == 0, "\(code.stdout)\(code.stderr)")
            #expect(code.stdout.contains("app ABCDE12345.com.example.demo (old.page.example is a short-link domain)"))
            #expect(code.stdout.contains("the app asks the server for the link of code search (not looked up here)"))
            let path = try await Self.doctor(["https://old.page.example/post/10"] + options, fixtures)
            #expect(path.status == 1 && path.stdout.contains("NO_SUCH_LINK"), "\(path.stdout)")
            #expect(!path.stdout.contains("DOMAIN_NOT_CONFIGURED"))
        }
    }

    @Test func badInputsAreRefusedWithAReason() async throws {
        try await Self.withFixtures { fixtures in
            let custom = try await Self.doctor(["demoapp://post/10", "--no-cdn"], fixtures)
            #expect(custom.status == 1 && custom.stdout.contains("NOT_A_UNIVERSAL_LINK"))
            let elsewhere = try await Self.doctor(["https://other.example.org/post/1", "--no-cdn"], fixtures)
            #expect(elsewhere.status == 1 && elsewhere.stdout.contains("DOMAIN_NOT_CONFIGURED"))
            let garbage = try await Self.doctor(["https://links.example.com/\u{7}", "--no-cdn"], fixtures)
            #expect(garbage.status == 2 && garbage.stdout.contains("NOT_A_LINK"))
        }
    }
}

extension FileHandle {
    /// Reads up to the first newline (the fixture server's one line of ports).
    fileprivate func availableLine() -> String {
        var bytes: [UInt8] = []
        while true {
            let chunk = readData(ofLength: 1)
            guard let byte = chunk.first, byte != UInt8(ascii: "\n") else { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
