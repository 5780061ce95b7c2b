import DeepLinksStorage
import Foundation
import Hummingbird
import Logging

/// The body of `GET /healthz`: 200 when every check passes, 503 otherwise; `warnings` name what still works
/// but needs an operator (mail that will not be retried, a spent reset-mail budget).
///
/// The database check writes (a probe row in `server_settings`): a database that answers reads but refuses
/// writes (a full disk, a read-only replica) is not healthy. The answer never carries the database's
/// address or a driver's text; the server's log has the reason.
struct HealthReport: Codable, Sendable {
    struct DatabaseCheck: Codable, Sendable {
        var status: String
        var kind: DatabaseKind
        var latencyMilliseconds: Double?
        var schemaVersion: Int?
        var error: String?
    }

    struct OutboxCheck: Codable, Sendable {
        /// Messages waiting to be sent.
        var queued: Int
        /// Messages that will not be retried until an operator requeues them (`deeplinks outbox`).
        var failed: Int
    }

    var status: String
    var version: String
    var database: DatabaseCheck
    var outbox: OutboxCheck?
    var warnings: [String]

    var isHealthy: Bool { database.status == "ok" }

    static func check(_ database: Database, mailBudgetPerHour: Int, now: Int64, logger: Logger) async -> HealthReport {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try await ServerSettingsStore(database: database).set("health_probe", to: String(now), at: String(now))
            let elapsed = clock.now - start
            let schema = try await Migrator(database: database, logger: logger).appliedVersions().max()
            let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
            let (outbox, budgetSpent) = try await counts(database, now: now)
            var warnings: [String] = []
            if outbox.failed > 0 {
                warnings.append("\(outbox.failed) message(s) will not be retried: see `deeplinks outbox list`")
            }
            if budgetSpent >= mailBudgetPerHour {
                warnings.append(
                    "the hourly reset-mail budget for accounts younger than a day (\(mailBudgetPerHour)) is spent: such resets are held back"
                )
            }
            return HealthReport(
                status: "ok",
                version: DeepLinksServerVersion.current,
                database: .init(
                    status: "ok",
                    kind: database.kind,
                    latencyMilliseconds: (milliseconds * 1000).rounded() / 1000,
                    schemaVersion: schema
                ),
                outbox: outbox,
                warnings: warnings
            )
        } catch {
            logger.warning("health check failed", metadata: ["reason": "\(Database.reason(error))"])
            return HealthReport(
                status: "unavailable",
                version: DeepLinksServerVersion.current,
                database: .init(
                    status: "error",
                    kind: database.kind,
                    error: "the database did not accept the check's write (the server's log says why)"
                ),
                warnings: []
            )
        }
    }
}

extension HealthReport {
    /// The outbox's queued and failed messages, and the reset mails to new accounts in the last hour.
    static func counts(_ database: Database, now: Int64) async throws -> (OutboxCheck, budgetSpent: Int) {
        let (queued, failed) = try await MailOutboxStore(database: database).pending()
        let spent = try await PasswordResetStore(database: database).mailsToNewAccounts(since: now - 3_600_000)
        return (OutboxCheck(queued: queued, failed: failed), spent)
    }
}
