import AsyncHTTPClient
import DeepLinksSecrets
import DeepLinksServer
import DeepLinksStorage
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Testing

/// A backend that embeds the server, written as the "Embedding the server" article shows. This target has no
/// package access: it compiles only against the public API, as another package would.
@Suite struct EmbeddingTests {
    @Test func aBackendServesItsOwnRoutesBesideTheDeepLinksServer() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("embedding-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let logger = Logger(label: "backend")

        // The article's code, from here ...
        var settings = ServerSettings(
            app: AppConfiguration(
                teamID: "ABCDE12345",
                bundleID: "com.example.app",
                customScheme: "exampleapp",
                domains: ["example.com"],
                appStoreID: "123456789",
                displayName: "Example"
            )
        )
        settings.port = 0
        settings.database = .sqliteFile(path: folder.appendingPathComponent("deeplinks.sqlite").path)
        settings.mail = .folder(path: folder.appendingPathComponent("mail").path + "/")
        settings.secretKeys = try SecretKeys(parsing: "1:" + Data(repeating: 7, count: 32).base64EncodedString())

        let database = try await Database.open(settings.database, logger: logger)
        try await Migrator(database: database, logger: logger).migrate()
        let (ports, port) = AsyncStream.makeStream(of: Int.self)
        let app = try DeepLinksApplication.make(
            settings: settings,
            database: database,
            logger: logger,
            onServerRunning: { port.yield($0) },
            additionalRoutes: { router in
                router.get("/api/hello") { _, _ in "hello from the backend" }
            }
        )
        // ... to here; the backend then runs it in its service group (`app.runService()` alone, when it has no
        // other service), which SIGTERM shuts down gracefully, and closes the database after it returns.
        let group = ServiceGroup(services: [app], logger: logger)
        let server = Task { try await group.run() }
        var listening: Int?
        for await value in ports {
            listening = value
            break
        }
        let base = "http://127.0.0.1:\(try #require(listening))"

        func get(_ path: String) async throws -> (status: UInt, hsts: String?, body: String) {
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: base + path),
                timeout: .seconds(10)
            )
            let body = try await response.body.collect(upTo: 1 << 20)
            return (
                response.status.code, response.headers.first(name: "strict-transport-security"), String(buffer: body)
            )
        }
        let own = try await get("/api/hello")
        #expect(own.status == 200)
        #expect(own.body == "hello from the backend")
        // Behind the same middleware as the server's own routes.
        #expect(own.hsts != nil)
        let association = try await get("/.well-known/apple-app-site-association")
        #expect(association.status == 200)
        #expect(association.body.contains("ABCDE12345.com.example.app"))
        #expect(try await get("/healthz").status == 200)
        #expect(try await get("/api/nothing-here").status == 404)

        await group.triggerGracefulShutdown()
        try await server.value
        try await database.close()
    }
}
