import Foundation
import Logging
import SQLKit

/// Applies ``Migration/all`` in order, each in its own transaction, recording each in `schema_migrations`.
///
/// Running it again applies nothing. On PostgreSQL an advisory lock per schema, taken before anything else (the
/// creation of `schema_migrations` too), keeps servers starting at once from applying the same step twice;
/// on SQLite `BEGIN IMMEDIATE` does the same.
public struct Migrator: Sendable {
    public let database: Database
    public let migrations: [Migration]
    public let logger: Logger

    public init(database: Database, migrations: [Migration] = Migration.all, logger: Logger) {
        self.database = database
        self.migrations = migrations
        self.logger = logger
    }

    /// Takes the migration lock of the schema (replicas on one schema wait for each other; two schemas of one
    /// database do not), for the transaction. No statement timeout from here on: a server starting beside one
    /// that applies a long migration waits for it rather than failing after the usual 15 s.
    private static func lock(_ sql: any SQLDatabase) async throws {
        try await sql.raw("SET LOCAL statement_timeout = 0").run()
        try await sql.raw("SELECT pg_advisory_xact_lock(727274, hashtext(current_schema()))").run()
    }

    /// Applies the pending migrations and returns the versions applied now.
    @discardableResult
    public func migrate() async throws -> [Int] {
        let kind = database.kind
        // Under the lock too: two servers starting on an empty PostgreSQL would both try to create the table,
        // and `IF NOT EXISTS` does not make concurrent creations safe (a duplicate-key error on pg_type).
        try await database.transaction(limit: nil) { sql in
            if kind == .postgresql { try await Self.lock(sql) }
            try await sql.raw(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at TEXT NOT NULL
                )
                """
            ).run()
        }
        let known = migrations.map(\.version).max() ?? 0
        let applied = try await appliedVersions()
        if let newest = applied.max(), newest > known {
            throw DatabaseError.newerSchema(applied: newest, known: known)
        }
        var appliedNow: [Int] = []
        for migration in migrations where !applied.contains(migration.version) {
            // No time limit: a migration may rewrite a large table.
            let didApply = try await database.transaction(limit: nil) { sql in
                if kind == .postgresql { try await Self.lock(sql) }
                // Another process may have applied it while we waited for the lock.
                let rows = try await sql.raw(
                    "SELECT version FROM schema_migrations WHERE version = \(bind: migration.version)"
                ).all()
                guard rows.isEmpty else { return false }
                do {
                    try await migration.apply(sql, kind)
                } catch {
                    throw DatabaseError.migrationFailed(
                        version: migration.version,
                        name: migration.name,
                        reason: Database.reason(error)
                    )
                }
                try await sql.raw(
                    """
                    INSERT INTO schema_migrations (version, name, applied_at)
                    VALUES (\(bind: migration.version), \(bind: migration.name), \(bind: Self.timestamp()))
                    """
                ).run()
                return true
            }
            if didApply {
                logger.info(
                    "applied migration",
                    metadata: ["version": "\(migration.version)", "name": "\(migration.name)"]
                )
                appliedNow.append(migration.version)
            }
        }
        return appliedNow
    }

    /// The versions recorded in `schema_migrations`.
    public func appliedVersions() async throws -> [Int] {
        try await database.withConnection { sql in
            try await sql.raw("SELECT version FROM schema_migrations ORDER BY version").all().map {
                try $0.decode(column: "version", as: Int.self)
            }
        }
    }

    static func timestamp() -> String {
        Date.now.formatted(.iso8601)
    }
}
