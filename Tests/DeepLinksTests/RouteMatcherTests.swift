@testable import DeepLinks
import Testing

/// The matcher alone: the URL policy and the source checks on the bytes, then the candidates it offers to the
/// table's `accept` (each with its source and extracted parameters), in order, until one is taken.
@Suite struct RouteMatcherTests {
    static func route(
        _ name: String,
        _ pattern: String,
        sources: RouteSources = .all,
        _ parameters: [ParameterSpec] = []
    )
        -> Route<Int>
    {
        Route(name, pattern, parameters: parameters, sources: sources, parse: { _ in 0 }, print: { _ in nil })
    }

    static let matcher = RouteMatcher(
        schemes: ["demoapp", "legacy"],
        hosts: ["links.example.com", "example.com"],
        routes: [
            route("new-post", "/post/new"),
            route("post", "/post/:id", [.path("id", Int.self)]),
            route("web-only", "/web/:page", sources: .universalLink),
            route("files", "/files/*path"),
            route("tag", "/tag/:name"),
            route("tag-all", "/tag/*rest"),
            route("search", "/search", [.query("q"), .fragment("token", sensitive: true)]),
        ]
    )

    /// Every candidate `accept` was offered for `url`, as route name and parameters, with the matcher's verdict
    /// when `taking` names the route to take.
    static func offered(_ url: String, taking: String? = nil) -> (
        names: [String], parameters: [[String: [String]]], rejection: LinkRejection?
    ) {
        var names: [String] = []
        var parameters: [[String: [String]]] = []
        let rejection = matcher.match(url, limits: URLLimits.default) { index, _, values in
            let name = matcher.entries[index].name
            names.append(name)
            parameters.append(values.values)
            return name == taking ? nil : LinkRejection(.invalidParameter, "declined by the test")
        }
        return (names, parameters, rejection)
    }

    @Test func candidatesComeMostSpecificFirstAndTheFirstTakenEndsTheWalk() {
        #expect(Self.offered("demoapp://post/new").names == ["new-post"], "an Int parameter does not take 'new'")
        #expect(Self.offered("demoapp://tag/swift").names == ["tag", "tag-all"])
        let taken = Self.offered("https://links.example.com/tag/swift", taking: "tag")
        #expect(taken.names == ["tag"] && taken.rejection == nil)
        let second = Self.offered("https://links.example.com/tag/swift", taking: "tag-all")
        #expect(second.names == ["tag", "tag-all"] && second.rejection == nil, "a refused parse backtracks")
    }

    @Test func aParameterOfTheWrongKindIsNeverOffered() {
        let result = Self.offered("demoapp://post/abc")
        #expect(result.names.isEmpty)
        #expect(result.rejection?.code == .invalidParameter)
    }

    @Test func extractionDecodesOnceAndReadsQueryFragmentAndCatchAll() {
        let search = Self.offered("https://example.com/search?q=a%2Bb+c#token=s%3Dcret")
        #expect(search.parameters == [["q": ["a+b+c"], "token": ["s=cret"]]])
        let files = Self.offered("demoapp:///files/a/b%2Fc/d")
        #expect(files.parameters == [["path": ["a/b/c/d"]]], "segments are decoded one by one, then joined")
        #expect(files.names == ["files"])
    }

    @Test func aCustomSchemesHostIsTheFirstSegmentDecodedAndLowerCased() {
        #expect(Self.offered("DemoApp://POST/7").names == ["post"], "the host position is case-insensitive")
        #expect(Self.offered("demoapp:///POST/7").names.isEmpty, "a path segment is not")
        #expect(Self.offered("demoapp://%70ost/7").names == ["post"])
        #expect(Self.offered("demoapp://Post/7").names == ["post"])
    }

    @Test func theSourceIsTheSchemeOrHostIndex() {
        var sources: [Int32] = []
        for url in [
            "demoapp://post/1", "legacy://post/1", "https://links.example.com/post/1", "https://example.com/post/1",
        ] {
            _ = Self.matcher.match(url, limits: URLLimits.default) { _, source, _ in
                sources.append(source)
                return nil
            }
        }
        #expect(sources == [0, 2, 1, 3])
        #expect(
            sources.map(Self.matcher.source) == [
                .customScheme("demoapp"), .customScheme("legacy"), .universalLink(host: "links.example.com"),
                .universalLink(host: "example.com"),
            ]
        )
    }

    @Test func aRouteThatRefusesTheSourceIsSkippedWithAReason() {
        let result = Self.offered("demoapp://web/about")
        #expect(result.names.isEmpty)
        #expect(result.rejection?.code == .sourceNotAccepted)
        #expect(Self.offered("https://example.com/web/about").names == ["web-only"])
    }

    @Test(arguments: [
        ("otherapp://post/1", LinkRejection.Code.schemeNotAccepted.rawValue),
        ("http://example.com/post/1", LinkRejection.Code.schemeNotAccepted.rawValue),
        ("https://evil.example/post/1", LinkRejection.Code.hostNotAccepted.rawValue),
        ("demoapp://post/1%00", URLDiagnostic.Code.controlCharacter.rawValue),
        ("demoapp://nowhere", LinkRejection.Code.noRoute.rawValue),
    ])
    func refusalsBeforeAnyCandidateNameTheirCause(_ url: String, _ code: String) {
        let result = Self.offered(url)
        #expect(result.names.isEmpty)
        #expect(result.rejection?.code.rawValue == code)
    }

    @Test func aParseErrorIsNamedByItsTypeUnlessItIsAParameterError() {
        struct Secret: Error, CustomStringConvertible { var description: String { "s3cret" } }
        #expect(Self.matcher.refusal(1, Secret()).description.contains("refused its parameters (Secret)"))
        #expect(!Self.matcher.refusal(1, Secret()).description.contains("s3cret"))
        let named = Self.matcher.refusal(1, ParameterError(name: "id", reason: "is not a number"))
        #expect(named.description.contains("route 'post': parameter 'id' is not a number"))
    }
}
