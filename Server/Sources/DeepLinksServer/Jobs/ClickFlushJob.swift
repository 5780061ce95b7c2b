import DeepLinksStorage

/// Writes the clicks ``ClickCounter`` counts in memory on every redirect (no database write on the redirect's path)
/// to `link_clicks`, `link_referrers` and `link_rule_clicks`, in batches (``ClickCounter/flushIfDue(now:)``), and
/// everything left at shutdown (``ClickCounter/flush()``), so nothing counted is lost.
struct ClickFlushJob: BackgroundJob {
    let clicks: ClickCounter
    var name: String { "click counts" }

    func run() async throws { try await clicks.flushIfDue() }

    /// The last write; when it fails, the error says how many clicks are lost (the background jobs log it).
    func atShutdown() async throws {
        do {
            try await clicks.flush()
        } catch {
            throw ClicksLost(clicks: clicks.unwritten, reason: Database.reason(error))
        }
    }

    struct ClicksLost: Error, CustomStringConvertible {
        let clicks: Int64
        let reason: String
        var description: String { "\(clicks) clicks counted since the last write are lost: \(reason)" }
    }
}
