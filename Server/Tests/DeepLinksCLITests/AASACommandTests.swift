import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct AASACommandTests {
    static let app = "ABCDE12345.com.example.app"

    static func write(_ json: String) throws -> (URL, String) {
        let folder = try CommandRunner.temporaryFolder()
        let path = folder.appendingPathComponent("apple-app-site-association").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return (folder, path)
    }

    static let good =
        ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"#": "no_universal_links", "exclude": true}, {"/": "/buy/*"}]}]}}"##

    @Test func validateExitsZeroForAValidFile() throws {
        let (folder, path) = try Self.write(Self.good)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try CommandRunner.run(["aasa", "validate", path])
        #expect(output.status == 0)
        #expect(output.stdout == "valid (0 errors, 0 warnings)\n")
    }

    @Test func validateExitsOneAndListsEveryDiagnostic() throws {
        let (folder, path) = try Self.write(
            #"{"applinks": {"details": [{"appIDs": ["bad"], "components": [{"?": {"x": 1}}]}]}}"#
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try CommandRunner.run(["aasa", "validate", path])
        #expect(output.status == 1)
        #expect(
            output.stdout == """
                error AASA_APPID_FORMAT at /applinks/details/0/appIDs/0: 'bad' is not TEAMID.bundle.id (ten upper-case letters or digits, a dot, then letters, digits, '.' or '-')
                error AASA_QUERY_PREDICATE_TYPE at /applinks/details/0/components/0/?/x: query value is a number: iOS then ignores the whole '?' dictionary and the rule matches any query
                invalid (2 errors, 0 warnings)

                """
        )
    }

    @Test func validateJSONHasTheDocumentedShape() throws {
        let (folder, path) = try Self.write(#"{"applinks": {"details": []}}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try CommandRunner.run(["aasa", "validate", "--json", path])
        #expect(output.status == 0)
        #expect(
            output.stdout
                == #"{"diagnostics":[{"code":"AASA_EMPTY_DETAILS","message":"'details' is empty: no app gets universal links","pointer":"/applinks/details","severity":"warning"}],"valid":true}"#
                + "\n"
        )
    }

    @Test func anUnreadableFileExitsTwo() throws {
        let validate = try CommandRunner.run(["aasa", "validate", "/no/such/file"])
        #expect(validate.status == 2)
        #expect(validate.stderr == "error: /no/such/file: cannot be read\n")
        let match = try CommandRunner.run(["aasa", "match", "/no/such/file", "--app", Self.app, "https://example.com/"])
        #expect(match.status == 2)
    }

    @Test func matchPrintsOneVerdictPerURLAndExitsZero() throws {
        let (folder, path) = try Self.write(Self.good)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try CommandRunner.run([
            "aasa", "match", path, "--app", Self.app,
            "https://example.com/buy/1", "https://example.com/buy/1#no_universal_links", "https://example.com/sell",
        ])
        #expect(output.status == 0)
        #expect(
            output.stdout
                == "match https://example.com/buy/1\nexclude https://example.com/buy/1#no_universal_links\nnomatch https://example.com/sell\n"
        )
    }

    @Test func matchExplainsAndPrintsJSON() throws {
        let (folder, path) = try Self.write(Self.good)
        defer { try? FileManager.default.removeItem(at: folder) }
        let explained = try CommandRunner.run([
            "aasa", "match", path, "--app", Self.app, "--explain", "https://example.com/sell",
        ])
        #expect(
            explained.stdout == """
                nomatch https://example.com/sell
                  /applinks/details/0 names ABCDE12345.com.example.app (2 rules)
                  no rule matches; closest: /applinks/details/0/components/1: path pattern '/buy/*' does not match '/sell'

                """
        )
        let json = try CommandRunner.run([
            "aasa", "match", path, "--app", Self.app, "--json", "--domain", "example.com", "https://example.com/buy/2",
        ])
        #expect(
            json.stdout
                == #"{"trace":["/applinks/details/0 names ABCDE12345.com.example.app (2 rules)","/applinks/details/0/components/1 matches: match"],"url":"https://example.com/buy/2","verdict":"match"}"#
                + "\n"
        )
    }

    @Test func anInvalidFileIsStillMatchedAsIOSReadsItWithDiagnosticsOnStderr() throws {
        // Q9: a non-string query value voids the dictionary, so the rule matches any query.
        let (folder, path) = try Self.write(
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/a", "?": {"x": "1", "y": true}}]}]}}"#
        )
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try CommandRunner.run(["aasa", "match", path, "--app", Self.app, "https://example.com/a?x=2"])
        #expect(output.status == 0)
        #expect(output.stdout == "match https://example.com/a?x=2\n")
        #expect(output.stderr.hasPrefix("error AASA_QUERY_PREDICATE_TYPE at /applinks/details/0/components/0/?/y"))
    }

    @Test func matchExitsTwoWhenTheFileIsNotAJSONObject() throws {
        let (folder, path) = try Self.write("[1, 2]")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try CommandRunner.run(["aasa", "match", path, "--app", Self.app, "https://example.com/"])
        #expect(output.status == 2)
        #expect(output.stderr == "error: \(path): not a JSON object\n")
    }
}

/// `deeplinks aasa fetch` against a real HTTP server on loopback (Python's http.server).
@Suite struct AASAFetchTests {
    final class StaticServer {
        let process = Process()
        let folder: URL
        var port = 0

        init() throws {
            folder = try CommandRunner.temporaryFolder()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", folder.path,
            ]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            // "Serving HTTP on 127.0.0.1 port 43211 (http://127.0.0.1:43211/) ..."
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line.append(chunk)
            }
            let text = String(decoding: line, as: UTF8.self)
            port =
                text.components(separatedBy: " port ").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
        }

        func write(_ relativePath: String, _ contents: String) throws {
            let url = folder.appendingPathComponent(relativePath)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try contents.write(to: url, atomically: true, encoding: .utf8)
        }

        /// Ends the server with SIGKILL: the test process runs its children with SIGTERM blocked (it is inherited
        /// across exec), so `terminate()` left every one of them running.
        deinit {
            kill(process.processIdentifier, SIGKILL)
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test func aWellServedFileIsFetchedFromWellKnownAndValidated() throws {
        let server = try StaticServer()
        try #require(server.port > 0, "python3 http.server did not start")
        try server.write(".well-known/apple-app-site-association", AASACommandTests.good)
        let output = try CommandRunner.run(["aasa", "fetch", "--allow-http", "http://127.0.0.1:\(server.port)"])
        #expect(output.status == 0, "\(output.stderr)")
        // http.server sends application/octet-stream for a file without an extension: a warning (H4), as iOS accepts it.
        #expect(
            output.stdout == """
                fetched http://127.0.0.1:\(server.port)/.well-known/apple-app-site-association
                warning HOSTING_CONTENT_TYPE at /: Content-Type is application/octet-stream; serve application/json
                valid (0 errors, 1 warnings)

                """
        )
    }

    @Test func aRedirectIsAnErrorAndIsNotFollowed() throws {
        let server = try StaticServer()
        try #require(server.port > 0)
        // A folder answers 301 to its name with a trailing slash.
        try server.write("old/apple-app-site-association/index.html", AASACommandTests.good)
        let output = try CommandRunner.run([
            "aasa", "fetch", "--allow-http", "http://127.0.0.1:\(server.port)/old/apple-app-site-association",
        ])
        #expect(output.status == 1)
        #expect(
            output.stdout.contains(
                "error HOSTING_REDIRECT at /: http://127.0.0.1:\(server.port)/old/apple-app-site-association answers 301 to /old/apple-app-site-association/: iOS follows no redirect"
            )
        )
    }

    @Test func theRootPathAloneIsAWarningAndAMissingFileAnError() throws {
        let server = try StaticServer()
        try #require(server.port > 0)
        let missing = try CommandRunner.run(["aasa", "fetch", "--allow-http", "http://127.0.0.1:\(server.port)"])
        #expect(missing.status == 1)
        #expect(
            missing.stdout.contains(
                "error HOSTING_STATUS at /: http://127.0.0.1:\(server.port)/apple-app-site-association answers 404, not 200"
            )
        )
        try server.write("apple-app-site-association", AASACommandTests.good)
        let rootOnly = try CommandRunner.run(["aasa", "fetch", "--allow-http", "http://127.0.0.1:\(server.port)"])
        #expect(rootOnly.status == 0)
        #expect(rootOnly.stdout.contains("warning HOSTING_ROOT_ONLY"))
    }

    @Test func anOversizedFileIsAnError() throws {
        let server = try StaticServer()
        try #require(server.port > 0)
        try server.write(
            ".well-known/apple-app-site-association",
            String(repeating: " ", count: 140_000) + AASACommandTests.good
        )
        let output = try CommandRunner.run(["aasa", "fetch", "--allow-http", "http://127.0.0.1:\(server.port)"])
        #expect(output.status == 1)
        #expect(output.stdout.contains("error AASA_TOO_LARGE"))
    }

    @Test func plainHTTPNeedsTheFlagAndAClosedPortExitsTwo() throws {
        let http = try CommandRunner.run(["aasa", "fetch", "http://127.0.0.1:1"])
        #expect(http.status == 2)
        #expect(
            http.stderr
                == "error: 'http://127.0.0.1:1': iOS fetches the file over https only (use --allow-http for a loopback test server)\n"
        )
        let closed = try CommandRunner.run(["aasa", "fetch", "--allow-http", "--timeout", "1", "http://127.0.0.1:1"])
        #expect(closed.status == 2)
        #expect(
            closed.stderr.hasPrefix("error: cannot fetch http://127.0.0.1:1/.well-known/apple-app-site-association: ")
        )
    }
}

@Suite struct AASAEntitlementOptionTests {
    @Test func entitlementsDecideWhichHostsTheFileGoverns() throws {
        let (folder, path) = try AASACommandTests.write(AASACommandTests.good)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try CommandRunner.run([
            "aasa", "match", path, "--app", AASACommandTests.app, "--domain", "example.com",
            "--entitlement", "applinks:*.example.com", "https://shop.example.com/buy/1", "https://example.com/buy/1",
        ])
        #expect(output.status == 0)
        #expect(output.stdout == "match https://shop.example.com/buy/1\nnomatch https://example.com/buy/1\n")
        let bad = try CommandRunner.run([
            "aasa", "match", path, "--app", AASACommandTests.app, "--entitlement", "applinks:example.com:443",
            "https://example.com/",
        ])
        #expect(bad.status == 2)
        #expect(
            bad.stderr
                == "error: entitlement 'applinks:example.com:443' the entry holds only a host: no scheme, path, port or trailing slash (E2, E5)\n"
        )
    }
}
