import AppSiteAssociation
import Benchmark
import BenchmarkSupport
import DeepLinksJSON
import Foundation

/// Decisions per second for a compiled apple-app-site-association file of 10, 100 and 1,000 rules: paths
/// with wildcards, query dictionaries and substitution variables, every tenth rule an exclusion.
/// Each iteration decides one URL. iOS semantics make a decision linear in the rules tried (first match wins).
func document(rules: Int) -> JSONValue {
    var components: [JSONValue] = []
    for index in 0..<rules {
        if index % 10 == 0 {
            components.append(.object(["/": .string("/s\(index)/private/*"), "exclude": .bool(true)]))
        }
        components.append(
            .object([
                "/": .string("/s\(index)/*/items/$(digit)*"),
                "?": .object(["ref": .string("?*"), "lang": .string("$(lang)")]),
            ])
        )
    }
    return .object([
        "applinks": .object([
            "substitutionVariables": .object(["kind": .array([.string("a*z"), .string("sushi")])]),
            "details": .array([
                .object(["appIDs": .array([.string("ABCDE12345.com.example.app")]), "components": .array(components)])
            ]),
        ])
    ])
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        timeUnits: .microseconds,
        warmupIterations: 100,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 200_000
    )
    let app = "ABCDE12345.com.example.app"
    for rules in [10, 100, 1_000] {
        let matcher = AASAMatcher(document: document(rules: rules))
        // Hits and exclusions spread over the whole list, so the average cost is half the rules.
        let hits = (0..<1_000).map { "https://example.com/s\(($0 * 7919) % rules)/a/items/42?ref=mail&lang=fr" }
        let excludes = (0..<1_000).map { "https://example.com/s\((($0 * 7919) % rules) / 10 * 10)/private/1" }
        let misses = (0..<1_000).map { "https://example.com/unknown/\($0)?ref=mail" }
        for (kind, urls) in [("hit", hits), ("exclude", excludes), ("miss", misses)] {
            Benchmark("AASA decide \(kind), \(rules) rules") { benchmark in
                let cursor = Cursor.named(benchmark.name)
                for _ in benchmark.scaledIterations {
                    let index = cursor.next(urls.count)
                    blackHole(matcher.decide(appID: app, url: urls[index], domain: "example.com").verdict)
                }
            }
        }
    }
}
