import Synchronization
import VaporCSQLite

/// One read-only point look-up on a SQLite file (`SELECT document FROM links WHERE code = ?`, a redirect's cache miss)
/// done on the caller's thread, with the statement prepared once per connection.
///
/// Through SQLKit the same look-up prepares its statement anew, runs it on NIO's thread pool, and hops back to an event
/// loop and then to the request's task: issue #22 measured about 287 µs of server CPU per miss, most of it those
/// hand-offs. Here a miss is a bind, a step and a copy of one column, on read-only connections beside the writer: in
/// WAL mode they see every committed write and never wait for it. Measured end to end (Benchmarks/RESULTS.md): uniform
/// codes over 100k links, nearly all misses, 6.6k → 20.2k redirects a second. A connection is used by one thread at a
/// time (taken from `idle` under a lock); a look-up that finds none idle opens one, so there are as many as look-ups
/// ever ran at once (a handful: the look-ups do not suspend, so at most one per thread of the cooperative pool).
package final class SQLiteLookup: Sendable {
    private final class Connection: @unchecked Sendable {
        let handle: OpaquePointer
        let statement: OpaquePointer

        init(handle: OpaquePointer, statement: OpaquePointer) {
            self.handle = handle
            self.statement = statement
        }

        deinit {
            sqlite_nio_sqlite3_finalize(statement)
            sqlite_nio_sqlite3_close_v2(handle)
        }
    }

    private let path: String
    private let sql: String
    private let idle = Mutex<[Connection]>([])

    /// - Parameter sql: one statement with one parameter (`?1`); its first column is what ``text(for:)`` returns.
    package init(path: String, sql: String) {
        self.path = path
        self.sql = sql
    }

    /// The first column of the first row for `key`, as text; nil when there is no row or it is NULL.
    package func text(for key: String) throws(DatabaseError) -> String? {
        let connection: Connection
        if let reused = idle.withLock({ $0.popLast() }) {
            connection = reused
        } else {
            connection = try open()
        }
        let statement = connection.statement
        let result: Result<String?, DatabaseError> = key.withCString { bytes in
            defer {
                sqlite_nio_sqlite3_reset(statement)
                sqlite_nio_sqlite3_clear_bindings(statement)
            }
            // SQLITE_STATIC (nil): SQLite reads the bytes during the step, while `bytes` is alive.
            guard sqlite_nio_sqlite3_bind_text(statement, 1, bytes, -1, nil) == SQLITE_OK else {
                return .failure(failure(Self.message(connection.handle)))
            }
            switch sqlite_nio_sqlite3_step(statement) {
            case SQLITE_ROW:
                guard let text = sqlite_nio_sqlite3_column_text(statement, 0) else { return .success(nil) }
                let count = Int(sqlite_nio_sqlite3_column_bytes(statement, 0))
                return .success(
                    String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
                )
            case SQLITE_DONE:
                return .success(nil)
            default:
                return .failure(failure(Self.message(connection.handle)))
            }
        }
        idle.withLock { $0.append(connection) }
        return try result.get()
    }

    private func open() throws(DatabaseError) -> Connection {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
        guard sqlite_nio_sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            let reason = handle.map(Self.message) ?? "cannot open the database file"
            sqlite_nio_sqlite3_close_v2(handle)
            throw failure(reason)
        }
        // Wait for a checkpoint rather than fail. Pages come through SQLite's own cache (2 MB a connection) and
        // the OS's page cache; not mapped, which would show the file in the server's resident memory.
        sqlite_nio_sqlite3_busy_timeout(handle, 5_000)
        var statement: OpaquePointer?
        guard
            sqlite_nio_sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
                == SQLITE_OK,
            let statement
        else {
            let reason = Self.message(handle)
            sqlite_nio_sqlite3_close_v2(handle)
            throw failure(reason)
        }
        return Connection(handle: handle, statement: statement)
    }

    private func failure(_ reason: String) -> DatabaseError {
        .queryFailed(.sqliteFile(path: path), reason: reason)
    }

    private static func message(_ handle: OpaquePointer) -> String {
        sqlite_nio_sqlite3_errmsg(handle).map { String(cString: $0) } ?? "SQLite error"
    }
}
