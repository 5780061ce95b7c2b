import DeepLinksStorage
import Foundation
import Logging
import SQLKit
import Testing

/// The databases a test can run on: always a fresh SQLite file; PostgreSQL when
/// `DEEPLINKS_TEST_POSTGRES_URL` is set (CI always sets it, and fails rather than skip when it is not).
public enum TestDatabase: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgresql

    public var testDescription: String { rawValue }

    public static let postgresURL = ProcessInfo.processInfo.environment["DEEPLINKS_TEST_POSTGRES_URL"]

    /// Whether this database can run here; prints the reason when it cannot.
    public var isAvailable: Bool {
        guard self == .postgresql, Self.postgresURL == nil else { return true }
        let reason =
            "PostgreSQL tests skipped: DEEPLINKS_TEST_POSTGRES_URL is not set (bash .ci/run starts a server and sets it)"
        print("◇ \(reason)")
        if ProcessInfo.processInfo.environment["CI"] != nil {
            Issue.record("\(reason), but CI must run them")
        }
        return false
    }

    /// Opens a database that no other test uses: a new SQLite file, or a new PostgreSQL schema.
    /// Runs `body` on a fresh database of this kind, closed and removed on every path (a pool dropped unclosed
    /// stops the whole test process).
    public func with(_ body: (Database) async throws -> Void) async throws {
        let (database, cleanup) = try await open()
        do {
            try await body(database)
        } catch {
            await cleanup()
            throw error
        }
        await cleanup()
    }

    public func open(logger: Logger = Logger(label: "test")) async throws
        -> (Database, cleanup: @Sendable () async -> Void)
    {
        switch self {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("deeplinks-\(UUID().uuidString)")
            let url = DatabaseURL.sqliteFile(path: folder.appendingPathComponent("test.sqlite").path)
            let database = try await Database.open(url, logger: logger)
            return (
                database,
                {
                    try? await database.close()
                    try? FileManager.default.removeItem(at: folder)
                }
            )
        case .postgresql:
            let schema = "test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16))"
            let admin = try await Database.open(try DatabaseURL(parsing: Self.postgresURL!), logger: logger)
            try await admin.withConnection { sql in try await sql.raw("CREATE SCHEMA \(unsafeRaw: schema)").run() }
            try await admin.close()
            let separator = Self.postgresURL!.contains("?") ? "&" : "?"
            let scoped = try DatabaseURL(parsing: Self.postgresURL! + "\(separator)search_path=\(schema)")
            let database = try await Database.open(scoped, logger: logger)
            return (
                database,
                {
                    try? await database.close()
                    if let admin = try? await Database.open(try DatabaseURL(parsing: Self.postgresURL!), logger: logger)
                    {
                        try? await admin.withConnection { sql in
                            try await sql.raw("DROP SCHEMA \(unsafeRaw: schema) CASCADE").run()
                        }
                        try? await admin.close()
                    }
                }
            )
        }
    }
}
