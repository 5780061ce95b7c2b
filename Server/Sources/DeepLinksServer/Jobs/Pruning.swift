import DeepLinksStorage
import SQLKit
import Synchronization

/// Deletes what no longer serves, at most once an hour per server: audit events after 90 days, sent and
/// dropped mail after 7 days, expired reset links, deferred-link tokens and sessions, reset requests after the
/// day their daily cap needs them, and refilled rate-limit buckets (the same as absent). Each delete uses an
/// index on its time column.
final class Pruning: Sendable {
    let database: Database
    let clock: WallClock
    let every: Int64 = 3_600_000
    private let last = Mutex<Int64>(0)

    init(database: Database, clock: WallClock) {
        self.database = database
        self.clock = clock
    }

    @Sendable func runIfDue() async throws {
        let now = clock.milliseconds()
        let due = last.withLock { last in
            guard now - last >= every else { return false }
            last = now
            return true
        }
        if due { try await run(now: now) }
    }

    func run(now: Int64) async throws {
        let day: Int64 = 86_400_000
        let statements: [SQLQueryString] = [
            "DELETE FROM audit_events WHERE at < \(bind: now - 90 * day)",
            "DELETE FROM console_audit WHERE at < \(bind: now - 365 * day)",
            "DELETE FROM operator_devices WHERE created_at < \(bind: now - Operators.deviceLifetimeMilliseconds)",
            "DELETE FROM mail_outbox WHERE created_at < \(bind: now - 7 * day) AND (sent_at IS NOT NULL OR sealed_message = '')",
            "DELETE FROM password_resets WHERE expires_at < \(bind: now)",
            "DELETE FROM deferred_links WHERE expires_at <= \(bind: now)",
            // Delivered or given up (retried for a day): kept a week, for `last_error`.
            "DELETE FROM webhook_outbox WHERE created_at < \(bind: now - 7 * day) AND (sent_at IS NOT NULL OR next_attempt_at = \(bind: Int64.max))",
            """
            DELETE FROM sessions WHERE created_at < \(bind: now - AccountService.sessionLifetimeMilliseconds)
               OR COALESCE(last_used_at, created_at) < \(bind: now - AccountService.sessionIdleMilliseconds)
            """,
            // Console sessions: the idle limit is the shorter, and every session is used after it is created.
            "DELETE FROM console_sessions WHERE last_used_at < \(bind: now - Operators.sessionIdleMilliseconds)",
            "DELETE FROM reset_requests WHERE processed = \(bind: true) AND received_at < \(bind: now - day)",
            "DELETE FROM rate_limits WHERE updated_at < \(bind: now - 3_600_000)",
            // Servers read the change log every second; one that missed half of it starts with an empty cache.
            "DELETE FROM link_changes WHERE at < \(bind: now - LinkStore.changeLogRetention)",
        ]
        for statement in statements {
            try await database.withConnection { sql in try await sql.raw(statement).run() }
        }
    }
}
