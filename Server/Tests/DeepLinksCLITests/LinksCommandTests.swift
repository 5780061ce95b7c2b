import Foundation
import Testing

/// `deeplinks links import` against a real `deeplinks serve`: a row per line, exit 1 when a row is refused, 2 when
/// the import cannot run, and a dry run that writes nothing.
@Suite struct LinksCommandTests {
    static let key = "an-admin-key-for-the-cli-tests-0123456789"

    @Test func importSendsTheFileAndPrintsEachRow() async throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try CommandRunner.start(
            ["serve", "--port", "0"],
            environment: ["DEEPLINKS_ADMIN_KEY": Self.key],
            in: folder
        )
        let log = LineCollector((server.standardError as! Pipe).fileHandleForReading)
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
        #expect(real.stdout.contains("line 3\taway\trefused: elsewhere.example.net is not a domain of the app"))

        let onlyGood = folder.appendingPathComponent("good.csv")
        try Data("code,route\nautumn,/post/4\n".utf8).write(to: onlyGood)
        let good = try await CommandRunner.runAside(
            ["links", "import", onlyGood.path, "--server", address],
            environment: environment
        )
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        #expect(good.stdout.hasSuffix("1 imported, 0 replaced, 0 skipped, 0 refused\n"))

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
    }
}
