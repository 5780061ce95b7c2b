import Foundation
import Hummingbird
import Logging

/// The body of `GET /healthz`: 200 when every check passes, 503 otherwise.
struct HealthReport: Codable, Sendable {
    struct DatabaseCheck: Codable, Sendable {
        var status: String
        var kind: DatabaseKind
        var latencyMilliseconds: Double?
        var schemaVersion: Int?
        var error: String?
    }

    var status: String
    var version: String
    var database: DatabaseCheck

    var isHealthy: Bool { database.status == "ok" }

    static func check(_ database: Database) async -> HealthReport {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try await database.ping()
            let elapsed = clock.now - start
            let schema = try await Migrator(database: database, logger: .init(label: "healthz")).appliedVersions().max()
            let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
            return HealthReport(
                status: "ok",
                version: DeepLinksServerVersion.current,
                database: .init(
                    status: "ok",
                    kind: database.kind,
                    latencyMilliseconds: (milliseconds * 1000).rounded() / 1000,
                    schemaVersion: schema
                )
            )
        } catch {
            return HealthReport(
                status: "unavailable",
                version: DeepLinksServerVersion.current,
                database: .init(status: "error", kind: database.kind, error: Database.reason(error))
            )
        }
    }
}

public enum DeepLinksServerVersion {
    public static let current = "0.1.0"
}
