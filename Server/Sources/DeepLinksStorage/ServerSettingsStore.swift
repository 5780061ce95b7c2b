import Foundation
import SQLKit

/// The `server_settings` table: values the servers sharing a database agree on (the development key). The only
/// place its SQL is written.
package struct ServerSettingsStore: Sendable {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// The value of `key`, set to `candidate` first when it has none: several servers starting at once on an empty
    /// database all get the first insert's value. `inserted` says whether it was this call's.
    package func value(of key: String, settingIfAbsent candidate: String) async throws -> (
        value: String, inserted: Bool
    ) {
        let inserted = try await database.withConnection { sql in
            try await sql.raw(
                """
                INSERT INTO server_settings (key, value, updated_at)
                VALUES (\(bind: key), \(bind: candidate), \(bind: ISO8601DateFormatter().string(from: Date())))
                ON CONFLICT (key) DO NOTHING RETURNING key
                """
            ).first()
        }
        let stored = try await database.withConnection { sql in
            try await sql.raw("SELECT value FROM server_settings WHERE key = \(bind: key)").first()
        }
        guard let value = try stored?.decode(column: "value", as: String.self) else {
            throw DatabaseError.unexpectedAnswer("the setting \(key) was stored but cannot be read back")
        }
        return (value, inserted != nil)
    }

    /// Sets `key` to `value` (the health check's write).
    package func set(_ key: String, to value: String, at now: String) async throws {
        try await database.withConnection { sql in
            try await sql.raw(
                """
                INSERT INTO server_settings (key, value, updated_at) VALUES (\(bind: key), \(bind: value), \(bind: now))
                ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                """
            ).run()
        }
    }
}
