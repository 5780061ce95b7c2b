import AppSiteAssociation
import DeepLinks
import DeepLinksJSON
import DeepLinksServer
import DeepLinksTestSupport
import DemoAppRoutes
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@Suite struct AssociationFilesTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples")

    static func withApp(
        _ app: AppConfiguration = .demo,
        _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let (database, cleanup) = try await TestDatabase.sqlite.open()
        var settings = ServerSettings()
        settings.port = 0
        settings.app = app
        do {
            let application = try DeepLinksApplication.make(
                settings: settings,
                database: database,
                logger: Logger(label: "test")
            )
            try await application.test(.live) { client in try await body(client) }
        } catch {
            await cleanup()
            throw error
        }
        await cleanup()
    }

    @Test func theAppleFileIsServedAtBothPathsAsJSONWithoutRedirect() async throws {
        try await Self.withApp { client in
            for path in ["/.well-known/apple-app-site-association", "/apple-app-site-association"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "application/json")
                    #expect(response.headers[.cacheControl] == "public, max-age=3600")
                    #expect(response.headers[.eTag]?.hasPrefix("\"") == true)
                    let body = Data(buffer: response.body)
                    #expect(AASAValidator.validate(data: body).isEmpty)
                    let goldenURL = Self.examples.appendingPathComponent("demo-apple-app-site-association.json")
                    if ProcessInfo.processInfo.environment["DEEPLINKS_UPDATE_GOLDEN"] == "1" {
                        try body.write(to: goldenURL)
                    }
                    let golden = try Data(contentsOf: goldenURL)
                    #expect(body == golden, "the demo file differs from Examples/demo-apple-app-site-association.json")
                }
            }
        }
    }

    @Test func theServedFileOpensExactlyTheAppsUniversalLinkRoutes() async throws {
        try await Self.withApp { client in
            try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get) { response in
                let matcher = AASAMatcher(document: try JSONValue.parse(Data(buffer: response.body)))
                let app = AppConfiguration.demo.appID
                for (url, verdict) in [
                    ("https://links.example.com/post/10", AASAVerdict.match),
                    ("https://links.example.com/reset-password#token=abc", .match),
                    ("https://links.example.com/u/6ba7b810-9dad-11d1-80b4-00c04fd430c8", .match),
                    ("https://links.example.com/files/a/b", .match),
                    ("https://links.example.com/account/settings", .exclude),
                    ("https://links.example.com/post/10#no_universal_links", .exclude),
                    ("https://links.example.com/about", .nomatch),
                ] {
                    #expect(matcher.decide(appID: app, url: url).verdict == verdict, "\(url)")
                }
            }
        }
    }

    @Test func headAndETagRevalidationWork() async throws {
        try await Self.withApp { client in
            let etag = try await client.execute(uri: "/.well-known/apple-app-site-association", method: .head) {
                response in
                #expect(response.status == .ok)
                #expect(response.body.readableBytes == 0)
                #expect(Int(response.headers[.contentLength] ?? "") ?? 0 > 100)
                return response.headers[.eTag] ?? ""
            }
            try await client.execute(
                uri: "/.well-known/apple-app-site-association",
                method: .get,
                headers: [.ifNoneMatch: etag]
            ) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
            try await client.execute(
                uri: "/.well-known/apple-app-site-association",
                method: .get,
                headers: [.ifNoneMatch: "\"other\""]
            ) { response in
                #expect(response.status == .ok)
            }
            // A weak tag names the same bytes for If-None-Match (RFC 9110 compares weakly there).
            try await client.execute(
                uri: "/.well-known/apple-app-site-association",
                method: .get,
                headers: [.ifNoneMatch: "\"x\", W/\(etag)"]
            ) { response in
                #expect(response.status == .notModified)
            }
            // Last-Modified, and If-Modified-Since against it.
            let modified = try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get) {
                response in
                try #require(response.headers[.lastModified])
            }
            #expect(modified.hasSuffix(" GMT"))
            for (since, status) in [
                (modified, HTTPResponse.Status.notModified), ("Mon, 01 Jan 2001 00:00:00 GMT", .ok), ("yesterday", .ok),
            ] {
                try await client.execute(
                    uri: "/.well-known/apple-app-site-association",
                    method: .get,
                    headers: [.ifModifiedSince: since]
                ) { response in
                    #expect(response.status == status, "\(since)")
                }
            }
        }
    }

    @Test func assetLinksAreServedOnlyWhenAnAndroidAppIsConfigured() async throws {
        try await Self.withApp { client in
            try await client.execute(uri: "/.well-known/assetlinks.json", method: .get) {
                #expect($0.status == .notFound)
            }
        }
        var app = AppConfiguration.demo
        let fingerprint = (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":")
        app.android = .init(packageName: "com.example.demo", sha256CertFingerprints: [fingerprint])
        try await Self.withApp(app) { client in
            try await client.execute(uri: "/.well-known/assetlinks.json", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                #expect(AssetLinksValidator.validate(data: Data(buffer: response.body)).isEmpty)
                #expect(String(buffer: response.body).contains(fingerprint))
            }
        }
    }

    @Test func aConfigurationThatYieldsAnInvalidFileStopsTheStart() async throws {
        var app = AppConfiguration.demo
        app.excludedPaths = ["/$(any)/*"]
        let (database, cleanup) = try await TestDatabase.sqlite.open()
        #expect(throws: AssociationFiles.InvalidFile.self) {
            _ = try DeepLinksApplication.make(
                settings: {
                    var s = ServerSettings(); s.app = app; return s
                }(),
                database: database,
                logger: Logger(label: "test")
            )
        }
        await cleanup()
    }

    @Test func aConfigurationFileNamesItsRouteManifestAndAndroidApp() throws {
        // The example names the demo app's manifest, exported from its Swift route table.
        #expect(AppConfiguration.demo.routes == DemoRoute.table.manifest)
        #expect(
            AppConfiguration.demo.passwordReset
                == PasswordResetRoute(route: "reset-password", path: "/reset-password")
        )
        let json =
            #"{"app": {"teamID": "ABCDE12345", "bundleID": "a.b", "customScheme": "ab", "domains": ["x.com"], "routes": "missing.json", "android": {"packageName": "1bad"}}}"#
        do {
            _ = try AppConfiguration.decode(Data(json.utf8), source: "c.json", folder: Self.examples)
            Issue.record("should be refused")
        } catch {
            #expect(
                error.description
                    == "c.json: app.routes: \(Self.examples.appendingPathComponent("missing.json").path) cannot be read"
            )
        }
        let android =
            #"{"app": {"teamID": "ABCDE12345", "bundleID": "a.b", "customScheme": "ab", "domains": ["x.com"], "android": {"packageName": "1bad", "sha256CertFingerprints": ["AB"]}}}"#
        do {
            _ = try AppConfiguration.decode(Data(android.utf8), source: "c.json")
            Issue.record("should be refused")
        } catch {
            #expect(error.problems.count == 2)
            #expect(error.problems.allSatisfy { $0.hasPrefix("app.android: ") })
        }
    }
}
