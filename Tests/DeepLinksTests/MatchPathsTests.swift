import DeepLinks
import DemoAppRoutes
import Testing

/// `RouteTable.match(_: String)` runs the URL policy and the trie over the string's bytes, the one match path;
/// `match(_: LinkURL)` hands it the parsed URL's text (`LinkURL.string`). Both must say the same thing about every
/// input: parsing, printing a parsed URL and parsing it again loses or changes nothing.
@Suite struct MatchPathsTests {
    /// A result both paths can be compared on: the destination, route, source and parameters, or the rejection.
    static func outcome<Destination>(_ result: Result<RouteMatch<Destination>, LinkRejection>) -> String {
        switch result {
        case .success(let match):
            "\(match.destination) \(match.routeName) \(match.pattern) \(match.source) \(match.parameters.values.sorted { $0.key < $1.key })"
        case .failure(let rejection):
            "refused \(rejection.code) \(rejection.reason) \(rejection.urlDiagnostic.map { "\($0)" } ?? "")"
        }
    }

    static func throughLinkURL<Destination>(_ table: RouteTable<Destination>, _ string: String) -> String {
        do {
            return outcome(table.match(try LinkURL(parsing: string, limits: table.limits)))
        } catch {
            // What the string path reports for a URL the policy refuses: the diagnostic's code and sentence.
            return "refused \(error.code.rawValue) \(error.description) \(error)"
        }
    }

    /// Every URL of the route-table cases, then each mutated by inserting, deleting or doubling characters a
    /// parser must care about (a fixed seed, so a failure names its input every run).
    static let inputs: [String] = {
        let seeds =
            (RouteTableTests.valid + RouteTableTests.invalid).map(\.url) + [
                "demoapp://files/a/b%2Fc/d", "demoapp://FILES/x", "demoapp://%66iles/x/y",
                "demoapp://post/new/comments",
                "demoapp://Se%C3%A9/x", "https://links.example.com./post/1", "HTTPS://LINKS.EXAMPLE.COM/post/2",
                "http://links.example.com/post/1", "demoapp:post/1", "demoapp:///post/1", "other://post/1",
            ]
        let pieces = [
            "%", "/", "//", "?", "#", "&", "=", "+", "A", "é", "%2F", "%00", "%C3", "%e9", ":", "@", ".", "-", "*", "1",
            "new", "%41",
        ]
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
        var inputs = seeds
        for seed in seeds {
            for _ in 0..<40 {
                var characters = Array(seed)
                for _ in 0..<(1 + next(2)) {
                    let position = characters.isEmpty ? 0 : next(characters.count + 1)
                    switch next(3) {
                    case 0: characters.insert(contentsOf: pieces[next(pieces.count)], at: position)
                    case 1: if position < characters.count { characters.remove(at: position) }
                    default:
                        if position < characters.count { characters.insert(characters[position], at: position) }
                    }
                }
                inputs.append(String(characters))
            }
        }
        return inputs
    }()

    @Test func bothPathsAgreeOnEveryInput() {
        #expect(Self.inputs.count > 5_000)
        var agreed = 0
        var matched = 0
        for input in Self.inputs {
            let direct = Self.outcome(DemoRoute.table.match(input))
            let parsed = Self.throughLinkURL(DemoRoute.table, input)
            #expect(direct == parsed, "\(input)")
            if direct == parsed { agreed += 1 }
            if !direct.hasPrefix("refused") { matched += 1 }
        }
        // The mutations must reach routes too, or the comparison says little.
        #expect(matched > 500)
        print("match paths: \(agreed) of \(Self.inputs.count) inputs agree, \(matched) reach a route")
    }

    @Test func bothPathsAgreeUnderTightLimits() throws {
        let limits = URLLimits(maxURLLength: 40, maxQueryItems: 2, maxValueLength: 6, allowsPort: true)
        let table = try RouteTable(
            schemes: DemoRoute.table.schemes,
            hosts: DemoRoute.table.hosts,
            limits: limits,
            routes: DemoRoute.table.routes
        )
        for input in Self.inputs + ["https://links.example.com:8443/post/1", "demoapp://search?q=a&q=b&q=c"] {
            #expect(Self.outcome(table.match(input)) == Self.throughLinkURL(table, input), "\(input)")
        }
    }
}

@Suite struct IntParameterTests {
    @Test(arguments: [
        ("0", 0), ("7", 7), ("-1", -1), ("10", 10), ("9223372036854775807", Int.max), ("-9223372036854775808", Int.min),
    ])
    func acceptsCanonicalDecimals(_ text: String, _ value: Int) {
        #expect(Int(routeParameter: text) == value)
        #expect(value.routeParameter == text)
    }

    @Test(arguments: [
        "", "-", "-0", "01", "+1", " 1", "1 ", "1a", "0x1", "1_000", "١", "9223372036854775808", "-9223372036854775809",
        "99999999999999999999",
    ])
    func refusesEverythingElse(_ text: String) {
        #expect(Int(routeParameter: text) == nil)
    }
}
