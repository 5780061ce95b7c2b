/// A job the server runs in the background: a request leaves its work in the database (a row, or clicks counted in
/// memory) and wakes the jobs; the job picks the work up and does the slow part. Each job's type says which work it
/// picks up and where it leaves what follows; ``BackgroundJobs/all(resets:mail:webhooks:links:clicks:health:cdnWatch:pruning:)`` lists
/// them all.
///
/// Work lives in the database, claimed before it is done, so replicas sharing it never do one piece twice and a job
/// interrupted by a restart is picked up by the next run.
protocol BackgroundJob: Sendable {
    /// Its name in the logs.
    var name: String { get }
    /// One round: everything waiting now. Run when woken and at least every second, in a loop of its own.
    func run() async throws
    /// Once, after the loops stopped at shutdown (the click counts' last flush).
    func atShutdown() async throws
}

extension BackgroundJob {
    func atShutdown() async throws {}
}

extension BackgroundJobs {
    /// Every background job, the one list (README, "Where things are"):
    ///
    /// | Job | Picks up | Written by | Leaves |
    /// | --- | --- | --- | --- |
    /// | ``ResetRequestsJob`` | `password_reset_requests` | `PasswordResetService.request` | a token, `mail_outbox` |
    /// | ``MailSender`` | `mail_outbox` | ``MailOutbox`` (resets, sign-up mail) | SMTP, or an `.eml` file |
    /// | ``WebhookSender`` | `webhook_outbox` | ``WebhookEvents`` (link edits, counts, redemptions) | signed POSTs |
    /// | ``LinkChangesJob`` | `link_changes` | `LinkDocumentStore` (every server's edits) | this server's link cache |
    /// | ``ClickFlushJob`` | clicks counted in memory | ``ClickCounter`` (every redirect) | `link_clicks` and the rest |
    /// | ``UniversalLinkHealthJob`` | iOS requests on claimed paths, in memory | ``UniversalLinkHealth`` (redirects, app pages) | `link_health` |
    /// | ``AppleCDNWatch`` | Apple's CDN copies, when due | nothing: its own clock | `association_cdn_checks`, a webhook |
    /// | ``Pruning`` | rows past their time | everything above | nothing: deletes them |
    ///
    /// Beside them, ``DescriptorWatch`` (no work in the database: it samples the process's file descriptors).
    static func all(
        resets: PasswordResetService?,
        mail: MailSender,
        webhooks: WebhookSender?,
        links: LinkStore,
        clicks: ClickCounter,
        health: UniversalLinkHealthJob?,
        cdnWatch: AppleCDNWatch?,
        pruning: Pruning
    ) -> [any BackgroundJob] {
        let jobs: [(any BackgroundJob)?] = [
            resets.map(ResetRequestsJob.init), mail, webhooks, LinkChangesJob(links: links),
            ClickFlushJob(clicks: clicks), health, cdnWatch,
            pruning,
        ]
        return jobs.compactMap { $0 }
    }
}
