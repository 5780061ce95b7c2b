import AppSiteAssociation
import Foundation
import DeepLinksJSON
import DeepLinksStorage
import Logging
import Synchronization

/// Compares Apple's CDN copy of each served domain's association file with the file served, every
/// `--apple-cdn-check-minutes` (as `deeplinks doctor` does, for every domain at once): devices read the CDN's copy,
/// so while it differs, universal links follow the old file. Each comparison is stored (``HealthStore``), so every
/// replica classifies requests by it (``UniversalLinkHealth``), and once a domain's copy has differed for
/// ``noticeAfter``, one server claims the notice and queues the `association.cdn_differs` webhook (and logs it); a
/// copy that is the same again ends the stretch, and a later one is announced anew.
final class AppleCDNWatch: BackgroundJob {
    var name: String { "Apple CDN watch" }

    let health: UniversalLinkHealth
    let files: AssociationFiles
    let fetcher: AASAFetcher
    /// Where the CDN serves a domain's file (the domain is appended).
    let cdnURL: String
    let every: Int64
    let clock: WallClock
    let events: WebhookEvents?
    let logger: Logger
    private let last = Mutex<Int64?>(nil)

    /// How long a copy differs before the webhook says so: Apple's CDN follows a changed file within minutes to
    /// hours, so a deploy is not announced at once.
    static let noticeAfter: Int64 = 600_000

    init(
        health: UniversalLinkHealth,
        files: AssociationFiles,
        cdnURL: String,
        everyMinutes: Int,
        clock: WallClock,
        events: WebhookEvents?,
        logger: Logger
    ) {
        (self.health, self.files, self.cdnURL, self.clock, self.events, self.logger) =
            (health, files, cdnURL, clock, events, logger)
        every = Int64(everyMinutes) * 60_000
        fetcher = AASAFetcher(allowHTTP: cdnURL.hasPrefix("http://"), timeoutSeconds: 10)
    }

    /// In a loop of its own, so a slow CDN never holds up the counts.
    func run() async throws { try await runIfDue() }

    func runIfDue() async throws {
        let now = clock.milliseconds()
        let due = last.withLock { last in
            guard last.map({ now - $0 >= every }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        for domain in health.domains { try await check(domain, now: now) }
    }

    /// The file served on `domain`: a short-link domain's own, or the apps' file.
    func served(_ domain: String) -> AssociationFiles.File {
        if let links = files.linkDomainAssociation, links.hosts.contains(domain) { return links.file }
        return files.appleAppSiteAssociation
    }

    func check(_ domain: String, now: Int64) async throws {
        let report: AASAFetcher.Report
        do {
            report = try await fetcher.fetch(cdnURL + domain, asFile: true)
        } catch {
            // Unreachable: nothing learnt, nothing changed.
            logger.debug("Apple's CDN not asked", metadata: ["domain": "\(domain)", "reason": "\(error)"])
            return
        }
        let refused = report.appleFailure != nil || report.diagnostics.contains { $0.severity == .error }
        let copy = refused ? nil : report.body.flatMap { try? JSONValue.parse($0) }
        let differs = copy == nil || copy != (try? JSONValue.parse(served(domain).body))
        health.cdnCopy(of: domain, differs: differs, matcher: copy.map(AASAMatcher.init(document:)))
        let state = try await HealthStore.checked(domain: domain, differs: differs, at: now, database: health.database)
        guard let since = state.differsSince, state.notifiedAt == nil, now - since >= Self.noticeAfter else { return }
        let events = events
        let claimed = try await HealthStore.claimNotice(
            domain: domain,
            differingSince: now - Self.noticeAfter,
            at: now,
            database: health.database
        ) { sql in
            let data = JSONValue.object([
                "domain": .string(domain), "differsSince": .number(Double(since)),
                "cdnHasFile": .bool(copy != nil),
            ])
            try await events?.enqueue("association.cdn_differs", data, on: sql)
        }
        if claimed {
            logger.warning(
                "Apple's CDN copy of the association file differs from the one served: devices follow the CDN's",
                metadata: ["domain": "\(domain)", "since_minutes": "\((now - since) / 60_000)"]
            )
        }
    }
}
