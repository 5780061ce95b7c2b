/// Writes the clicks ``ClickCounter`` counts in memory on every redirect (no database write on the redirect's path)
/// to `link_clicks`, `link_referrers` and `link_rule_clicks`, in batches (``ClickCounter/flushIfDue(now:)``), and
/// everything left at shutdown (``ClickCounter/flush()``), so nothing counted is lost.
struct ClickFlushJob: BackgroundJob {
    let clicks: ClickCounter
    var name: String { "click counts" }

    func run() async throws { try await clicks.flushIfDue() }
    func atShutdown() async throws { try await clicks.flush() }
}
