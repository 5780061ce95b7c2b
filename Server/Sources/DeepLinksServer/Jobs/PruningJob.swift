import DeepLinksStorage
import Synchronization

/// Deletes what no longer serves, at most once an hour per server: audit events after 90 days, sent and
/// dropped mail after 7 days, expired reset links, deferred-link tokens and sessions, reset requests after the
/// day their daily cap needs them, refilled rate-limit buckets (the same as absent), and sign-ups nobody used in 30
/// days (``AccountService/unusedSignUpMilliseconds``), click counts (and universal-link health counts) past their retention (400 days by default:
/// `--click-retention-days`; hourly analytics 35: `--hourly-retention-days`), and the visitor hashes of past days. Each delete uses an
/// index on its time column.
final class Pruning: BackgroundJob {
    var name: String { "pruning" }

    let database: Database
    let clock: WallClock
    let every: Int64 = 3_600_000
    /// Days of click counts kept (``ServerSettings/clickRetentionDays``); 0 keeps them all.
    let clickRetentionDays: Int
    /// Days of hourly analytics kept (``ServerSettings/hourlyRetentionDays``); 0 keeps them all.
    let hourlyRetentionDays: Int
    private let last = Mutex<Int64>(0)

    init(
        database: Database,
        clock: WallClock,
        clickRetentionDays: Int = ServerSettings.defaultClickRetentionDays,
        hourlyRetentionDays: Int = 35
    ) {
        self.database = database
        self.clock = clock
        self.clickRetentionDays = clickRetentionDays
        self.hourlyRetentionDays = hourlyRetentionDays
    }

    func run() async throws { try await runIfDue() }

    func runIfDue() async throws {
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
        let cutoffs = PruningStore.Cutoffs(
            auditEvents: now - 90 * day,
            consoleAudit: now - 365 * day,
            operatorDevices: now - Operators.deviceLifetimeMilliseconds,
            // Sent mail and dropped mail; webhook events delivered or given up (retried for a day), for `last_error`.
            outboxes: now - 7 * day,
            sessionsCreated: now - AccountService.sessionLifetimeMilliseconds,
            sessionsIdle: now - AccountService.sessionIdleMilliseconds,
            consoleSessionsIdle: now - Operators.sessionIdleMilliseconds,
            resetRequests: now - day,
            // Every bucket refills within the hour.
            rateLimits: now - 3_600_000,
            // Servers read the change log every second; one that missed half of it starts with an empty cache.
            linkChanges: now - LinkStore.changeLogRetention,
            unusedSignUps: now - AccountService.unusedSignUpMilliseconds,
            clicksFrom: clickRetentionDays > 0
                ? ClickCounter.day(now - Int64(clickRetentionDays - 1) * day) : nil
        )
        try await PruningStore(database: database).prune(now: now, cutoffs: cutoffs)
        let firstHour =
            hourlyRetentionDays > 0 ? ClickCounter.day(now - Int64(hourlyRetentionDays - 1) * day) + "T00" : nil
        try await AnalyticsStore.prune(hoursBefore: firstHour, daysBefore: cutoffs.clicksFrom, database: database)
        // The visitor hashes and salts of days that are over (the click flush forgets them too, at midnight).
        try await AnalyticsStore.forgetVisitors(before: ClickCounter.day(now), database: database)
        // App event IDs a week (a retry comes within hours); funnel counts as long as click counts.
        try await FunnelStore.prune(eventsBefore: now - 7 * day, daysBefore: cutoffs.clicksFrom, database: database)
        // Universal-link health counts as long as click counts.
        if let first = cutoffs.clicksFrom { try await HealthStore.prune(daysBefore: first, database: database) }
    }
}
