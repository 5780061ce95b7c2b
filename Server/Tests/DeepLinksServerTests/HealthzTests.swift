import DeepLinksServer
@testable import DeepLinksStorage
import DeepLinksTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@Suite struct HealthzTests {
    @Test(arguments: TestDatabase.allCases)
    func healthzAnswersOverARealSocketWithADatabaseCheck(_ kind: TestDatabase) async throws {
        guard kind.isAvailable else { return }
        try await kind.with { try await check($0, kind) }
    }

    private func check(_ database: Database, _ kind: TestDatabase) async throws {
        try await Migrator(database: database, logger: Logger(label: "test")).migrate()
        var settings = ServerSettings()
        settings.port = 0
        let app = try DeepLinksApplication.make(settings: settings, database: database, logger: Logger(label: "test"))

        try await app.test(.live) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                let report = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(report?["status"] as? String == "ok")
                let check = report?["database"] as? [String: Any]
                #expect(check?["status"] as? String == "ok")
                #expect(check?["kind"] as? String == kind.rawValue)
                #expect(check?["schemaVersion"] as? Int == Migration.all.last?.version)
            }
        }
    }

    @Test func healthzAnswers503WhenTheDatabaseIsGone() async throws {
        let (database, cleanup) = try await TestDatabase.sqlite.open()
        try await Migrator(database: database, logger: Logger(label: "test")).migrate()
        try await database.close()
        let app = try DeepLinksApplication.make(
            settings: ServerSettings(),
            database: database,
            logger: Logger(label: "test")
        )
        try await app.test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                let report = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(report?["status"] as? String == "unavailable")
                #expect((report?["database"] as? [String: Any])?["status"] as? String == "error")
            }
        }
        await cleanup()
    }

    @Test func metricsAnswerPrometheusTextCountingRequestsByRoutePattern() async throws {
        let (database, cleanup) = try await TestDatabase.sqlite.open()
        try await Migrator(database: database, logger: Logger(label: "test")).migrate()
        let app = try DeepLinksApplication.make(
            settings: ServerSettings(),
            database: database,
            logger: Logger(label: "test")
        )
        try await app.test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/no/such/page", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
                let text = String(buffer: response.body)
                #expect(text.contains(#"deeplinks_http_requests_total{method="GET",route="/healthz",status="200"} 1"#))
                #expect(text.contains(#"deeplinks_http_requests_total{method="GET",route="NotFound",status="404"} 1"#))
                #expect(text.contains("deeplinks_database_up 1"))
                for gauge in ["entries", "emptied"] {
                    #expect(text.contains("deeplinks_link_cache_\(gauge) 0.0\n"), "the link cache's \(gauge)")
                }
                let bytes = text.split(separator: "\n").first { $0.hasPrefix("deeplinks_link_cache_bytes ") }
                let reserved = bytes.flatMap { Double($0.split(separator: " ")[1]) } ?? 0
                #expect(reserved > 0 && reserved < Double(128 << 20) / 8, "an empty cache: its index only")
                #expect(text.contains("# TYPE deeplinks_http_request_duration_seconds histogram"))
            }
        }
        await cleanup()
    }
}
