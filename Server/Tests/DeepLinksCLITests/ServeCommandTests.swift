import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct ServeCommandTests {
    @Test func serveListensAnswersHealthzAndStopsGracefullyOnSIGTERM() async throws {
        try await runServerAndStop(with: SIGTERM)
    }

    @Test func serveStopsGracefullyOnSIGINT() async throws {
        try await runServerAndStop(with: SIGINT)
    }

    private func runServerAndStop(with signal: Int32) async throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // No database or mail flag: the embedded defaults, relative to the working directory.
        let (process, log) = try CommandRunner.startInBackground(["serve", "--port", "0"], in: folder)
        defer { if process.isRunning { process.terminate() } }

        let listening = try await log.waitForLine(containing: "listening on http://127.0.0.1:")
        let line = try #require(listening, "no 'listening on' line; log so far:\n\(log.contents)")
        let port = try #require(line.split(separator: ":").last.flatMap { Int($0.prefix(while: \.isNumber)) })
        #expect(try await log.waitForLine(containing: "try: curl http://127.0.0.1:\(port)/healthz") != nil)
        // The demo configuration has no landing domain: the start says why that matters.
        #expect(
            try await log.waitForLine(containing: "no landing domain: landing pages are served on the link domain")
                != nil
        )

        let (body, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/healthz")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let report = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        #expect((report?["database"] as? [String: Any])?["kind"] as? String == "sqlite")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("var/deeplinks.sqlite").path))

        kill(process.processIdentifier, signal)
        let deadline = ContinuousClock.now + .seconds(20)
        while process.isRunning && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(!process.isRunning, "the server did not stop within 20 s")
        #expect(process.terminationStatus == 0)
        #expect(try await log.waitForLine(containing: "stopped", timeout: .seconds(2)) != nil)
    }
}

@Suite struct MigrateCommandTests {
    @Test func migrateTwiceAppliesThenReportsUpToDate() throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = "sqlite:\(folder.path)/db.sqlite"
        let first = try CommandRunner.run(["migrate", "--database-url", url])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(
            first.stdout
                == "\(url): applied 19 migration(s) (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19); schema version 19\n"
        )
        let second = try CommandRunner.run(["migrate"], environment: ["DEEPLINKS_DATABASE_URL": url])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout == "\(url): up to date at schema version 19\n")
    }

    @Test(arguments: [
        (
            ["--database-url", "mysql://root:hunter2@127.0.0.1/db"],
            "error: database URL: unsupported scheme 'mysql': use sqlite:PATH or postgres://USER:PASSWORD@HOST/DATABASE\n"
        ),
        (
            ["--database-url", "postgres://app:hunter2@127.0.0.1:1/db?sslmode=disable"],
            "error: cannot open the database at postgres://app:***@127.0.0.1:1/db?sslmode=disable: "
        ),
        (
            ["--database-url", "postgres://app:hunter2@127.0.0.1:5432/db?sslmode=sometimes"],
            "error: cannot open the database at postgres://app:***@127.0.0.1:5432/db?sslmode=sometimes: the URL is not valid (check sslmode and the database name)\n"
        ),
        (
            ["--database-url", "sqlite:/proc/forbidden/db.sqlite"],
            "error: cannot open the database at sqlite:/proc/forbidden/db.sqlite: cannot create the folder /proc/forbidden: "
        ),
        (
            ["--log-level", "loud"],
            "error: log level: 'loud' is not one of trace, debug, info, notice, warning, error, critical\n"
        ),
    ])
    func badSettingsEndWithOneLineAndExitCode1(_ arguments: [String], _ expectedStart: String) throws {
        for command in ["migrate", "serve"] {
            let output = try CommandRunner.run([command] + arguments)
            #expect(output.status == 1, "\(command) \(arguments)")
            #expect(output.stderr.hasPrefix(expectedStart), "\(command): \(output.stderr)")
            #expect(output.stderr.filter { $0 == "\n" }.count == 1, "one line, got: \(output.stderr)")
            #expect(!output.stderr.contains("hunter2"))
            #expect(output.stdout.isEmpty)
        }
    }

    @Test func serveAndCheckNeedTheAppConfiguration() throws {
        for command in ["serve", "check"] {
            let missing = try CommandRunner.run([command], demo: false)
            #expect(missing.status == 1)
            #expect(
                missing.stderr
                    == "error: app configuration: none given: pass --config FILE or set DEEPLINKS_CONFIG (Server/Examples/demo-app.json describes the demo app)\n"
            )
            let unreadable = try CommandRunner.run([command, "--config", "/no/such/file.json"])
            #expect(unreadable.status == 1)
            #expect(unreadable.stderr.hasPrefix("error: /no/such/file.json: cannot be read ("), "\(unreadable.stderr)")
        }
    }

    /// `migrate` and `outbox` read only the database and the log level.
    @Test func aBadPortIsNamed() throws {
        let flag = try CommandRunner.run(["serve", "--port", "99999"])
        #expect(flag.status == 1)
        #expect(flag.stderr == "error: --port: '99999' is not a port number (0-65535)\n")
        let environment = try CommandRunner.run(["serve"], environment: ["DEEPLINKS_PORT": "http"])
        #expect(environment.status == 1)
        #expect(environment.stderr == "error: DEEPLINKS_PORT: 'http' is not a port number (0-65535)\n")
    }

    @Test(arguments: [
        ("64", "'64' is less than 1MiB"),
        ("lots", "'lots' is not a size (a whole number of bytes, or one with KiB, MiB or GiB: 256MiB)"),
        ("2TiB", "'2TiB' is not a size (a whole number of bytes, or one with KiB, MiB or GiB: 256MiB)"),
        ("-1GiB", "'-1GiB' is not a size (a whole number of bytes, or one with KiB, MiB or GiB: 256MiB)"),
        ("4096GiB", "'4096GiB' is more than 1TiB"),
        ("1023KiB", "'1023KiB' is less than 1MiB"),
    ])
    func aBadLinkCacheSizeIsNamed(_ size: String, _ reason: String) throws {
        let flag = try CommandRunner.run(["serve", "--link-cache-size=\(size)"])
        #expect(flag.status == 1)
        #expect(flag.stderr == "error: link cache size: \(reason)\n")
        let environment = try CommandRunner.run(["serve"], environment: ["DEEPLINKS_LINK_CACHE_SIZE": size])
        #expect(environment.stderr == "error: link cache size: \(reason)\n")
    }

    @Test func helpDocumentsEveryOptionAndItsEnvironmentVariable() throws {
        let output = try CommandRunner.run(["serve", "--help"])
        #expect(output.status == 0)
        for variable in [
            "DEEPLINKS_HOST", "DEEPLINKS_PORT", "DEEPLINKS_CONFIG", "DEEPLINKS_DATABASE_URL", "DEEPLINKS_MAIL_URL",
            "DEEPLINKS_LOG_LEVEL", "DEEPLINKS_LINK_CACHE_SIZE",
        ] {
            #expect(output.stdout.contains(variable), "\(variable) missing from serve --help")
        }
    }
}
