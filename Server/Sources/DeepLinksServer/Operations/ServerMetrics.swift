import Hummingbird
import Prometheus
import Synchronization

/// The Prometheus registry behind `GET /metrics`, and the server's own collectors.
///
/// The library never bootstraps the global `MetricsSystem`: it records into its own registry, which a
/// caller may also hand to `PrometheusMetricsFactory` to collect swift-metrics from other libraries.
public final class ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    let databaseUp: Gauge
    let mailSent: Counter
    let mailFailed: Counter
    let mailDropped: Counter
    /// Messages waiting to be sent, and messages that will not be retried (`deeplinks outbox`), in the database.
    let outboxQueued: Gauge
    let outboxFailed: Gauge
    /// Reset mails not sent because the hourly budget of mail to new accounts was spent.
    let resetBudgetExhausted: Counter
    let clicksFlushed: Counter
    /// Clicks counted, by class (people, scanners, previews): `deeplinks_clicks_counted_total{class}`.
    let clicksCounted: [VisitorClass: Counter]
    /// Calls to the backend's hooks (external accounts) that gave no usable answer.
    let hookFailures: Counter
    /// The link cache, read at each scrape: known links held, the bytes they take, and how often it was emptied.
    let linkCacheEntries: Gauge
    let linkCacheBytes: Gauge
    let linkCacheEmptied: Gauge
    let linkCacheSynced: Gauge
    /// Redirects of cached links answered on the event loop, before the router (``CachedRedirects``).
    let cachedRedirects: Counter
    /// Connections closed because a request's body came slower than ``BodyDeadline`` allows.
    let slowBodiesClosed: Counter
    let abandonedBodies: Counter
    let descriptorsExhausted: Counter
    let openDescriptors: Gauge
    let descriptorLimit: Gauge

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        func counter(_ name: String, _ help: String, _ subsystem: String = "mail") -> Counter {
            registry.makeCounter(
                descriptor: .init(
                    namespace: "deeplinks",
                    subsystem: subsystem,
                    metricName: name,
                    unitName: "total",
                    helpText: help
                )
            )
        }
        func gauge(_ name: String, _ help: String, _ subsystem: String = "mail") -> Gauge {
            registry.makeGauge(
                descriptor: .init(namespace: "deeplinks", subsystem: subsystem, metricName: name, helpText: help)
            )
        }
        mailSent = counter("sent", "Messages this server handed to the mail transport")
        mailFailed = counter("failed", "Delivery attempts that failed (retried unless permanent)")
        mailDropped = counter("dropped", "Reset messages not sent because their link was no longer live")
        outboxQueued = gauge("outbox_queued", "Messages in the outbox waiting to be sent (all servers)")
        outboxFailed = gauge(
            "outbox_failed",
            "Messages in the outbox that will not be retried until requeued (all servers)"
        )
        resetBudgetExhausted = counter(
            "budget_exhausted",
            "Reset mails held back because the hourly budget for new accounts was spent",
            "password_reset"
        )
        clicksFlushed = counter("flushed", "Clicks written to the database", "clicks")
        clicksCounted = Dictionary(
            uniqueKeysWithValues: VisitorClass.allCases.map { visitorClass in
                let descriptor = MetricNameDescriptor(
                    namespace: "deeplinks",
                    subsystem: "clicks",
                    metricName: "counted",
                    unitName: "total",
                    helpText:
                        "Clicks counted by this server, by class: people, mail security scanners, link-preview fetchers"
                )
                return (
                    visitorClass,
                    registry.makeCounter(descriptor: descriptor, labels: [("class", visitorClass.rawValue)])
                )
            }
        )
        slowBodiesClosed = counter(
            "slow_bodies_closed",
            "Connections closed because a request body came slower than 1 KiB/s over a --body-timeout window",
            "http"
        )
        abandonedBodies = counter(
            "abandoned_bodies",
            "Requests whose client closed the connection (or broke its framing) before the body was complete; counted, not logged",
            "http"
        )
        descriptorsExhausted = counter(
            "descriptors_exhausted",
            "Times this server reached its file-descriptor limit: new connections wait in the kernel's backlog until one is freed",
            "process"
        )
        openDescriptors = gauge(
            "open_fds",
            "File descriptors this server holds open (sampled every second)",
            "process"
        )
        descriptorLimit = gauge("max_fds", "This server's file-descriptor limit (RLIMIT_NOFILE)", "process")
        hookFailures = counter(
            "hook_failures",
            "Calls to the backend's lookup and password hooks that failed or timed out",
            "accounts"
        )
        func cacheGauge(_ name: String, _ help: String) -> Gauge { gauge(name, help, "link_cache") }
        linkCacheEntries = cacheGauge("entries", "Known links held in this server's link cache")
        linkCacheBytes = cacheGauge(
            "bytes",
            "Estimated bytes the link cache takes, its index included (at most --link-cache-size)"
        )
        linkCacheEmptied = cacheGauge(
            "emptied",
            "Times the link cache was emptied since the server started: the change log unread for half an hour"
        )
        linkCacheSynced = cacheGauge(
            "synced_timestamp_seconds",
            "When this server last read the change log (0 before the first read); its cache is not used 5 s past it"
        )
        cachedRedirects = counter(
            "redirects_on_event_loop",
            "Redirects of links in the cache answered on the connection's event loop (also counted in deeplinks_http_requests_total)",
            "link_cache"
        )
        self.databaseUp = registry.makeGauge(
            descriptor: .init(
                namespace: "deeplinks",
                metricName: "database",
                unitName: "up",
                helpText: "1 when the last database check passed"
            )
        )
        registry.makeGauge(
            descriptor: .init(
                namespace: "deeplinks",
                metricName: "build",
                unitName: "info",
                helpText: "The server's version"
            ),
            labels: [("version", DeepLinksServerVersion.current)]
        ).set(Double(1))
    }

    private static var requests: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "deeplinks",
            subsystem: "http",
            metricName: "requests",
            unitName: "total",
            helpText: "HTTP requests answered, by method, route pattern and status"
        )
    }
    private static var duration: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "deeplinks",
            subsystem: "http",
            metricName: "request_duration",
            unitName: "seconds",
            helpText: "Time to answer an HTTP request"
        )
    }

    private struct RequestKey: Hashable {
        let method: String
        let route: String
        let status: Int
    }

    private static let knownMethods: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .patch, .delete, .options]

    /// The collectors of each method, route and status, made once: the registry's lookup builds names and
    /// compares labels under its lock, too much for every request.
    private let requestCollectors = Mutex<[RequestKey: (count: Counter, duration: ValueHistogram)]>([:])

    /// One request answered: `route` is the route's pattern (never the raw path, so labels stay bounded).
    func recordRequest(method: HTTPRequest.Method, route: String, status: Int, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let method = Self.knownMethods.contains(method) ? method.rawValue : "OTHER"
        let key = RequestKey(method: method, route: route, status: status)
        let collectors = requestCollectors.withLock { known in
            if let found = known[key] { return found }
            let made = (
                count: registry.makeCounter(
                    descriptor: Self.requests,
                    labels: [("method", method), ("route", route), ("status", String(status))]
                ),
                duration: registry.makeValueHistogram(
                    descriptor: Self.duration,
                    labels: [("method", method), ("route", route)],
                    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
                )
            )
            known[key] = made
            return made
        }
        collectors.count.increment()
        collectors.duration.record(seconds)
    }

    /// Writes refused because the ceiling of their kind (``WriteCeiling``) was reached.
    func anonymousWritesRefused(_ kind: String) -> Counter {
        registry.makeCounter(
            descriptor: .init(
                namespace: "deeplinks",
                subsystem: "anonymous_writes",
                metricName: "refused",
                unitName: "total",
                helpText:
                    "Anonymous writes refused (503) because their kind's hourly ceiling, all servers together, was reached"
            ),
            labels: [("kind", kind)]
        )
    }

    /// Requests from iOS that reached a claimed path instead of opening the app, by cause and domain (the served
    /// domains only, so the labels stay bounded): `deeplinks_universal_links_fell_through_total{cause,domain}`.
    func fellThrough(cause: String, domain: String) -> Counter {
        registry.makeCounter(
            descriptor: .init(
                namespace: "deeplinks",
                subsystem: "universal_links",
                metricName: "fell_through",
                unitName: "total",
                helpText:
                    "Requests from iOS on a path an association file served here claims (universal links that did not open the app), by cause"
            ),
            labels: [("cause", cause), ("domain", domain)]
        )
    }

    /// The registry in Prometheus text format.
    func exposition() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
