import Foundation
import Testing

@Suite struct AASACommandTests {
    static let app = "ABCDE12345.com.example.app"

    static func write(_ json: String) throws -> (URL, String) {
        let folder = try CommandRunner.temporaryFolder()
        let path = folder.appendingPathComponent("apple-app-site-association").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return (folder, path)
    }

    static let good = ##"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"#": "no_universal_links", "exclude": true}, {"/": "/buy/*"}]}]}}"##

    @Test func validateExitsZeroForAValidFile() throws {
        let (folder, path) = try Self.write(Self.good)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try CommandRunner.run(["aasa", "validate", path])
        #expect(output.status == 0)
        #expect(output.stdout == "valid (0 errors, 0 warnings)\n")
    }

    @Test func validateExitsOneAndListsEveryDiagnostic() throws {
        let (folder, path) = try Self.write(#"{"applinks": {"details": [{"appIDs": ["bad"], "components": [{"?": {"x": 1}}]}]}}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try CommandRunner.run(["aasa", "validate", path])
        #expect(output.status == 1)
        #expect(output.stdout == """
            error AASA_APPID_FORMAT at /applinks/details/0/appIDs/0: 'bad' is not TEAMID.bundle.id (ten upper-case letters or digits, a dot, then letters, digits, '.' or '-')
            error AASA_QUERY_PREDICATE_TYPE at /applinks/details/0/components/0/?/x: query value is a number: iOS then ignores the whole '?' dictionary and the rule matches any query
            invalid (2 errors, 0 warnings)

            """)
    }

    @Test func validateJSONHasTheDocumentedShape() throws {
        let (folder, path) = try Self.write(#"{"applinks": {"details": []}}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try CommandRunner.run(["aasa", "validate", "--json", path])
        #expect(output.status == 0)
        #expect(output.stdout == #"{"diagnostics":[{"code":"AASA_EMPTY_DETAILS","message":"'details' is empty: no app gets universal links","pointer":"/applinks/details","severity":"warning"}],"valid":true}"# + "\n")
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
        #expect(output.stdout == "match https://example.com/buy/1\nexclude https://example.com/buy/1#no_universal_links\nnomatch https://example.com/sell\n")
    }

    @Test func matchExplainsAndPrintsJSON() throws {
        let (folder, path) = try Self.write(Self.good)
        defer { try? FileManager.default.removeItem(at: folder) }
        let explained = try CommandRunner.run(["aasa", "match", path, "--app", Self.app, "--explain", "https://example.com/sell"])
        #expect(explained.stdout == """
            nomatch https://example.com/sell
              /applinks/details/0 names ABCDE12345.com.example.app (2 rules)
              no rule matches; closest: /applinks/details/0/components/1: path pattern '/buy/*' does not match '/sell'

            """)
        let json = try CommandRunner.run(["aasa", "match", path, "--app", Self.app, "--json", "--domain", "example.com", "https://example.com/buy/2"])
        #expect(json.stdout == #"{"trace":["/applinks/details/0 names ABCDE12345.com.example.app (2 rules)","/applinks/details/0/components/1 matches: match"],"url":"https://example.com/buy/2","verdict":"match"}"# + "\n")
    }

    @Test func anInvalidFileIsStillMatchedAsIOSReadsItWithDiagnosticsOnStderr() throws {
        // Q9: a non-string query value voids the dictionary, so the rule matches any query.
        let (folder, path) = try Self.write(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "/a", "?": {"x": "1", "y": true}}]}]}}"#)
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
