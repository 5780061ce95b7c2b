import SQLKit

/// One step of the schema, identified by a version that never changes once released.
///
/// Migrations are plain SQL that both SQLite and PostgreSQL accept; where the dialects differ, the
/// step receives the database kind. Add new steps at the end of ``Migration/all``; never edit a released one.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    let apply: @Sendable (any SQLDatabase, DatabaseKind) async throws -> Void

    public init(
        version: Int,
        name: String,
        apply: @escaping @Sendable (any SQLDatabase, DatabaseKind) async throws -> Void
    ) {
        self.version = version
        self.name = name
        self.apply = apply
    }

    /// Every migration, in order.
    public static let all: [Migration] = [
        Migration(version: 1, name: "create server_settings") { sql, _ in
            try await sql.raw(
                """
                CREATE TABLE server_settings (
                    key TEXT PRIMARY KEY,
                    value TEXT NOT NULL,
                    updated_at TEXT NOT NULL
                )
                """
            ).run()
        }
    ]
}
