import Benchmark
import BenchmarkSupport
import DeepLinks
import Foundation
import Logging
import RoutingKit

/// String-to-typed-route per URL for tables of 10 to 10,000 routes (route i is `/s{i}/items/:id`), hits and
/// misses, and printing; vapor/routing-kit on the same inputs as the reference. Each iteration handles one URL.
///
/// Matching is measured two ways, both routers alike: in samples of 1,000 URLs (`--scale` prints the time per
/// URL: the harness's own cost, about 0.2 µs a sample, is spread over the batch), and, at 1,000 routes, one URL
/// per sample ("single"), where the harness's cost stays in every figure and the caches are colder.
struct Item: Sendable, Equatable, RouteNamedDestination {
    var section: Int
    var id: Int
    func routeName(for form: LinkForm) -> String? { "s\(section)" }
}

/// The same destination without a route name: printing asks each route in turn.
struct UnnamedItem: Sendable, Equatable {
    var item: Item
}

/// A deterministic pool of inputs (SplitMix64, fixed seed), so every run and every router sees the same URLs.
struct Inputs {
    let hits: [String]
    let misses: [String]
    let items: [Item]

    init(routes: Int, count: Int = 10_000) {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var hits: [String] = []
        var misses: [String] = []
        var items: [Item] = []
        for _ in 0..<count {
            let section = Int(next() % UInt64(routes))
            let id = Int(next() % 1_000_000) + 1
            hits.append("https://example.com/s\(section)/items/\(id)")
            misses.append("https://example.com/unknown/items/\(id)")
            items.append(Item(section: section, id: id))
        }
        self.hits = hits
        self.misses = misses
        self.items = items
    }
}

func deepLinksTable(routes: Int) -> RouteTable<Item> {
    deepLinksTable(routes: routes, wrap: { $0 }, unwrap: \.self)
}

func deepLinksTable<Destination: Sendable>(
    routes: Int,
    wrap: @escaping @Sendable (Item) -> Destination,
    unwrap: KeyPath<Destination, Item> & Sendable
) -> RouteTable<Destination> {
    let list = (0..<routes).map { section in
        Route<Destination>(
            "s\(section)",
            "/s\(section)/items/:id",
            parameters: [.path("id", Int.self)],
            parse: { p in wrap(Item(section: section, id: try p("id"))) },
            print: { $0[keyPath: unwrap].section == section ? ["id": $0[keyPath: unwrap].id] : nil }
        )
    }
    return try! RouteTable(schemes: ["bench"], hosts: ["example.com"], routes: list)
}

func routingKitRouter(routes: Int) -> TrieRouter<Int> {
    let router = TrieRouter(Int.self)
    for section in 0..<routes {
        router.register(section, at: [.constant("s\(section)"), .constant("items"), .parameter("id")])
    }
    return router
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        // Not .cpuTotal: on Linux it reads /proc/self/stat before and after every sample (two system calls and
        // a file parse around a sub-microsecond sample, which cool its caches) for a 10 ms resolution. Not
        // .instructions: this VM has no performance counters; Benchmarks/callgrind/run counts instructions.
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        timeUnits: .nanoseconds,
        warmupIterations: 1000,
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )

    // The harness's own cost per iteration: read an input, nothing else. Subtract it from the figures below.
    let baselineInputs = Inputs(routes: 10)
    Benchmark("baseline (harness only)", configuration: .init(scalingFactor: .one)) { benchmark in
        let cursor = Cursor.named(benchmark.name)
        for _ in benchmark.scaledIterations {
            let index = cursor.next(baselineInputs.hits.count)
            blackHole(baselineInputs.hits[index])
        }
    }
    Benchmark("DeepLinks URL policy only (LinkURL)", configuration: .init(scalingFactor: .one)) { benchmark in
        let cursor = Cursor.named(benchmark.name)
        for _ in benchmark.scaledIterations {
            let index = cursor.next(baselineInputs.hits.count)
            blackHole(try? LinkURL(parsing: baselineInputs.hits[index]))
        }
    }

    for size in [10, 100, 1_000, 10_000] {
        let inputs = Inputs(routes: size)
        let table = deepLinksTable(routes: size)
        let unnamedTable = deepLinksTable(routes: size, wrap: UnnamedItem.init, unwrap: \.item)
        let router = routingKitRouter(routes: size)
        let logger = Logger(label: "bench")

        // One URL of `urls` per iteration, walked across samples; hits and misses alike.
        func deepLinks(_ urls: [String]) -> (Benchmark) -> Void {
            { benchmark in
                let cursor = Cursor.named(benchmark.name)
                for _ in benchmark.scaledIterations {
                    blackHole(try? table.match(urls[cursor.next(urls.count)]).get().destination)
                }
            }
        }
        func routingKit(_ urls: [String]) -> (Benchmark) -> Void {
            { benchmark in
                let cursor = Cursor.named(benchmark.name)
                for _ in benchmark.scaledIterations {
                    // End to end from a string, as DeepLinks is measured: parse the URL, split the path, route, read id.
                    let components = URLComponents(string: urls[cursor.next(urls.count)])!
                    var parameters = Parameters(logger)
                    let path = components.path.split(separator: "/").map(String.init)
                    let section = router.route(path: path, parameters: &parameters)
                    blackHole((section, parameters.get("id", as: Int.self)))
                }
            }
        }
        Benchmark("DeepLinks match hit, \(size) routes", closure: deepLinks(inputs.hits))
        Benchmark("routing-kit match hit (reference), \(size) routes", closure: routingKit(inputs.hits))
        if size == 1_000 {
            let single = Benchmark.Configuration(scalingFactor: .one)
            Benchmark(
                "DeepLinks match hit, single, \(size) routes",
                configuration: single,
                closure: deepLinks(inputs.hits)
            )
            Benchmark(
                "routing-kit match hit (reference), single, \(size) routes",
                configuration: single,
                closure: routingKit(inputs.hits)
            )
        }
        Benchmark("DeepLinks match miss, \(size) routes", closure: deepLinks(inputs.misses))
        Benchmark("routing-kit match miss (reference), \(size) routes", closure: routingKit(inputs.misses))
        Benchmark("DeepLinks print, \(size) routes") { benchmark in
            // The destination names its route: a dictionary lookup, whatever the table's size. In samples of
            // 1,000 prints, as the matches are.
            let cursor = Cursor.named(benchmark.name)
            for _ in benchmark.scaledIterations {
                blackHole(try? table.url(for: inputs.items[cursor.next(inputs.items.count)]))
            }
        }
        Benchmark("DeepLinks print, unnamed (fallback), \(size) routes", configuration: .init(scalingFactor: .one)) {
            benchmark in
            // Without a name, printing asks each route's print closure: linear in the table size.
            let unnamed = unnamedTable
            let cursor = Cursor.named(benchmark.name)
            let count = size >= 1_000 ? 100 : inputs.items.count
            for _ in benchmark.scaledIterations {
                blackHole(try? unnamed.url(for: UnnamedItem(item: inputs.items[cursor.next(count)])))
            }
        }
    }
}
