// swift-tools-version: 6.1
// The app side of swift-deeplinks. It declares no package dependency at all, not even for tests,
// so that an iOS app adding it fetches and builds nothing but these sources. The server, the CLI
// and every test that needs a package live in Server/Package.swift, which depends on this one by path.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "swift-deeplinks",
    // iOS 16: Duration and ContinuousClock (the inbox's clock), NavigationStack (the SwiftUI adapter).
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .visionOS(.v1)],
    products: [
        .library(name: "DeepLinks", targets: ["DeepLinks"]),
        .library(name: "DeepLinksTesting", targets: ["DeepLinksTesting"]),
        .library(name: "DeepLinksUIKit", targets: ["DeepLinksUIKit"]),
        .library(name: "DeepLinksSwiftUI", targets: ["DeepLinksSwiftUI"]),
        .library(name: "AppSiteAssociation", targets: ["AppSiteAssociation"]),
        // JSON as written (JSONValue): the association files' parser and the server both use it.
        .library(name: "DeepLinksJSON", targets: ["DeepLinksJSON"]),
        .library(name: "DemoAppRoutes", targets: ["DemoAppRoutes"]),
    ],
    targets: [
        .target(name: "DeepLinks", swiftSettings: swiftSettings),
        .target(name: "DeepLinksTesting", dependencies: ["DeepLinks"], swiftSettings: swiftSettings),
        .target(name: "DeepLinksUIKit", dependencies: ["DeepLinks"], swiftSettings: swiftSettings),
        // The SwiftUI front door re-exports DeepLinks and DeepLinksUIKit (its app and scene delegates).
        .target(name: "DeepLinksSwiftUI", dependencies: ["DeepLinks", "DeepLinksUIKit"], swiftSettings: swiftSettings),
        .target(name: "DeepLinksJSON", swiftSettings: swiftSettings),
        .target(name: "AppSiteAssociation", dependencies: ["DeepLinksJSON"], swiftSettings: swiftSettings),
        // The demo app's route table, shared by the demo app, the server's reference journey and the tests.
        .target(name: "DemoAppRoutes", dependencies: ["DeepLinks"], swiftSettings: swiftSettings),
        // The reference apps' non-UI code (API client, reset form), built and tested on Linux. No product: an app
        // that adds this package never builds it.
        .target(
            name: "ReferenceAppSupport",
            dependencies: ["DeepLinks"],
            path: "Examples/Shared",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DeepLinksTests",
            dependencies: ["DeepLinks", "DeepLinksTesting", "DemoAppRoutes"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DeepLinksTestingTests",
            dependencies: ["DeepLinksTesting", "DeepLinks"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReferenceAppSupportTests",
            dependencies: ["ReferenceAppSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AppSiteAssociationTests",
            dependencies: ["AppSiteAssociation", "DeepLinksJSON"],
            exclude: ["Golden"],  // read by path, as fixtures
            swiftSettings: swiftSettings
        ),
    ]
)
