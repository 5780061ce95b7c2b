import Foundation
import Testing

/// `deeplinks open`: what the configured app would do with a URL.
@Suite struct OpenCommandTests {
    @Test func aClaimedUniversalLinkReachesItsRouteWithSecretsRedacted() throws {
        let token = "abcdefghijabcdefghijabcdefghijabcdefghij123"
        let result = try CommandRunner.run([
            "open", "https://links.example.com/reset-password#token=\(token)&email=a%40b.c",
        ])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("route: reset-password /reset-password email=<redacted> token=<redacted>\n"))
        #expect(result.stdout.contains("association: match\n"))
        #expect(result.stdout.hasSuffix("handled: the app opens reset-password\n"))
        #expect(!result.stdout.contains(token) && !result.stdout.contains("a%40b.c"))
    }

    @Test func aCustomSchemeLinkReachesItsRoute() throws {
        let result = try CommandRunner.run(["open", "--json", "demoapp://search?q=caf%C3%A9&tag=a&tag=b"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(report["handled"] as? Bool == true)
        #expect(report["route"] as? String == "search")
        #expect((report["parameters"] as? [String: [String]])?["q"] == ["café"])
        #expect(report["association"] == nil, "no association file for a custom scheme")
    }

    @Test(arguments: [
        (
            "demoapp://post/x",
            "not handled: no route: invalid_parameter: route 'post': parameter 'id' is not a valid int"
        ),
        ("https://links.example.com/account/settings", "not handled: no route: no_route: no route has this path"),
        (
            "https://links.example.com/post/10#no_universal_links",
            "not handled: iOS opens Safari, not the app: the association file says exclude"
        ),
        ("otherapp://post/1", "not handled: no configured app has this scheme"),
        ("https://elsewhere.example.org/post/1", "not handled: no configured app has this domain"),
    ])
    func aURLTheAppWouldNotHandleSaysWhy(_ url: String, _ reason: String) throws {
        let result = try CommandRunner.run(["open", url])
        #expect(result.status == 1)
        #expect(result.stdout.hasSuffix(reason + "\n"), "\(result.stdout)")
    }

    @Test func aMalformedURLExitsWith2AndASimulatorNeedsMacOS() throws {
        let malformed = try CommandRunner.run(["open", "ht tp://x"])
        #expect(malformed.status == 2)
        #expect(
            malformed.stderr
                == "error: the URL is refused: invalid_character in scheme at 2: ' ' must be percent-encoded\n"
        )
        #if !os(macOS)
        let simulator = try CommandRunner.run(["open", "--simulator", "booted", "demoapp://post/1"])
        #expect(simulator.status == 1)
        #expect(
            simulator.stderr == "error: --simulator: opening in a simulator needs macOS with Xcode (xcrun simctl)\n"
        )
        #endif
    }
}
