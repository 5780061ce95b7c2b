import Foundation
import Testing

/// `deeplinks links import` against a real `deeplinks serve`: a row per line, exit 1 when a row is refused, 2 when
/// the import cannot run, and a dry run that writes nothing.
@Suite struct LinksCommandTests {
    static let key = "an-admin-key-for-the-cli-tests-0123456789"

    @Test func importSendsTheFileAndPrintsEachRow() async throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (server, log) = try CommandRunner.startInBackground(
            ["serve", "--port", "0"],
            environment: ["DEEPLINKS_ADMIN_KEY": Self.key],
            in: folder
        )
        defer { if server.isRunning { server.terminate() } }
        let listening = try #require(try await log.waitForLine(containing: "listening on http://127.0.0.1:"))
        let port = try #require(listening.split(separator: ":").last.flatMap { Int($0.prefix(while: \.isNumber)) })
        let address = "http://127.0.0.1:\(port)"

        let export = folder.appendingPathComponent("dub.csv")
        try Data(
            "id,domain,key,url\n1,dub.sh,spring,https://links.example.com/post/3\n2,dub.sh,away,https://elsewhere.example.net/\n"
                .utf8
        ).write(to: export)
        let environment = ["DEEPLINKS_ADMIN_KEY": Self.key]

        let dry = try await CommandRunner.runAside(
            ["links", "import", export.path, "--format", "dub", "--dry-run", "--server", address],
            environment: environment
        )
        #expect(dry.status == 1, "a row is refused: \(dry.stderr)")
        #expect(dry.stdout.contains("line 2\tspring\tvalid\n"), "\(dry.stdout)")
        #expect(dry.stdout.contains("0 imported, 0 replaced, 0 skipped, 1 refused, 1 valid (dry run: nothing written)"))

        let real = try await CommandRunner.runAside(
            ["links", "import", export.path, "--format", "dub", "--server", address],
            environment: environment
        )
        #expect(real.stdout.contains("line 2\tspring\timported\n"), "\(real.stdout)")
        #expect(
            real.stdout.contains(
                "line 3\taway\trefused: destinations.fallback: elsewhere.example.net is not on the destination allowlist"
            ),
            "\(real.stdout)"
        )

        let onlyGood = folder.appendingPathComponent("good.csv")
        try Data("code,route\nautumn,/post/4\n".utf8).write(to: onlyGood)
        let good = try await CommandRunner.runAside(
            ["links", "import", onlyGood.path, "--server", address],
            environment: environment
        )
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        #expect(good.stdout.hasSuffix("1 imported, 0 replaced, 0 skipped, 0 refused; read as csv\n"), "\(good.stdout)")

        let noKey = try await CommandRunner.runAside(["links", "import", onlyGood.path, "--server", address])
        #expect(noKey.status == 2)
        #expect(noKey.stderr == "error: DEEPLINKS_ADMIN_KEY is not set: the import needs the server's admin key\n")
        let badFormat = try await CommandRunner.runAside(
            ["links", "import", onlyGood.path, "--format", "xls", "--server", address],
            environment: environment
        )
        #expect(badFormat.status == 2)
        #expect(badFormat.stderr.contains("the server refused the import"))
        let nowhere = try await CommandRunner.runAside(
            ["links", "import", onlyGood.path, "--server", "http://127.0.0.1:1"],
            environment: environment
        )
        #expect(nowhere.status == 2 && nowhere.stderr.hasPrefix("error: cannot reach http://127.0.0.1:1"))
        let missing = try await CommandRunner.runAside(
            ["links", "import", folder.appendingPathComponent("none.csv").path, "--server", address],
            environment: environment
        )
        #expect(missing.status == 2 && missing.stderr.contains("cannot read"))

        // The server from DEEPLINKS_SERVER_URL, named when it cannot be reached.
        var fromEnvironment = environment
        fromEnvironment["DEEPLINKS_SERVER_URL"] = address
        #expect(
            try await CommandRunner.runAside(["links", "import", onlyGood.path], environment: fromEnvironment).status
                == 0
        )
        fromEnvironment["DEEPLINKS_SERVER_URL"] = "http://127.0.0.1:1"
        let unreachable = try await CommandRunner.runAside(
            ["links", "import", onlyGood.path],
            environment: fromEnvironment
        )
        #expect(
            unreachable.status == 2
                && unreachable.stderr.contains("cannot reach http://127.0.0.1:1 (DEEPLINKS_SERVER_URL)")
        )

        // Batches: each reported, rows numbered as in the file (the header is 1), a quoted line break kept within
        // its row; a run after an interruption goes on after the last batch that finished.
        let many = folder.appendingPathComponent("many.csv")
        let text =
            "\u{FEFF}code,route,title\r\nbb1,/post/1,\"two\r\nlines\"\r\nbb2,/post/2,\r\nbb3,/post/3,\"three, with a comma\"\r\n"
            + "bb4,/nowhere,\r\nbb5,/post/5,"
        try Data(text.utf8).write(to: many)
        let batched = try await CommandRunner.runAside(
            ["links", "import", many.path, "--batch-size", "2", "--server", address],
            environment: environment
        )
        #expect(batched.status == 1, "bb4 is refused")
        // A title's line break is a space: never a reason to refuse a link (#40).
        for expected in [
            "batch of rows 1-2: 2 imported, 0 replaced, 0 skipped, 0 refused", "line 2\tbb1\timported",
            "line 3\tbb2\timported", "line 5\tbb4\trefused", "line 6\tbb5\timported",
            "4 imported, 0 replaced, 0 skipped, 1 refused",
        ] {
            #expect(batched.stdout.contains(expected), "\(expected): \(batched.stdout)")
        }
        let stopped = URL(fileURLWithPath: many.path + ".import-progress")
        let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: stopped)) as? [String: Any]
        #expect(saved?["rows"] as? Int == 5, "a refused row leaves the progress, to fix the file and go on")
        try JSONSerialization.data(withJSONObject: ["sha256": saved?["sha256"] ?? "", "rows": 4]).write(to: stopped)
        let resumed = try await CommandRunner.runAside(
            ["links", "import", many.path, "--batch-size", "2", "--server", address],
            environment: environment
        )
        #expect(resumed.stdout.contains("going on after row 5 of 5"), "\(resumed.stdout)")
        #expect(resumed.stdout.contains("line 6\tbb5\tskipped") && !resumed.stdout.contains("bb1"))
        let title = try await CommandRunner.runAside(
            ["links", "export", "--server", address],
            environment: environment
        )
        #expect(title.stdout.contains("bb1,,/post/1,,,,,,two  lines,"), "\(title.stdout)")
        #expect(resumed.status == 0 && !FileManager.default.fileExists(atPath: stopped.path), "done: forgotten")

        // Export: every link, all its fields, as this server's CSV.
        let exported = try await CommandRunner.runAside(
            ["links", "export", "--server", address],
            environment: environment
        )
        #expect(exported.status == 0)
        #expect(
            exported.stdout.hasPrefix(
                "code,app,route,ios,ipad,android,desktop,fallback,title,description,image,passQuery,expiresAt,expiredURL,campaign,rules\n"
            )
        )
        #expect(
            exported.stdout.contains("bb3,,/post/3,,,,,,\"three, with a comma\",,,true,,,,\n"),
            "\(exported.stdout)"
        )
    }
}
