import DeepLinks
import Testing

@Suite struct URLPolicyTests {
    struct Parsed: CustomTestStringConvertible, Sendable {
        var input: String
        var scheme: String
        var host: String?
        var path: [String]
        var query: [QueryItem] = []
        var fragment: String? = nil
        var testDescription: String { input }
    }

    static let accepted: [Parsed] = [
        Parsed(input: "yourapp://post/10", scheme: "yourapp", host: "post", path: ["10"]),
        Parsed(input: "yourapp:///post/10", scheme: "yourapp", host: "", path: ["post", "10"]),
        Parsed(input: "yourapp:post/10", scheme: "yourapp", host: nil, path: ["post", "10"]),
        Parsed(input: "YourApp://Post/10", scheme: "yourapp", host: "post", path: ["10"]),
        Parsed(input: "https://EXAMPLE.com/post/10/", scheme: "https", host: "example.com", path: ["post", "10"]),
        Parsed(input: "https://example.com./a", scheme: "https", host: "example.com", path: ["a"]),
        Parsed(input: "https://example.com", scheme: "https", host: "example.com", path: []),
        Parsed(input: "https://example.com//a///b//", scheme: "https", host: "example.com", path: ["a", "b"]),
        Parsed(input: "https://example.com/a%2Fb/c", scheme: "https", host: "example.com", path: ["a/b", "c"]),
        Parsed(input: "https://example.com/caf%C3%A9", scheme: "https", host: "example.com", path: ["café"]),
        Parsed(input: "https://example.com/café", scheme: "https", host: "example.com", path: ["café"]),
        Parsed(input: "https://example.com/%F0%9F%98%80", scheme: "https", host: "example.com", path: ["😀"]),
        Parsed(input: "https://example.com/a%252F", scheme: "https", host: "example.com", path: ["a%2F"]),
        Parsed(
            input: "https://example.com/s?q=a+b",
            scheme: "https",
            host: "example.com",
            path: ["s"],
            query: [.init(name: "q", value: "a+b")]
        ),
        Parsed(
            input: "https://example.com/s?q=a%2Bb",
            scheme: "https",
            host: "example.com",
            path: ["s"],
            query: [.init(name: "q", value: "a+b")]
        ),
        Parsed(
            input: "https://example.com/s?q=a%20b",
            scheme: "https",
            host: "example.com",
            path: ["s"],
            query: [.init(name: "q", value: "a b")]
        ),
        Parsed(
            input: "https://example.com/s?e=user%2Btag%40example.com",
            scheme: "https",
            host: "example.com",
            path: ["s"],
            query: [.init(name: "e", value: "user+tag@example.com")]
        ),
        Parsed(
            input: "https://example.com/s?t=a&t=b&t=c",
            scheme: "https",
            host: "example.com",
            path: ["s"],
            query: [.init(name: "t", value: "a"), .init(name: "t", value: "b"), .init(name: "t", value: "c")]
        ),
        Parsed(
            input: "https://example.com/s?flag&x=",
            scheme: "https",
            host: "example.com",
            path: ["s"],
            query: [.init(name: "flag", value: nil), .init(name: "x", value: "")]
        ),
        Parsed(
            input: "https://example.com/s?a==b",
            scheme: "https",
            host: "example.com",
            path: ["s"],
            query: [.init(name: "a", value: "=b")]
        ),
        Parsed(
            input: "https://example.com/s?&&a=1&&",
            scheme: "https",
            host: "example.com",
            path: ["s"],
            query: [.init(name: "a", value: "1")]
        ),
        Parsed(
            input: "https://example.com/s?k%26=v%3D",
            scheme: "https",
            host: "example.com",
            path: ["s"],
            query: [.init(name: "k&", value: "v=")]
        ),
        Parsed(
            input: "https://example.com/r#token=abc",
            scheme: "https",
            host: "example.com",
            path: ["r"],
            fragment: "token=abc"
        ),
        Parsed(
            input: "https://example.com/r?a=1#x?y/z",
            scheme: "https",
            host: "example.com",
            path: ["r"],
            query: [.init(name: "a", value: "1")],
            fragment: "x?y/z"
        ),
        Parsed(input: "https://example.com/r#", scheme: "https", host: "example.com", path: ["r"], fragment: ""),
        Parsed(input: "https://[::1]/a", scheme: "https", host: "[::1]", path: ["a"]),
        Parsed(input: "yourapp://", scheme: "yourapp", host: "", path: []),
        Parsed(input: "yourapp:", scheme: "yourapp", host: nil, path: []),
        Parsed(input: "yourapp://caf%C3%A9/x", scheme: "yourapp", host: "café", path: ["x"]),
        Parsed(
            input: "yourapp://reset-password?token=a%2Bb",
            scheme: "yourapp",
            host: "reset-password",
            path: [],
            query: [.init(name: "token", value: "a+b")]
        ),
        Parsed(input: "my.app-2+x://home", scheme: "my.app-2+x", host: "home", path: []),
    ]

    @Test(arguments: accepted)
    func acceptedURLsDecodeExactlyOnce(_ case_: Parsed) throws {
        let url = try LinkURL(parsing: case_.input)
        #expect(url.scheme == case_.scheme)
        #expect(url.host == case_.host)
        #expect(url.pathSegments == case_.path)
        #expect(url.queryItems == case_.query)
        #expect(url.fragment == case_.fragment)
    }

    struct Refused: CustomTestStringConvertible, Sendable {
        var input: String
        var code: URLDiagnostic.Code
        var component: URLDiagnostic.Component
        var position: Int
        var limits: URLLimits = .default
        var testDescription: String { input.count > 60 ? String(input.prefix(60)) + "…" : input }
    }

    static let refused: [Refused] = [
        Refused(input: "", code: .empty, component: .url, position: 0),
        Refused(input: "post/10", code: .missingScheme, component: .scheme, position: 0),
        Refused(input: ":post", code: .missingScheme, component: .scheme, position: 0),
        Refused(input: "/post:10", code: .missingScheme, component: .scheme, position: 0),
        Refused(input: "1app://x", code: .invalidScheme, component: .scheme, position: 0),
        Refused(input: "y_app://x", code: .invalidScheme, component: .scheme, position: 1),
        Refused(input: "https://exa mple.com/", code: .invalidCharacter, component: .path, position: 11),
        Refused(input: "https://example.com/a b", code: .invalidCharacter, component: .path, position: 21),
        Refused(input: "https://example.com/a?q=<script>", code: .invalidCharacter, component: .query, position: 24),
        Refused(input: "https://example.com/a#b#c", code: .invalidCharacter, component: .fragment, position: 23),
        Refused(input: "https://example.com/a\u{0}b", code: .controlCharacter, component: .path, position: 21),
        Refused(input: "https://example.com/a\nb", code: .controlCharacter, component: .path, position: 21),
        Refused(input: "https://example.com/a?q=\u{7F}", code: .controlCharacter, component: .query, position: 24),
        Refused(input: "https://example.com/a%00b", code: .controlCharacter, component: .path, position: 21),
        Refused(input: "https://example.com/a?q=%0A", code: .controlCharacter, component: .query, position: 24),
        Refused(input: "https://example.com/r#t=%0D%0A", code: .controlCharacter, component: .fragment, position: 24),
        Refused(input: "https://example.com/%", code: .invalidPercentEncoding, component: .path, position: 20),
        Refused(input: "https://example.com/%4", code: .invalidPercentEncoding, component: .path, position: 20),
        Refused(input: "https://example.com/%G1", code: .invalidPercentEncoding, component: .path, position: 20),
        Refused(input: "https://example.com/a?q=100%", code: .invalidPercentEncoding, component: .query, position: 27),
        Refused(input: "https://example.com/a?%zz=1", code: .invalidPercentEncoding, component: .query, position: 22),
        Refused(input: "https://example.com/a#%", code: .invalidPercentEncoding, component: .fragment, position: 22),
        Refused(input: "https://example.com/%FF", code: .invalidUTF8, component: .path, position: 20),
        Refused(input: "https://example.com/%C3%28", code: .invalidUTF8, component: .path, position: 20),
        Refused(input: "https://example.com/a?q=%ED%A0%80", code: .invalidUTF8, component: .query, position: 24),
        Refused(input: "https://user:pass@example.com/", code: .userinfoNotAllowed, component: .userinfo, position: 8),
        Refused(input: "https://@example.com/", code: .userinfoNotAllowed, component: .userinfo, position: 8),
        Refused(input: "yourapp://user@post/10", code: .userinfoNotAllowed, component: .userinfo, position: 10),
        Refused(input: "https://example.com:8443/", code: .portNotAllowed, component: .port, position: 20),
        Refused(input: "yourapp://post:80/10", code: .portNotAllowed, component: .port, position: 15),
        Refused(
            input: "https://example.com:99999/",
            code: .invalidPort,
            component: .port,
            position: 20,
            limits: URLLimits(allowsPort: true)
        ),
        Refused(input: "https://example.com:8a/", code: .invalidPort, component: .port, position: 21),
        Refused(input: "https:///path", code: .invalidHost, component: .host, position: 8),
        Refused(input: "https:example.com/path", code: .invalidHost, component: .host, position: 6),
        Refused(input: "https://exa_mple.com/", code: .invalidHost, component: .host, position: 11),
        Refused(input: "https://ex%41mple.com/", code: .invalidHost, component: .host, position: 10),
        Refused(
            input: "https://example.com/" + String(repeating: "a", count: 8200),
            code: .tooLong,
            component: .url,
            position: 8192
        ),
        Refused(
            input: "https://example.com/s?" + (0...64).map { "k\($0)=v" }.joined(separator: "&"),
            code: .tooManyQueryItems,
            component: .query,
            position: 22 + (0..<64).map { "k\($0)=v&".utf8.count }.reduce(0, +)
        ),
        Refused(
            input: "https://example.com/s?q=" + String(repeating: "x", count: 2049),
            code: .valueTooLong,
            component: .query,
            position: 24
        ),
        Refused(
            input: "https://example.com/" + String(repeating: "%41", count: 2049),
            code: .valueTooLong,
            component: .path,
            position: 20
        ),
        Refused(
            input: "https://example.com/s?q=abc",
            code: .valueTooLong,
            component: .query,
            position: 24,
            limits: URLLimits(maxValueLength: 2)
        ),
        Refused(
            input: "https://example.com/s?a=1&b=2",
            code: .tooManyQueryItems,
            component: .query,
            position: 26,
            limits: URLLimits(maxQueryItems: 1)
        ),
        Refused(
            input: "https://example.com/s?a=1#b=2",
            code: .tooManyQueryItems,
            component: .fragment,
            position: 26,
            limits: URLLimits(maxQueryItems: 1)
        ),
    ]

    @Test(arguments: refused)
    func refusedURLsNameTheCodeComponentAndPosition(_ case_: Refused) {
        do {
            let url = try LinkURL(parsing: case_.input, limits: case_.limits)
            Issue.record("accepted: \(url)")
        } catch {
            #expect(error.code == case_.code)
            #expect(error.component == case_.component)
            #expect(error.position == case_.position)
        }
    }

    @Test func diagnosticsReadAsASentence() {
        do {
            _ = try LinkURL(parsing: "https://example.com/%G1")
        } catch {
            #expect(
                error.description
                    == "invalid_percent_encoding in path at 20: '%' is not followed by two hexadecimal digits"
            )
        }
    }

    @Test func thePortIsKeptWhenAllowed() throws {
        let url = try LinkURL(parsing: "https://example.com:8443/a", limits: URLLimits(allowsPort: true))
        #expect(url.port == 8443)
        #expect(url.host == "example.com")
    }

    @Test func customSchemeHostIsTheFirstRouteSegment() throws {
        let forms = ["yourapp://post/10", "yourapp:///post/10", "yourapp:post/10", "YOURAPP://POST/10/"]
        for form in forms {
            #expect(try LinkURL(parsing: form).routeSegments == ["post", "10"], "\(form)")
        }
        #expect(try LinkURL(parsing: "https://example.com/post/10").routeSegments == ["post", "10"])
    }

    @Test func printingEncodesEverythingOutsideTheUnreservedSet() {
        #expect(PercentEncoding.encode("user+tag@example.com") == "user%2Btag%40example.com")
        #expect(PercentEncoding.encode("a b/c?d#e&f=g%") == "a%20b%2Fc%3Fd%23e%26f%3Dg%25")
        #expect(PercentEncoding.encode("AZaz09-._~") == "AZaz09-._~")
        #expect(PercentEncoding.encode("é😀") == "%C3%A9%F0%9F%98%80")
    }
}
