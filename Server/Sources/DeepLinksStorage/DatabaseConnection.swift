import Logging
import NIOCore
import SQLKit

/// One connection of the database, as ``Database/withConnection(limit:_:)``, ``Database/transaction(limit:_:)`` and
/// ``Database/read(_:)`` hand it out: the stores read and write through it (`on: connection`, the caller's
/// transaction), the server's services only hold it and pass it on. This module owns it: no module above imports
/// SQLKit, and SQL is written only here.
///
/// The stores' one rule: an instance method (`store.keys()`) takes a connection of its own for one statement or
/// read; a static method (`OperatorStore.revokeKey(_:at:on:)`) runs on the connection it is given, inside the
/// caller's transaction, so that several stores' writes commit or roll back together.
public struct DatabaseConnection: SQLDatabase {
    /// The time an outbox row is claimed and leased by, for a claim at the caller's `now`: on PostgreSQL, which
    /// replicas share and whose clocks may drift apart, the database's clock (the statement's time, in
    /// milliseconds), so that a replica whose clock runs ahead cannot take a row another still holds; on SQLite (one
    /// process), or with `fromDatabase` false (a test moving its own clock), `now`.
    package func outboxClock(_ now: Int64, fromDatabase: Bool = true) -> SQLQueryString {
        fromDatabase && dialect.name == "postgresql"
            ? "(EXTRACT(EPOCH FROM statement_timestamp()) * 1000)::bigint" : "\(bind: now)"
    }

    /// The time a new outbox row is due: `now`, or on PostgreSQL the database's clock when it is earlier, so that
    /// a row written by a replica whose clock runs ahead is not held back.
    package func outboxDue(_ now: Int64) -> SQLQueryString {
        dialect.name == "postgresql" ? "LEAST(\(bind: now), \(outboxClock(now)))" : "\(bind: now)"
    }

    let base: any SQLDatabase

    init(_ base: any SQLDatabase) { self.base = base }

    public var logger: Logger { base.logger }
    public var eventLoop: any EventLoop { base.eventLoop }
    public var version: (any SQLDatabaseReportedVersion)? { base.version }
    public var dialect: any SQLDialect { base.dialect }
    public var queryLogLevel: Logger.Level? { base.queryLogLevel }

    public func execute(
        sql query: any SQLExpression,
        _ onRow: @escaping @Sendable (any SQLRow) -> Void
    ) -> EventLoopFuture<Void> {
        base.execute(sql: query, onRow)
    }

    public func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await base.execute(sql: query, onRow)
    }

    public func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await base.withSession(closure)
    }
}
