// swift-tools-version: 6.1
// The stack's floor for Benchmarks/http/floor: a bare SwiftNIO HTTP/1 server and a bare Hummingbird router, each
// answering one 302 with the headers the server's cached redirect sends, so that redirect's cost can be read against
// what NIO and Hummingbird cost by themselves. Same NIO and Hummingbird versions as Server/Package.swift.
import PackageDescription

let package = Package(
    name: "floor-servers",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .executableTarget(
            name: "floor-server",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        )
    ]
)
