@testable import DeepLinksServer
@testable import DeepLinksSupport
import Foundation
import HTTPTypes
import Testing

/// A path of the app's opened without the app, and every other 404, as a browser meets them.
@Suite struct AppPathTests {
    @Test func aPathOfTheAppWithoutItOffersTheAppAndEvery404HasABody() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve { api in
                for path in ["/post/10", "/search?q=caf%C3%A9"] {
                    let page = try await api.get(path)
                    #expect(page.status == .ok, "\(path)")
                    #expect(page.text.contains("<h1>This opens in the Demo app</h1>"))
                    #expect(page.text.contains(#"app-argument=https://links.example.com\#(path)">"#), "\(page.text)")
                    #expect(page.text.contains("https://apps.apple.com/app/id1234567890"))
                }
                // An excluded path and a path no route has: 404, with a page.
                for path in ["/account/settings", "/nothing/here", "/nocode"] {
                    let missing = try await api.get(path)
                    #expect(missing.status == .notFound, "\(path)")
                    #expect(missing.text.contains("<h1>This link does not exist</h1>"), "\(path): \(missing.text)")
                }
                let api404 = try await api.get("/v1/nothing")
                #expect(api404.status == .notFound)
                #expect(api404.text == #"{"error":"not_found"}"#)
                #expect(try await api.post("/nothing", "").status == .notFound)
            }
        }
    }

    @Test func theAppsWebsiteGetsThePathAndQuery() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve({ $0.app.webURL = "https://www.example.com" }) { api in
                let moved = try await api.get("/post/10?utm_source=mail")
                #expect(moved.status == .found)
                #expect(moved.headers[.location] == "https://www.example.com/post/10?utm_source=mail")
                #expect(try await api.get("/account/settings").status == .notFound, "excluded paths are not the app's")
            }
        }
    }

    @Test(arguments: [
        ("http://www.example.com", "is not an https address without query or fragment"),
        ("https://www.example.com/?a=b", "is not an https address without query or fragment"),
        ("https://links.example.com", "is on links.example.com, one of the app's domains: a path would come back here"),
    ])
    func aWebsiteThatCannotTakeThePathIsRefused(_ web: String, _ reason: String) throws {
        let json =
            #"{"app": {"teamID": "ABCDE12345", "bundleID": "a.b", "customScheme": "ab", "domains": ["links.example.com"], "webURL": "\#(web)"}}"#
        #expect(throws: ConfigurationError(setting: "c.json", problems: ["app.webURL: '\(web)' \(reason)"])) {
            _ = try AppConfiguration.decode(Data(json.utf8), source: "c.json")
        }
    }
}
