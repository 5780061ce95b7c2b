import DeepLinks
import Testing

@Suite struct URLPartsTests {
    @Test(arguments: URLPolicyTests.accepted)
    func everyURLThePolicyAcceptsSplitsAndDecodesToTheSameURL(_ case_: URLPolicyTests.Parsed) throws {
        let parts = try URLParts(parsing: case_.input)
        let url = try LinkURL(parsing: case_.input)
        #expect(parts.scheme == url.scheme)
        #expect(try LinkURL(parsing: parts.string) == url)
    }

    @Test(arguments: URLPolicyTests.refused)
    func everyURLThePolicyRefusesIsRefusedWithTheSameDiagnostic(_ case_: URLPolicyTests.Refused) {
        do {
            let parts = try URLParts(parsing: case_.input, limits: case_.limits)
            Issue.record("split: \(parts)")
        } catch {
            #expect(error.code == case_.code)
            #expect(error.component == case_.component)
            #expect(error.position == case_.position)
        }
    }

    @Test func componentsStayAsWritten() throws {
        let parts = try URLParts(
            parsing: "HTTPS://Shop.Example.COM.:8443/a%2Fb/caf%C3%A9?utm_source=x%26y&q=a+b#top",
            limits: URLLimits(allowsPort: true)
        )
        #expect(parts.scheme == "https")
        #expect(parts.host == "shop.example.com")
        #expect(parts.port == 8443)
        #expect(parts.path == "/a%2Fb/caf%C3%A9")
        #expect(parts.query == "utm_source=x%26y&q=a+b")
        #expect(parts.fragment == "top")
        #expect(parts.string == "https://shop.example.com:8443/a%2Fb/caf%C3%A9?utm_source=x%26y&q=a+b#top")
    }

    @Test func absentAndEmptyComponentsAreTold() throws {
        let bare = try URLParts(parsing: "yourapp:post/10")
        #expect(bare.host == nil && bare.path == "post/10" && bare.query == nil && bare.fragment == nil)
        #expect(bare.string == "yourapp:post/10")
        let empty = try URLParts(parsing: "yourapp:///?#")
        #expect(empty.host == "" && empty.path == "/" && empty.query == "" && empty.fragment == "")
        #expect(empty.string == "yourapp:///?#")
        let fragmentQuestion = try URLParts(parsing: "https://example.com/a#b?c")
        #expect(fragmentQuestion.query == nil && fragmentQuestion.fragment == "b?c")
    }

    @Test func credentialsAreRefusedNotSplit() {
        #expect(throws: URLDiagnostic.self) { try URLParts(parsing: "https://user:secret@example.com/") }
    }

    @Test func itemsAreRewrittenByTheirDecodedNames() {
        let rewritten = URLParts.rewritingItems("a=1&to%6Ben=x&&b&%ZZ=2") { name, pair in
            switch name {
            case "token": "token=REDACTED"
            case "": pair.isEmpty ? nil : String(pair)
            case nil: "undecodable"
            default: String(pair)
            }
        }
        #expect(rewritten == "a=1&token=REDACTED&b&undecodable")
    }

    @Test func decodingIsExactlyOnceAndRefusesWhatTheParserRefuses() throws {
        #expect(try PercentEncoding.decode("a%252F+b%C3%A9") == "a%2F+bé")
        #expect(throws: URLDiagnostic.self) { try PercentEncoding.decode("%G1") }
        #expect(throws: URLDiagnostic.self) { try PercentEncoding.decode("a%00") }
        #expect(throws: URLDiagnostic.self) { try PercentEncoding.decode("a\u{7}") }
        #expect(throws: URLDiagnostic.self) { try PercentEncoding.decode("%C3") }
        #expect(throws: URLDiagnostic.self) {
            try PercentEncoding.decode(String(repeating: "a", count: 9), limits: URLLimits(maxValueLength: 8))
        }
    }
}
