@preconcurrency import AsyncKit
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresKit
import SQLKit
import SQLiteKit

/// The server's one SQL layer over SQLite and PostgreSQL (SQLKit), with a small connection pool.
///
/// SQLite gets one connection for writes (it has one writer anyway, and one connection makes transactions
/// safe) and, for a file, a pool of read connections beside it (``read(_:)``: in WAL mode readers and the
/// writer do not wait for each other); PostgreSQL gets a pool. Every query goes through ``withConnection(_:)``,
/// ``transaction(_:)`` or ``read(_:)``: no caller sees a driver type. Query logging is off, so bound values
/// (tokens, hashes) never reach a log line.
public final class Database: Sendable {
    public let url: DatabaseURL
    public var kind: DatabaseKind { url.kind }
    private let pool: any ConnectionLeasing
    /// SQLite files: read-only statements that need no transaction (a redirect's look-up, the change log).
    private let readers: (any ConnectionLeasing)?

    private init(url: DatabaseURL, pool: any ConnectionLeasing, readers: (any ConnectionLeasing)? = nil) {
        self.url = url
        self.pool = pool
        self.readers = readers
    }

    /// Read connections beside SQLite's writer: one per core, at least two.
    static let sqliteReaders = max(2, System.coreCount)

    /// Opens the database and checks that it answers. Creates the folder of a SQLite file when needed.
    ///
    /// - Throws: ``DatabaseError`` with a one-line reason when the database cannot be opened or reached.
    public static func open(_ url: DatabaseURL, logger: Logger) async throws -> Database {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        // The pool would log each failed connection attempt itself; the failure reaches the caller
        // instead (a one-line error at start, a 503 from /healthz later), so keep the pool quiet.
        var logger = logger
        logger.logLevel = .critical
        let pool: any ConnectionLeasing
        var readers: (any ConnectionLeasing)?
        switch url {
        case .sqliteMemory:
            pool = sqlitePool(.memory, eventLoop, logger)
        case .sqliteFile(let path):
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw DatabaseError.unreachable(
                    url,
                    reason: "cannot create the folder \(folder): \(Self.reason(error))"
                )
            }
            pool = sqlitePool(.file(path: path), eventLoop, logger)
            readers = sqliteReaderPool(path: path, logger)
        case .postgres(let string):
            var configuration: SQLPostgresConfiguration
            do {
                configuration = try SQLPostgresConfiguration(url: string)
            } catch {
                // The driver's error repeats the whole URL, password included: never show it.
                throw DatabaseError.unreachable(
                    url,
                    reason: "the URL is not valid (check sslmode and the database name)"
                )
            }
            if let searchPath = URLComponents(string: string)?.queryItems?.last(where: { $0.name == "search_path" })?
                .value
            {
                configuration.searchPath = searchPath.split(separator: ",").map(String.init)
            }
            // Bounds the TCP connect and the start-up together (PostgresNIO closes a connection whose start-up
            // is not done by then): a frozen PostgreSQL accepts TCP and never answers.
            configuration.coreConfiguration.options.connectTimeout = .seconds(5)
            // A statement that runs longer fails (and its request answers 503) instead of holding a connection.
            configuration.coreConfiguration.options.additionalStartupParameters.append(("statement_timeout", "15000"))
            // About 8 connections, spread over the event loops (on one loop, every query's I/O shared one core).
            let group = MultiThreadedEventLoopGroup.singleton
            let loops = Array(group.makeIterator()).count
            pool = Pool(
                pool: EventLoopGroupConnectionPool(
                    source: PostgresConnectionSource(sqlConfiguration: configuration),
                    maxConnectionsPerEventLoop: max(1, 8 / loops),
                    requestTimeout: .seconds(Self.connectionWait),
                    pruneInterval: nil,
                    logger: logger,
                    on: group
                ),
                sql: { $0.sql(queryLogLevel: nil) }
            )
        }
        let database = Database(url: url, pool: pool, readers: readers)
        do {
            try await database.ping()
            if url.kind == .sqlite {
                // Kept by the file: every connection, the readers' too, reads and writes through the WAL.
                try await database.withConnection { sql in try await sql.raw("PRAGMA journal_mode = WAL").run() }
            }
        } catch {
            try? await pool.close()
            try? await readers?.close()
            throw DatabaseError.unreachable(url, reason: Self.reason(error))
        }
        return database
    }

    /// Runs a read that needs no transaction: on a SQLite file, on one of the read connections (it sees every
    /// committed write, and never waits for the writer); elsewhere as ``withConnection(_:)``.
    public func read<T: Sendable>(_ body: @Sendable (DatabaseConnection) async throws -> T) async throws -> T {
        guard let readers else { return try await withConnection(body) }
        return try await readers.withConnection(limit: nil) { sql in try await body(DatabaseConnection(sql)) }
    }

    /// Seconds a query waits for a pooled connection before it fails (and its request answers 503).
    static let connectionWait: Int64 = 10

    /// How long a connection may be held before it is closed under its user (PostgreSQL only): a server that
    /// stopped answering (frozen, or a network that drops packets) fails the request in this time with a 503
    /// instead of holding it for minutes. Longer than the server-side `statement_timeout` (15 s), which ends
    /// an ordinary slow statement first.
    public static let holdLimit: Duration = .seconds(20)

    /// Runs `body` with one connection held for its whole duration (use it for transactions). On PostgreSQL the
    /// connection is closed if `body` holds it longer than `limit` (``holdLimit``; nil for no limit: migrations).
    public func withConnection<T: Sendable>(
        limit: Duration? = Database.holdLimit,
        _ body: @Sendable (DatabaseConnection) async throws -> T
    ) async throws -> T {
        try await pool.withConnection(limit: kind == .postgresql ? limit : nil) { sql in
            try await body(DatabaseConnection(sql))
        }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func transaction<T: Sendable>(
        limit: Duration? = Database.holdLimit,
        _ body: @Sendable (DatabaseConnection) async throws -> T
    ) async throws -> T {
        try await withConnection(limit: limit) { sql in
            try await sql.raw(kind == .sqlite ? "BEGIN IMMEDIATE" : "BEGIN").run()
            do {
                let result = try await body(sql)
                try await sql.raw("COMMIT").run()
                return result
            } catch {
                try? await sql.raw("ROLLBACK").run()
                throw error
            }
        }
    }

    /// Checks that the database answers a trivial query.
    public func ping() async throws {
        try await withConnection { sql in
            _ = try await sql.raw("SELECT 1 AS one").first()
        }
    }

    public func close() async throws {
        try await readers?.close()
        try await pool.close()
    }

    /// SQLite gets one connection: it has one writer anyway, and one connection keeps transactions whole.
    private static func sqlitePool(_ storage: SQLiteConfiguration.Storage, _ eventLoop: any EventLoop, _ logger: Logger)
        -> any ConnectionLeasing
    {
        // 64 MiB of page cache (SQLite's default is 2 MB): a catalogue of links stays in memory.
        let source = SQLiteSource(
            base: SQLiteConnectionSource(
                configuration: .init(storage: storage, enableForeignKeys: true),
                threadPool: .singleton
            ),
            pragmas: [SQLiteSource.busyTimeout, "PRAGMA cache_size = -65536"]
        )
        return Pool(
            pool: EventLoopConnectionPool(source: source, maxConnections: 1, logger: logger, on: eventLoop),
            sql: { $0.sql(queryLogLevel: nil) }
        )
    }

    /// The read connections of a SQLite file, spread over the event loops. They read in WAL mode (which the
    /// writer set, and the file keeps), so they take no lock the writer waits for, nor wait for it.
    private static func sqliteReaderPool(path: String, _ logger: Logger) -> any ConnectionLeasing {
        let source = SQLiteSource(
            base: SQLiteConnectionSource(
                configuration: .init(storage: .file(path: path), enableForeignKeys: false),
                threadPool: .singleton
            ),
            pragmas: [SQLiteSource.busyTimeout]
        )
        let group = MultiThreadedEventLoopGroup.singleton
        let loops = Array(group.makeIterator()).count
        return Pool(
            pool: EventLoopGroupConnectionPool(
                source: source,
                maxConnectionsPerEventLoop: max(1, sqliteReaders / loops),
                requestTimeout: .seconds(Self.connectionWait),
                pruneInterval: nil,
                logger: logger,
                on: group
            ),
            sql: { $0.sql(queryLogLevel: nil) }
        )
    }

    /// A one-line, secret-free reason for a driver error ("PSQLError - Generic description" says nothing:
    /// the server's message does).
    public static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                return message
            }
            if let underlying = error.underlying {
                return reason(underlying)
            }
            return "PostgreSQL error \(error.code)"
        }
        if let error = error as? DatabaseError {
            return error.message
        }
        if let error = error as? IOError {
            return error.description
        }
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first {
                return "cannot connect to \(first.target): \(reason(first.error))"
            }
            return "cannot connect to \(error.host):\(error.port)"
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return "connection timed out"
        }
        if error is ConnectionPoolTimeoutError {
            return
                "no database connection came free within \(connectionWait) s (the database is slow, stopped or unreachable)"
        }
        return String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// Whether `error` is the storage failing (the database unreachable, refusing, timing out, its disk full), as
    /// opposed to a bug: the server answers the first with 503 and `Retry-After`. Here so that no module above this
    /// one needs the drivers' types.
    public static func isStorageFailure(_ error: any Error) -> Bool {
        error is PSQLError || error is SQLiteError || error is ConnectionPoolError
            || error is ConnectionPoolTimeoutError || error is NIOConnectionError || error is ChannelError
            || error is IOError || error is DatabaseError || error is PostgresDecodingError
    }
}

/// Leases a connection for the duration of a closure.
private protocol ConnectionLeasing: Sendable {
    func withConnection<T: Sendable>(limit: Duration?, _ body: @Sendable (any SQLDatabase) async throws -> T)
        async throws -> T
    func close() async throws
}

/// The two AsyncKit pools the server uses: one event loop (SQLite's one connection), or every loop of a group
/// (PostgreSQL: each request takes a connection of the next loop). Both hop to their loops themselves.
private protocol AsyncKitPool {
    associatedtype Source: ConnectionPoolSource
    func requestConnection() -> EventLoopFuture<Source.Connection>
    func release(_ connection: Source.Connection)
    func shutDown() async throws
}

extension EventLoopConnectionPool: AsyncKitPool {
    func release(_ connection: Source.Connection) { releaseConnection(connection) }
    func shutDown() async throws { try await close().get() }
}

extension EventLoopGroupConnectionPool: AsyncKitPool {
    func requestConnection() -> EventLoopFuture<Source.Connection> { requestConnection(logger: nil, on: nil) }
    func release(_ connection: Source.Connection) { releaseConnection(connection) }
    func shutDown() async throws { try await shutdownAsync() }
}

/// A pool of either driver; `sql` wraps a driver connection in SQLKit with query logging off. The AsyncKit pools
/// lock their own state, hence `@unchecked Sendable`.
private struct Pool<Leasing: AsyncKitPool>: ConnectionLeasing, @unchecked Sendable
where Leasing.Source.Connection: Sendable {
    let pool: Leasing
    let sql: @Sendable (Leasing.Source.Connection) -> any SQLDatabase

    /// With a `limit`, the connection is closed if `body` holds it longer: that fails the query waiting on it,
    /// and the pool then discards the connection.
    func withConnection<T: Sendable>(limit: Duration?, _ body: @Sendable (any SQLDatabase) async throws -> T)
        async throws -> T
    {
        let connection = try await pool.requestConnection().get()
        defer { pool.release(connection) }
        let deadline = limit.map { limit in
            connection.eventLoop.scheduleTask(in: TimeAmount(limit)) { _ = connection.close() }
        }
        defer { deadline?.cancel() }
        return try await body(sql(connection))
    }

    func close() async throws {
        try await pool.shutDown()
    }
}

extension Database {
    /// An outbox (`mail_outbox`, `webhook_outbox`): rows with `id`, `sent_at`, `next_attempt_at` and `attempts`.
    package enum Outbox: String {
        case mail = "mail_outbox"
        case webhooks = "webhook_outbox"
    }

    /// Claims the oldest due row of `outbox` (not sent, `next_attempt_at` come): one conditional `UPDATE ...
    /// RETURNING` moves its `next_attempt_at` `lease` ahead and counts the attempt, so no other server (sharing
    /// the database) sends it until the lease ends. The candidate is chosen once (a materialised CTE: PostgreSQL may
    /// run an `IN (SELECT ... LIMIT 1)` again for each row it scans, claiming many rows with one statement), and
    /// PostgreSQL skips rows another server has locked (`FOR UPDATE SKIP LOCKED`); SQLite has one writer. Due and
    /// leased by ``DatabaseConnection/outboxClock(_:fromDatabase:)``: on PostgreSQL the database's clock, so a replica whose own
    /// clock runs ahead cannot take a row whose lease another still holds.
    package func claimDue(
        _ outbox: Outbox,
        now: Int64,
        lease: Int64,
        databaseClock: Bool,
        returning columns: String
    ) async throws -> (any SQLRow)? {
        let postgres = kind == .postgresql
        let materialized: SQLQueryString = postgres ? "MATERIALIZED" : ""
        let lock: SQLQueryString = postgres ? "FOR UPDATE SKIP LOCKED" : ""
        let table = SQLQueryString(outbox.rawValue)
        return try await withConnection { sql in
            let now = sql.outboxClock(now, fromDatabase: databaseClock)
            return try await sql.raw(
                """
                WITH candidate AS \(materialized) (
                    SELECT id FROM \(table) WHERE sent_at IS NULL AND next_attempt_at <= \(now) ORDER BY id LIMIT 1 \(lock)
                )
                UPDATE \(table) SET next_attempt_at = \(now) + \(bind: lease), attempts = attempts + 1
                WHERE id = (SELECT id FROM candidate) AND sent_at IS NULL AND next_attempt_at <= \(now)
                RETURNING \(SQLQueryString(columns))
                """
            ).first()
        }
    }

    /// Makes every unsent row of the outboxes that is not failed for good due now (`next_attempt_at` = `now`):
    /// the leases a single process held when it stopped (a crash), and the retries it was waiting for. For SQLite
    /// at start (one process by design: nothing else can hold those leases); returns how many.
    package func reclaimOutboxes(now: Int64) async throws -> Int {
        try await withConnection { sql in
            var count = 0
            for outbox in [Outbox.mail, .webhooks] {
                let table = SQLQueryString(outbox.rawValue)
                count += try await sql.raw(
                    """
                    UPDATE \(table) SET next_attempt_at = \(bind: now)
                    WHERE sent_at IS NULL AND next_attempt_at > \(bind: now) AND next_attempt_at <> \(bind: MailOutboxStore.never)
                    RETURNING id
                    """
                ).all().count
            }
            return count
        }
    }
}

/// SQLiteKit's connections with `pragmas` run on each one as it opens (a pool reopens a connection that failed, so
/// a setting made once on the first would be lost). SQLiteNIO installs a busy handler that retries at once and for
/// ever, a thread spinning for as long as another connection holds the lock it needs; ``busyTimeout`` replaces it
/// with SQLite's own, which sleeps between tries and gives up after 5 s (the request then fails with a 503).
struct SQLiteSource: ConnectionPoolSource {
    let base: SQLiteConnectionSource
    let pragmas: [String]

    static let busyTimeout = "PRAGMA busy_timeout = 5000"

    func makeConnection(logger: Logger, on eventLoop: any EventLoop) -> EventLoopFuture<SQLiteConnection> {
        base.makeConnection(logger: logger, on: eventLoop).flatMap { connection in
            var ready = eventLoop.makeSucceededVoidFuture()
            for pragma in pragmas {
                ready = ready.flatMap { connection.query(pragma).map { _ in } }
            }
            return ready.map { connection }.flatMapError { error in
                connection.close().flatMapThrowing { throw error }
            }
        }
    }
}
