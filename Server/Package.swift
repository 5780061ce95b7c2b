// swift-tools-version: 6.1
// The server and the `deeplinks` command. Depends on the app-side package by path, so the app never
// fetches NIO, Hummingbird or database drivers.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let testSwiftSettings: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "swift-deeplinks-server",
    platforms: [.macOS(.v15)],
    products: [
        // What a backend that embeds the server imports: the server, and the storage, mail, secrets and support types
        // its public API names (Database, DatabaseURL, MailURL, SecretKeys, ConfigurationError). The "Embedding the
        // server" article.
        .library(
            name: "DeepLinksServer",
            targets: ["DeepLinksServer", "DeepLinksStorage", "DeepLinksMail", "DeepLinksSecrets", "DeepLinksSupport"]
        ),
        .executable(name: "deeplinks", targets: ["deeplinks"]),
    ],
    dependencies: [
        .package(name: "swift-deeplinks", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/sql-kit", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit", from: "2.17.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        .package(url: "https://github.com/vapor/async-kit", from: "1.22.0"),
    ],
    // Modules along dependency edges: the support types below everything; storage (the only module that imports
    // a database driver), mail transport (SMTP, DKIM, IDNA) and QR beside each other, none importing another;
    // the server above them all (SQLKit stays below it: storage hands out its own DatabaseConnection); the CLI on top.
    targets: [
        .target(
            name: "DeepLinksSupport",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DeepLinksStorage",
            dependencies: [
                "DeepLinksSupport",
                .product(name: "DeepLinksJSON", package: "swift-deeplinks"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DeepLinksMail",
            dependencies: [
                "DeepLinksSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
            ],
            swiftSettings: swiftSettings
        ),
        // The server's secret keys and tokens (HMAC digests, HKDF subkeys, random tokens): what sessions, mail,
        // webhooks and resets seal with, and what the command reads from the environment.
        .target(
            name: "DeepLinksSecrets",
            dependencies: [
                "DeepLinksSupport",
                .product(name: "DeepLinks", package: "swift-deeplinks"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DeepLinksQR",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DeepLinksServer",
            dependencies: [
                "DeepLinksSupport",
                "DeepLinksSecrets",
                "DeepLinksStorage",
                "DeepLinksMail",
                "DeepLinksQR",
                .product(name: "DeepLinks", package: "swift-deeplinks"),
                .product(name: "AppSiteAssociation", package: "swift-deeplinks"),
                .product(name: "DeepLinksJSON", package: "swift-deeplinks"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            // The API's OpenAPI document, served at /openapi.json (the pages the configuration adds are added then),
            // and the web pages' scripts and style sheets (WebAssets), compiled into the binary.
            resources: [
                .embedInCode("OpenAPI/openapi-api.json"),
                .embedInCode("Web/Assets/reset-password.js"),
                .embedInCode("Web/Assets/deferred.js"),
                .embedInCode("Web/Assets/platform.js"),
                .embedInCode("Web/Assets/site.css"),
                .embedInCode("Web/Assets/console.css"),
                .embedInCode("Visitors/scanners.json"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "deeplinks",
            dependencies: [
                "DeepLinksServer",
                "DeepLinksStorage",
                "DeepLinksMail",
                "DeepLinksSecrets",
                "DeepLinksSupport",
                .product(name: "DeepLinks", package: "swift-deeplinks"),
                .product(name: "AppSiteAssociation", package: "swift-deeplinks"),
                .product(name: "DeepLinksJSON", package: "swift-deeplinks"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                // `deeplinks links import|export` against a running server, and the import file's digest.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // Tests along the modules, as Hummingbird's: each module's own, then the server's (HTTP, journeys, the
        // modules together), the command's, and an embedding backend's. What several share (a fresh database of each
        // kind, the DKIM verifier, zbar) is a target of its own; the seeded generator is DeepLinksTesting's.
        .target(
            name: "DeepLinksTestSupport",
            dependencies: [
                "DeepLinksStorage",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLKit", package: "sql-kit"),
            ],
            path: "Tests/DeepLinksTestSupport",
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "DeepLinksStorageTests",
            dependencies: [
                "DeepLinksStorage",
                "DeepLinksTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLKit", package: "sql-kit"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "DeepLinksMailTests",
            dependencies: [
                "DeepLinksMail",
                "DeepLinksSupport",
                "DeepLinksTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "DeepLinksQRTests",
            dependencies: [
                "DeepLinksQR",
                "DeepLinksTestSupport",
                .product(name: "DeepLinksTesting", package: "swift-deeplinks"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "DeepLinksServerTests",
            dependencies: [
                "DeepLinksServer",
                "DeepLinksStorage",
                "DeepLinksMail",
                "DeepLinksQR",
                "DeepLinksSecrets",
                "DeepLinksSupport",
                "DeepLinksTestSupport",
                .product(name: "DeepLinks", package: "swift-deeplinks"),
                .product(name: "DeepLinksTesting", package: "swift-deeplinks"),
                .product(name: "DemoAppRoutes", package: "swift-deeplinks"),
                .product(name: "AppSiteAssociation", package: "swift-deeplinks"),
                .product(name: "DeepLinksJSON", package: "swift-deeplinks"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncKit", package: "async-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "SQLKit", package: "sql-kit"),
            ],
            swiftSettings: testSwiftSettings
        ),
        // A backend embedding the server, as another package would: without package access, so it compiles only
        // against the public API (the "Embedding the server" article's code).
        .testTarget(
            name: "EmbeddingTests",
            dependencies: [
                "DeepLinksServer",
                "DeepLinksStorage",
                "DeepLinksSecrets",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            packageAccess: false,
            swiftSettings: testSwiftSettings
        ),
        .testTarget(
            name: "DeepLinksCLITests",
            dependencies: ["deeplinks"],
            swiftSettings: testSwiftSettings
        ),
        // Tests of the app-side core that need a package (property checks, golden files): the root
        // manifest may depend on none.
        .testTarget(
            name: "DeepLinksCoreTests",
            dependencies: [
                .product(name: "DeepLinks", package: "swift-deeplinks"),
                .product(name: "DemoAppRoutes", package: "swift-deeplinks"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: testSwiftSettings
        ),
    ]
)
