import Foundation
import Testing

@Suite struct RouteCommandTests {
    static let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/demo-routes.json").path
    static let token = "AbCdEfGhIjKlMnOpQrStUvWxYz012345-_"

    @Test func eachURLGetsItsRouteOrItsRejectionOnOneLine() throws {
        let output = try CommandRunner.run([
            "route", "--manifest", Self.manifest,
            "demoapp://post/10",
            "https://links.example.com/search?q=a+b&tag=x&tag=y",
            "demoapp://reset-password?token=\(Self.token)&email=user%2Btag%40example.com",
            "otherapp://post/10",
            "https://links.example.com/post/%ZZ",
        ])
        #expect(output.status == 1)
        #expect(
            output.stdout == """
                demoapp://post/10 -> post /post/:id id=10
                https://links.example.com/search?q=a+b&tag=x&tag=y -> search /search page=1 q=a+b tag=x,y
                demoapp://reset-password?token=REDACTED&email=REDACTED -> reset-password-scheme /reset-password email=<redacted> token=<redacted>
                otherapp://post/10 -> refused scheme_not_accepted: the scheme 'otherapp' is not one of this app's (demoapp)
                https://links.example.com/post/%ZZ -> refused invalid_percent_encoding in path at 31: '%' is not followed by two hexadecimal digits

                """
        )
        #expect(!output.stdout.contains(Self.token))
    }

    @Test func exitCodeIsZeroWhenEveryURLIsRouted() throws {
        let output = try CommandRunner.run([
            "route", "--manifest", Self.manifest, "demoapp://post/new", "https://links.example.com/",
        ])
        #expect(output.status == 0)
        #expect(output.stdout == "demoapp://post/new -> new-post /post/new\nhttps://links.example.com/ -> home /\n")
    }

    @Test func aRouteThatNeedsConfirmationSaysSo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("routes.json")
        try Data(
            #"""
            {"version": 1, "schemes": ["demoapp"], "hosts": [], "routes": [
              {"name": "delete-post", "pattern": "/post/:id/delete", "sources": ["customScheme"],
               "parameters": [], "confirm": true}]}
            """#.utf8
        ).write(to: manifest)
        let text = try CommandRunner.run(["route", "--manifest", manifest.path, "demoapp://post/7/delete"])
        #expect(text.stdout == "demoapp://post/7/delete -> delete-post /post/:id/delete id=7 (requires confirmation)\n")
        let json = try CommandRunner.run(["route", "--json", "--manifest", manifest.path, "demoapp://post/7/delete"])
        let line = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(line?["requiresConfirmation"] as? Bool == true)
    }

    @Test func jsonPrintsOneObjectPerLine() throws {
        let output = try CommandRunner.run([
            "route", "--json", "--manifest", Self.manifest,
            "https://links.example.com/reset-password#token=\(Self.token)", "demoapp://nowhere",
        ])
        let lines = output.stdout.split(separator: "\n").map {
            try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        #expect(lines.count == 2)
        #expect(lines[0]["matched"] as? Bool == true)
        #expect(lines[0]["route"] as? String == "reset-password")
        #expect(lines[0]["url"] as? String == "https://links.example.com/reset-password#token=REDACTED")
        #expect((lines[0]["parameters"] as? [String: [String]]) == ["token": ["<redacted>"]])
        #expect(lines[1]["matched"] as? Bool == false)
        #expect(lines[1]["code"] as? String == "no_route")
        #expect(!output.stdout.contains(Self.token))
    }

    @Test(arguments: [
        ("/no/such/manifest.json", "error: /no/such/manifest.json: cannot be read\n")
    ])
    func anUnreadableManifestExitsWith2(_ path: String, _ message: String) throws {
        let output = try CommandRunner.run(["route", "--manifest", path, "demoapp://post/1"])
        #expect(output.status == 2)
        #expect(output.stderr == message)
    }

    @Test(arguments: [
        ("{", "is not a route manifest: is not valid JSON"),
        (
            #"{"version": 1, "schemes": ["demoapp"], "hosts": [], "routes": [{"name": "a"}]}"#,
            "is not a route manifest: routes[0].pattern: is required"
        ),
        (
            #"{"version": 1, "schemes": ["demoapp"], "hosts": [], "routes": [{"name": "a", "pattern": "/a/:", "sources": ["customScheme"], "parameters": []}]}"#,
            "error: invalid_pattern [a]: pattern '/a/:': segment 2 is a parameter without a name"
        ),
    ])
    func anInvalidManifestExitsWith2AndSaysWhy(_ json: String, _ reason: String) throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("m.json").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        let output = try CommandRunner.run(["route", "--manifest", path, "demoapp://post/1"])
        #expect(output.status == 2)
        #expect(output.stderr == "error: \(path): \(reason)\n")
    }
}
