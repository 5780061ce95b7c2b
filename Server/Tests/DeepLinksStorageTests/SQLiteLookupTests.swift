@testable import DeepLinksStorage
import DeepLinksTestSupport
import Foundation
import SQLKit
import Testing

/// The redirect's miss path on a SQLite file: one prepared statement per read-only connection, on the caller's
/// thread, beside the server's writer.
@Suite struct SQLiteLookupTests {
    static func withTable(_ body: (Database, SQLiteLookup) async throws -> Void) async throws {
        let (database, cleanup) = try await TestDatabase.sqlite.open()
        do {
            try await database.withConnection { sql in
                try await sql.raw("CREATE TABLE t (code TEXT PRIMARY KEY, document TEXT)").run()
            }
            guard case .sqliteFile(let path) = database.url else { throw DatabaseError.unexpectedAnswer("no file") }
            try await body(database, SQLiteLookup(path: path, sql: "SELECT document FROM t WHERE code = ?1"))
        } catch {
            await cleanup()
            throw error
        }
        await cleanup()
    }

    /// Every connection of the writer's pool and the readers' waits for a lock with SQLite's sleeping handler, 5 s
    /// at most (SQLiteNIO's own handler retries at once, for ever), and the writer keeps 64 MiB of pages.
    @Test func everyConnectionWaitsForALockAtMostFiveSeconds() async throws {
        try await Self.withTable { database, _ in
            let writer = try await database.withConnection { sql in
                (
                    try await sql.raw("PRAGMA busy_timeout").first()?.decode(column: "timeout", as: Int.self),
                    try await sql.raw("PRAGMA cache_size").first()?.decode(column: "cache_size", as: Int.self)
                )
            }
            #expect(writer.0 == 5_000 && writer.1 == -65_536)
            let readers = try await withThrowingTaskGroup(of: Int?.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await database.read { sql in
                            try await Task.sleep(for: .milliseconds(20))  // held together: several connections
                            return try await sql.raw("PRAGMA busy_timeout").first()?.decode(
                                column: "timeout",
                                as: Int.self
                            )
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(readers == Array(repeating: 5_000, count: 8))
        }
    }

    @Test func aLookUpSeesEveryCommittedWriteOfTheWriter() async throws {
        try await Self.withTable { database, lookup in
            #expect(try lookup.text(for: "a") == nil)
            try await database.transaction { sql in
                try await sql.raw("INSERT INTO t VALUES ('a', 'first'), ('b', NULL), ('é/ü', 'ünïcode')").run()
            }
            #expect(try lookup.text(for: "a") == "first")
            #expect(try lookup.text(for: "b") == nil, "a NULL column reads as nil")
            #expect(try lookup.text(for: "é/ü") == "ünïcode")
            #expect(try lookup.text(for: "a' OR '1'='1") == nil, "the key is bound, never spliced")
            // The connection is reused: its last read must not pin an old snapshot.
            try await database.transaction { sql in try await sql.raw("UPDATE t SET document = 'second'").run() }
            #expect(try lookup.text(for: "a") == "second")
            try await database.transaction { sql in try await sql.raw("DELETE FROM t WHERE code = 'a'").run() }
            #expect(try lookup.text(for: "a") == nil)
        }
    }

    @Test func concurrentLookUpsEachGetTheirOwnRow() async throws {
        try await Self.withTable { database, lookup in
            try await database.transaction { sql in
                for index in 0..<200 {
                    try await sql.raw("INSERT INTO t VALUES (\(bind: "k\(index)"), \(bind: "v\(index)"))").run()
                }
            }
            let wrong = try await withThrowingTaskGroup(of: Int.self) { group in
                for task in 0..<16 {
                    group.addTask {
                        var wrong = 0
                        for round in 0..<500 {
                            let index = (task * 37 + round * 11) % 200
                            if try lookup.text(for: "k\(index)") != "v\(index)" { wrong += 1 }
                        }
                        return wrong
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(wrong == 0)
        }
    }

    @Test func aFileThatCannotBeReadIsAFailureWithItsReason() {
        let lookup = SQLiteLookup(path: "/nonexistent/folder/db.sqlite", sql: "SELECT 1 WHERE ?1")
        #expect(throws: DatabaseError.self) { try lookup.text(for: "x") }
        do {
            _ = try lookup.text(for: "x")
        } catch {
            #expect(error.description.contains("unable to open"), "\(error)")
        }
    }
}
