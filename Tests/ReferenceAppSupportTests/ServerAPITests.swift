import Foundation
@testable import ReferenceAppSupport
import Testing

@Suite struct ServerAPITests {
    /// The Xcode projects set `DeepLinksAPIBaseURL` to `$(DEEPLINKS_API_BASE_URL)`; a value that is not an absolute
    /// http(s) address (missing, unexpanded, another scheme, no host) falls back to the local server.
    @Test(arguments: [
        ("https://links.example.com", "https://links.example.com"),
        ("http://192.168.1.20:8080", "http://192.168.1.20:8080"),
        ("$(DEEPLINKS_API_BASE_URL)", "http://localhost:8080"),
        ("ftp://links.example.com", "http://localhost:8080"),
        ("links.example.com", "http://localhost:8080"),
        ("", "http://localhost:8080"),
    ])
    func theInfoPlistAddressIsUsedWhenItIsAnHTTPAddress(_ value: String, _ expected: String) {
        #expect(ServerAPI.baseURL(infoValue: value).absoluteString == expected)
    }

    @Test func aMissingOrNonStringValueFallsBackToTheLocalServer() {
        #expect(ServerAPI.baseURL(infoValue: nil).absoluteString == "http://localhost:8080")
        #expect(ServerAPI.baseURL(infoValue: 8080).absoluteString == "http://localhost:8080")
    }
}
