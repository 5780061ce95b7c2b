import AppSiteAssociation
import DeepLinks
import DeepLinksStorage
import HTTPTypes
import Hummingbird
import NIOCore
import Prometheus
import Synchronization

/// Why a universal link reached the server instead of opening the app: every request from iOS or iPadOS (and every
/// preview fetch) on a path an association file served here claims is one, classified by the first cause that
/// explains it (docs/universal-link-health.md says what fixes each).
package enum FallThroughCause: String, Sendable, CaseIterable {
    /// A mail security scanner opened it (``ScannerList``): no person tapped anything.
    case scanner
    /// A link-preview fetcher read it (Messages, Slack...): no tap either.
    case preview
    /// Opened in an app's own web view (detail: which app): in-app browsers do not hand universal links to iOS.
    case inAppBrowser = "in_app_browser"
    /// The tap was on a page of the same domain: iOS opens the app only for a tap that crosses domains.
    case sameDomain = "same_domain"
    /// Apple's CDN copy of the domain's file differs from the one served and does not give this path to the app:
    /// devices read the CDN's copy.
    case appleCDNDiffers = "apple_cdn_differs"
    /// The landing page's "Open in the app" was tapped and the request still came here: the app is not installed,
    /// or the device has not installed its association (an app installed before the file changed, say).
    case openInAppTapped = "open_in_app_tapped"
    /// An internationalised domain (`xn--`): iOS does not open universal links on some of them.
    case internationalDomain = "idn"
    /// None of the above: a link typed or pasted into Safari, a long press that chose Safari, an app not installed.
    case unknown
}

/// Universal-link health (``FallThroughCause``): the redirect and the app-path pages record each request from iOS to
/// a served host with one append (``record(_:platform:peer:)``); the background job classifies the batch
/// (``absorb()``) and adds the counts per day, domain and cause to `link_health` (``flush()``); no row per visitor is
/// ever written. Holds the domains whose CDN copy differs from the file served (``AppleCDNWatch``).
final class UniversalLinkHealth: Sendable {
    /// A request as the redirect leaves it: its headers retained, not copied; dropped once classified.
    struct Sighting: Sendable {
        let host: String
        /// The path and query, as requested.
        let target: String
        let platform: ClientPlatform
        let headers: HTTPFields
        let peer: SocketAddress?
        let milliseconds: Int64
    }

    let policy: LinkPolicy
    let database: Database
    let proxies: TrustedProxies
    let scanners: ScannerList
    let metrics: ServerMetrics?
    let clock: WallClock
    /// The hosts whose association file this server serves: the apps' domains and the short-link domains.
    let domains: [String]
    /// ``domains``, for the request's path: a request to any other host is not recorded.
    let servedHosts: Set<String>
    private let sightings = Mutex<[Sighting]>([])
    private let counts = Mutex<[HealthStore.Count: Int64]>([:])
    /// The domains whose CDN copy differs from the served file, with the matcher of that copy (nil: none usable).
    private let differing = Mutex<[String: AASAMatcher?]>([:])

    init(
        policy: LinkPolicy,
        database: Database,
        proxies: TrustedProxies,
        metrics: ServerMetrics?,
        clock: WallClock,
        scanners: ScannerList = .builtIn
    ) {
        (self.policy, self.database, self.proxies, self.metrics, self.clock, self.scanners) =
            (policy, database, proxies, metrics, clock, scanners)
        var hosts = policy.apps.flatMap(\.domains)
        for host in policy.linkMatcher?.hosts.sorted() ?? [] where !hosts.contains(host) { hosts.append(host) }
        (domains, servedHosts) = (hosts, Set(hosts))
    }

    /// Whether a request from `platform` is one to record: iOS and iPadOS, and preview fetchers.
    static func watches(_ platform: ClientPlatform) -> Bool {
        platform == .iPhone || platform == .iPad || platform == .previewBot
    }

    /// On the request's path: one append, for a request from iOS (or a preview fetcher) only. Whether the path is
    /// claimed, and why the request came, is worked out later, in ``absorb()``.
    func record(_ request: Request, platform known: ClientPlatform? = nil, peer: () -> SocketAddress?) {
        let platform =
            known
            ?? ClientPlatform(
                agent: AgentText(request.headers[.userAgent]),
                platformHint: request.headers[LinkRedirect.platformHint]
            )
        guard Self.watches(platform), let host = request.requestedHost, servedHosts.contains(host),
            let target = request.head.path
        else { return }
        let sighting = Sighting(
            host: host,
            target: target,
            platform: platform,
            headers: request.headers,
            peer: peer(),
            milliseconds: clock.milliseconds()
        )
        sightings.withLock { $0.append(sighting) }
    }

    /// The app whose claim on `url` (on `host`) makes the request a universal link that fell through, if any.
    func claimant(host: String, url: String) -> AppConfiguration? {
        if policy.linkMatcher?.hosts.contains(host) == true {
            return policy.opens(policy.primary, url).verdict == .match ? policy.primary : nil
        }
        return policy.apps.first { $0.domains.contains(host) && policy.opens($0, url).verdict == .match }
    }

    /// What a batch reads once: each URL's claim (the app, and whether a differing CDN copy gives it the URL), each
    /// agent's scanner and in-app browser, each address's scanner, each `Referer`'s host.
    struct Cache {
        /// By host, then path and query as requested.
        var claims: [String: [String: (appID: String, cdnOpens: Bool)?]] = [:]
        var agents: [String: (scanner: Bool, inApp: InAppBrowser?)] = [:]
        var addresses: [String: Bool] = [:]
        var referrers: [String: String?] = [:]
        /// The domains whose CDN copy differs, as they were when the batch began.
        var differing: [String: AASAMatcher?] = [:]
    }

    /// Why `sighting` came here, or nil when no file served here claims its path (not a universal link).
    func cause(of sighting: Sighting, cache: inout Cache) -> (cause: FallThroughCause, detail: String)? {
        let claim: (appID: String, cdnOpens: Bool)?
        if let known = cache.claims[sighting.host]?[sighting.target] {
            claim = known
        } else {
            let url = "https://\(sighting.host)\(sighting.target)"
            claim = claimant(host: sighting.host, url: url).map { app in
                let copy = cache.differing[sighting.host]
                let cdnOpens =
                    copy == nil || copy??.decide(appID: app.appID, url: url, domain: sighting.host).verdict == .match
                return (app.appID, cdnOpens)
            }
            cache.claims[sighting.host, default: [:]][sighting.target] = .some(claim)
        }
        guard let claim else { return nil }
        let agentString = sighting.headers[.userAgent] ?? ""
        let agent =
            cache.agents[agentString]
            ?? {
                let text = AgentText(agentString)
                return (scanners.scanner(agent: text) != nil, InAppBrowser(agent: text))
            }()
        cache.agents[agentString] = agent
        let client = proxies.clientAddress(peer: sighting.peer, headers: sighting.headers)
        let scannerAddress =
            cache.addresses[client] ?? IPAddress(client).flatMap(scanners.scanner(address:)).map { _ in true } ?? false
        cache.addresses[client] = scannerAddress
        if agent.scanner || scannerAddress { return (.scanner, "") }
        if sighting.platform == .previewBot { return (.preview, "") }
        if let browser = agent.inApp { return (.inAppBrowser, browser.key) }
        let referer = sighting.headers[.referer] ?? ""
        let referrer = cache.referrers[referer] ?? ClickCounter.referrerHost(referer)
        cache.referrers[referer] = .some(referrer)
        if referrer == sighting.host { return (.sameDomain, "") }
        if !claim.cdnOpens { return (.appleCDNDiffers, "") }
        if let referrer,
            referrer == policy.settings.landingDomain || policy.linkMatcher?.hosts.contains(referrer) == true
                || referrer == policy.linkDomain
        {
            return (.openInAppTapped, "")
        }
        if sighting.host.split(separator: ".").contains(where: { $0.hasPrefix("xn--") }) {
            return (.internationalDomain, "")
        }
        return (.unknown, "")
    }

    /// Classifies the requests recorded since the last call (each URL, agent and address read once per batch) and
    /// adds them to the pending counts and the metrics.
    func absorb() {
        let taken = sightings.withLock { list in
            defer { list = [] }
            return list
        }
        guard !taken.isEmpty else { return }
        var cache = Cache(differing: differing.withLock { $0 })
        var batch: [HealthStore.Count: Int64] = [:]
        var day = (number: Int64.min, text: "")
        for sighting in taken {
            guard let (cause, detail) = cause(of: sighting, cache: &cache) else { continue }
            if sighting.milliseconds / 86_400_000 != day.number {
                day = (sighting.milliseconds / 86_400_000, ClickCounter.day(sighting.milliseconds))
            }
            let count = HealthStore.Count(
                day: day.text,
                domain: sighting.host,
                cause: cause.rawValue,
                detail: detail
            )
            batch[count, default: 0] += 1
        }
        counts.withLock { $0.merge(batch, uniquingKeysWith: +) }
        for (count, requests) in batch {
            metrics?.fellThrough(cause: count.cause, domain: count.domain).increment(by: requests)
        }
    }

    /// Writes the pending counts; what a failed write did not store is kept for the next flush.
    func flush() async throws {
        absorb()
        let taken = counts.withLock { pending in
            defer { pending = [:] }
            return pending
        }
        do {
            try await HealthStore.add(taken, database: database)
        } catch {
            counts.withLock { $0.merge(taken, uniquingKeysWith: +) }
            throw error
        }
    }

    /// Notes what ``AppleCDNWatch`` found of `domain`: its CDN copy differs (with that copy's matcher, nil when it
    /// has no usable copy), or not.
    func cdnCopy(of domain: String, differs: Bool, matcher: AASAMatcher?) {
        differing.withLock { $0[domain] = differs ? .some(matcher) : nil }
    }

    /// What `deeplinks doctor` and `?d=1` say of `domain`: ``note(domain:database:now:)``.
    func note(domain: String) async -> String? {
        await Self.note(domain: domain, database: database, now: clock.milliseconds())
    }

    /// The week's counts of `domain` in one line, nil when nothing fell through (or the database cannot say).
    static func note(domain: String, database: Database, now: Int64) async -> String? {
        let first = ClickCounter.day(now - 6 * 86_400_000)
        guard
            let counts = try? await HealthStore.counts(
                domain: domain,
                from: first,
                to: ClickCounter.day(now),
                database: database
            )
        else { return nil }
        let total = counts.reduce(0) { $0 + $1.requests }
        guard total > 0 else { return nil }
        let parts = counts.prefix(4).map { "\($0.cause)\($0.detail.isEmpty ? "" : " (\($0.detail))") \($0.requests)" }
        return
            "universal-link health: in the last 7 days, \(total) request(s) from iOS reached \(domain) on a claimed path instead of opening the app: "
            + parts.joined(separator: ", ") + (counts.count > 4 ? ", ..." : "")
    }
}

/// Writes the health counts every second and at shutdown.
struct UniversalLinkHealthJob: BackgroundJob {
    let health: UniversalLinkHealth
    var name: String { "universal-link health" }

    func run() async throws { try await health.flush() }

    func atShutdown() async throws { try await health.flush() }
}
