// swift-tools-version: 6.1
// Benchmarks over the root package (and, later, the server), on ordo-one/benchmark.
// Run: cd Benchmarks && swift package --disable-sandbox benchmark
import PackageDescription

let package = Package(
    name: "swift-deeplinks-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-deeplinks", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // The reference router: the flat-cost trie behind Vapor.
        .package(url: "https://github.com/vapor/routing-kit", from: "4.9.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(name: "BenchmarkSupport", path: "Benchmarks/BenchmarkSupport"),
        .executableTarget(
            name: "RoutingBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .product(name: "DeepLinks", package: "swift-deeplinks"),
                .product(name: "RoutingKit", package: "routing-kit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/RoutingBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Instructions per match under callgrind: Benchmarks/callgrind/run.
        .executableTarget(
            name: "RoutingInstructions",
            dependencies: [.product(name: "DeepLinks", package: "swift-deeplinks")],
            path: "Benchmarks/RoutingInstructions"
        ),
        .executableTarget(
            name: "AASABenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .product(name: "AppSiteAssociation", package: "swift-deeplinks"),
                .product(name: "DeepLinksJSON", package: "swift-deeplinks"),
            ],
            path: "Benchmarks/AASABenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
