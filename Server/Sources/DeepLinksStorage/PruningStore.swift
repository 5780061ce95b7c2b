import SQLKit

/// Deletes what no longer serves, across tables: the only SQL that touches every table's old rows. How long each
/// kind of row is kept is the caller's (`Pruning` in the server, from each service's lifetimes); each delete uses
/// an index on its time column.
package struct PruningStore: Sendable {
    /// The instants before which rows go, in milliseconds since 1970.
    package struct Cutoffs: Sendable {
        package var auditEvents: Int64
        package var consoleAudit: Int64
        package var operatorDevices: Int64
        /// Sent and dropped mail, delivered or given-up webhook events.
        package var outboxes: Int64
        package var sessionsCreated: Int64
        package var sessionsIdle: Int64
        package var consoleSessionsIdle: Int64
        /// Processed reset requests (their daily cap needs them for a day).
        package var resetRequests: Int64
        /// Rate-limit buckets idle long enough to be full again (the same as absent).
        package var rateLimits: Int64
        package var linkChanges: Int64
        /// Built-in accounts made by a sign-up that nobody signed in to or reset since.
        package var unusedSignUps: Int64
        /// The first day of click counts kept (`YYYY-MM-DD`, UTC); nil keeps them all.
        package var clicksFrom: String?

        package init(
            auditEvents: Int64,
            consoleAudit: Int64,
            operatorDevices: Int64,
            outboxes: Int64,
            sessionsCreated: Int64,
            sessionsIdle: Int64,
            consoleSessionsIdle: Int64,
            resetRequests: Int64,
            rateLimits: Int64,
            linkChanges: Int64,
            unusedSignUps: Int64,
            clicksFrom: String? = nil
        ) {
            self.auditEvents = auditEvents
            self.consoleAudit = consoleAudit
            self.operatorDevices = operatorDevices
            self.outboxes = outboxes
            self.sessionsCreated = sessionsCreated
            self.sessionsIdle = sessionsIdle
            self.consoleSessionsIdle = consoleSessionsIdle
            self.resetRequests = resetRequests
            self.rateLimits = rateLimits
            self.linkChanges = linkChanges
            self.unusedSignUps = unusedSignUps
            self.clicksFrom = clicksFrom
        }
    }

    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// Deletes the rows older than `cutoffs`, and expired reset links and deferred-link tokens at `now`; one
    /// statement at a time, so no lock is held across tables.
    package func prune(now: Int64, cutoffs: Cutoffs) async throws {
        var statements: [SQLQueryString] = [
            "DELETE FROM audit_events WHERE at < \(bind: cutoffs.auditEvents)",
            "DELETE FROM console_audit WHERE at < \(bind: cutoffs.consoleAudit)",
            "DELETE FROM operator_devices WHERE created_at < \(bind: cutoffs.operatorDevices)",
            "DELETE FROM mail_outbox WHERE created_at < \(bind: cutoffs.outboxes) AND (sent_at IS NOT NULL OR sealed_message = '')",
            "DELETE FROM password_resets WHERE expires_at < \(bind: now)",
            "DELETE FROM deferred_links WHERE expires_at <= \(bind: now)",
            "DELETE FROM webhook_outbox WHERE created_at < \(bind: cutoffs.outboxes) AND (sent_at IS NOT NULL OR next_attempt_at = \(bind: Int64.max))",
            """
            DELETE FROM sessions WHERE created_at < \(bind: cutoffs.sessionsCreated)
               OR COALESCE(last_used_at, created_at) < \(bind: cutoffs.sessionsIdle)
            """,
            // Console sessions: the idle limit is the shorter, and every session is used after it is created.
            "DELETE FROM console_sessions WHERE last_used_at < \(bind: cutoffs.consoleSessionsIdle)",
            "DELETE FROM reset_requests WHERE processed = \(bind: true) AND received_at < \(bind: cutoffs.resetRequests)",
            "DELETE FROM rate_limits WHERE updated_at < \(bind: cutoffs.rateLimits)",
            "DELETE FROM link_changes WHERE at < \(bind: cutoffs.linkChanges)",
            """
            DELETE FROM accounts WHERE used_at IS NULL AND subject IS NULL AND created_at < \(bind: cutoffs.unusedSignUps)
            """,
        ]
        if let day = cutoffs.clicksFrom {
            for table in ["link_clicks", "link_referrers", "link_rule_clicks"] {
                statements.append("DELETE FROM \(unsafeRaw: table) WHERE day < \(bind: day)")
            }
        }
        for statement in statements {
            try await database.withConnection { sql in try await sql.raw(statement).run() }
        }
    }
}
