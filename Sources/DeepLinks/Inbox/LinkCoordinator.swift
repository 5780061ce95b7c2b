#if canImport(os)
import os
#endif

/// Runs links from every OS callback to the app: the ``LinkInbox`` (dedup, readiness, conditions), the route
/// table, then an optional async resolution (fetch before navigating) with a timeout, where a newer link
/// cancels a resolution still in flight, and finally `deliver`.
///
/// Callbacks arrive on the main thread, one after another, and their order matters (a launch option before
/// its `open`, a link before `setReady`). So every input method is synchronous and callable from any context:
/// it stamps the time and queues the input, and the actor applies inputs strictly in the order they were made.
public actor LinkCoordinator<Destination: Sendable>: LinkReceiver {
    /// What happened to each link, in order: for logs and tests. A `link` is the route, pattern and parameters
    /// the table read (`post /post/:id id=7`), a `redactedURL` the URL no route took; sensitive values are
    /// redacted in both.
    public enum Event: Sendable, CustomStringConvertible {
        case delivered(route: String, link: String)
        case rejected(redactedURL: String, LinkRejection)
        case dropped(link: String, LinkInbox.DropReason)
        case resolutionFailed(link: String)
        case timedOut(link: String)
        case cancelled(link: String)
        /// The route requires confirmation and the person did not give it (or the app asks no one).
        case declined(link: String)
        /// A custom-scheme delivery to a route limited to some apps, from a callback that names no sender
        /// (SwiftUI's `onOpenURL`): passed over, since its twin from the app or scene delegate names it.
        case senderUnknown(link: String)
        /// Held `heldWarning` or longer (5 s by default) for what it still waits for: the app never called
        /// `setReady(true)`, or a condition its route needs never held. Logged, so a link is never held in silence.
        case held(link: String, waitingFor: String)
        /// `deliver` could not carry the link out yet (``LinkDeliveryError/notReady(_:)``: no tab bar yet behind a
        /// sign-in root, say): kept, with every later link, until the next `setReady(true)`.
        case notReady(link: String, reason: String)
        /// `deliver` could not carry the link out and never will (it threw another error, or
        /// ``LinkDeliveryError/undeliverable(_:)``).
        case undeliverable(link: String, reason: String)

        public var description: String {
            switch self {
            case .delivered(let route, let link): "delivered \(link) to \(route)"
            case .rejected(let url, let rejection): "rejected \(url): \(rejection)"
            case .dropped(let link, let reason): "dropped \(link): \(reason.rawValue)"
            case .resolutionFailed(let link): "resolution failed for \(link)"
            case .timedOut(let link): "resolution timed out for \(link)"
            case .cancelled(let link): "resolution cancelled for \(link) by a newer link"
            case .declined(let link): "not confirmed: \(link)"
            case .senderUnknown(let link): "passed over, no sending app named: \(link)"
            case .held(let link, let missing): "still held, waiting for \(missing): \(link)"
            case .notReady(let link, let reason): "not carried out yet (\(reason)), held until setReady(true): \(link)"
            case .undeliverable(let link, let reason): "could not be carried out (\(reason)): \(link)"
            }
        }
    }

    /// Why a link was not carried out, for ``init(table:configuration:timeout:heldWarning:eventLimit:clock:log:requirements:resolve:confirm:onUnhandled:reporter:deliver:)``'s
    /// `onUnhandled`: open it in Safari when the app cannot, say what failed, or ignore it.
    public enum Unhandled: Sendable {
        /// No route takes it (another app's scheme, a path the app does not know, a bad parameter).
        case rejected(LinkRejection)
        /// Held longer than the inbox's expiry (the app never became ready, or a condition never held).
        case expired
        /// A newer link replaced it while it was held or being resolved.
        case cancelled
        /// The resolution failed or timed out.
        case resolutionFailed
        case timedOut
        /// Its route requires confirmation (``Route/requiresConfirmation``), and `confirm` said no.
        case declined
        /// `deliver` threw, with this reason (``LinkDeliveryError``).
        case undeliverable(String)
    }

    private let table: RouteTable<Destination>
    private var inbox: LinkInbox
    private let requirements: @Sendable (Destination) -> Set<String>
    private let resolve: @Sendable (Destination) async throws -> Destination
    private let confirm: @Sendable (Destination) async -> Bool
    private let deliver: @Sendable (Destination) async throws -> Void
    private let heldWarning: Duration
    private let log: @Sendable (Event) -> Void
    /// Told of each link carried out, with the channel it first came by (``LinkReporter``); nil: nobody.
    private let reporter: LinkReporter?
    /// The channel each URL held or in flight first came by, for the reporter (a twin's is the same link's).
    private var channels: [String: LinkChannel] = [:]
    /// Links whose `deliver` threw ``LinkDeliveryError/notReady(_:)``, in order: carried out again at `setReady(true)`.
    private var waiting: [(url: String, match: RouteMatch<Destination>, since: Duration)] = []
    /// The held links already reported by a ``Event/held(link:waitingFor:)`` event, by arrival number (or, for
    /// a waiting link, its URL), and whether a check is due.
    private var warned: Set<String> = []
    private var heldCheckDue = false
    private let onUnhandled: @Sendable (_ url: String, Unhandled) async -> Void
    private let timeout: Duration
    private let eventLimit: Int
    /// Time since the coordinator was made, and a sleep, on the clock it was given.
    private let elapsed: @Sendable () -> Duration
    private let sleep: @Sendable (Duration) async throws -> Void
    private let inputs: AsyncStream<(Input, Duration)>.Continuation
    /// The release being resolved: its task and the links (URL and description) it has not finished yet.
    private var inFlight: (id: Int, links: [(url: String, link: String)], task: Task<Void, Never>)?
    /// Every release still running, by id (one whose links were all handed to `deliver` is no longer `inFlight`).
    private var delivering: [Int: Task<Void, Never>] = [:]
    private var nextID = 0
    /// Calls of `onUnhandled` not finished yet, by number: ``settle()`` waits for them.
    private var reports: [Int: Task<Void, Never>] = [:]
    private var nextReport = 0
    /// Each URL's match, made once when it arrives, with the number of its deliveries the inbox still holds.
    private var matches: [String: (match: RouteMatch<Destination>, held: Int)] = [:]
    /// The latest events, at most `eventLimit` of them.
    public private(set) var events: [Event] = []

    private enum Input: Sendable {
        case link(String, LinkChannel, sourceApplication: String?)
        case ready(Bool)
        case condition(String, Bool)
        case active(Bool)
        /// Time to report the links held `heldWarning` or longer.
        case checkHeld
        /// Resumed once every earlier input is applied.
        case flush(CheckedContinuation<Void, Never>)
    }

    /// - Parameters:
    ///   - table: the app's routes: every link is matched once, when it arrives.
    ///   - configuration: the inbox's windows, expiry and policy for several held links.
    ///   - timeout: how long `resolve` may take.
    ///   - eventLimit: how many of the latest ``events`` are kept.
    ///   - heldWarning: a link held this long is reported (``Event/held(link:waitingFor:)``), naming the call the
    ///     coordinator still waits for (`setReady(true)`, or `setCondition(_:holds:)` with the condition).
    ///   - log: every event as it is recorded; its description redacts sensitive values. Default: the unified
    ///     log on Apple platforms (subsystem `DeepLinks`; held, undeliverable and rejected links at the notice
    ///     level, the rest at debug), nothing elsewhere.
    ///   - clock: stamps each input (the inbox's windows and expiry are measured on it) and times resolutions.
    ///     A test clock (DeepLinksTesting's `TestClock`) makes runs deterministic.
    ///   - requirements: conditions a destination needs before it is handled (`["signedIn"]`).
    ///   - resolve: work before navigating (a fetch); it may refine the destination. Default: none.
    ///   - confirm: asks the person whether to carry out a destination whose route requires confirmation
    ///     (``Route/requiresConfirmation``: a deletion, a payment, accepting an invitation), after `resolve`;
    ///     true carries it out. Default: no one is asked, so such links are declined: a link alone never
    ///     changes anything.
    ///   - onUnhandled: a link that was not carried out, with why: the URL as it came (it may hold a secret:
    ///     open it, never log it). A universal link the app cannot route belongs in Safari (`UIApplication`'s
    ///     `open(_:)` with `universalLinksOnly: false` sends it there). Twins of a handled link are not reported.
    ///   - reporter: told of each link carried out (``LinkReporter``: one `opened` event to the server per link,
    ///     never a parameter value); nil, the default, tells no one.
    ///   - deliver: carries the destination out (compute a ``NavigationPlan``, hand it to the adapter). It throws
    ///     ``LinkDeliveryError/notReady(_:)`` when the UI cannot show it yet (`UIKitNavigator` finds no tab bar
    ///     behind a sign-in root): the link, and every later one, waits for the next `setReady(true)`. Any other
    ///     error means it never will: ``Event/undeliverable(link:reason:)`` (with the error's type, never its
    ///     description, which may hold what the link held), and `onUnhandled`.
    public init(
        table: RouteTable<Destination>,
        configuration: LinkInbox.Configuration = .init(),
        timeout: Duration = .seconds(10),
        heldWarning: Duration = .seconds(5),
        eventLimit: Int = 1_000,
        clock: any Clock<Duration> = ContinuousClock(),
        log: @escaping @Sendable (Event) -> Void = LinkCoordinator.systemLog,
        requirements: @escaping @Sendable (Destination) -> Set<String> = { _ in [] },
        resolve: @escaping @Sendable (Destination) async throws -> Destination = { $0 },
        confirm: @escaping @Sendable (Destination) async -> Bool = { _ in false },
        onUnhandled: @escaping @Sendable (_ url: String, Unhandled) async -> Void = { _, _ in },
        reporter: LinkReporter? = nil,
        deliver: @escaping @Sendable (Destination) async throws -> Void
    ) {
        self.table = table
        self.reporter = reporter
        self.heldWarning = heldWarning
        self.log = log
        self.inbox = LinkInbox(configuration: configuration)
        self.timeout = timeout
        self.eventLimit = max(1, eventLimit)
        self.requirements = requirements
        self.resolve = resolve
        self.confirm = confirm
        self.onUnhandled = onUnhandled
        self.deliver = deliver
        (elapsed, sleep) = Self.timing(clock)
        var continuation: AsyncStream<(Input, Duration)>.Continuation!
        let stream = AsyncStream<(Input, Duration)> { continuation = $0 }
        self.inputs = continuation
        Task { [weak self] in
            for await (input, time) in stream {
                guard let self else { return }
                await self.apply(input, at: time)
            }
        }
    }

    deinit { inputs.finish() }

    private static func timing<C: Clock<Duration>>(_ clock: C) -> (
        elapsed: @Sendable () -> Duration, sleep: @Sendable (Duration) async throws -> Void
    ) {
        let start = clock.now
        return (
            { start.duration(to: clock.now) },
            { try await clock.sleep(until: clock.now.advanced(by: $0), tolerance: nil) }
        )
    }

    private nonisolated func send(_ input: Input) {
        inputs.yield((input, elapsed()))
    }

    /// A link from any OS callback, untouched, with the sending app's bundle ID where the callback names it
    /// (`UIApplication.OpenURLOptionsKey.sourceApplication`, `UIScene.OpenURLOptions.sourceApplication`,
    /// `UIScene.ConnectionOptions.sourceApplication`): routes limited to some apps
    /// (``Route/sourceApplications``) need it.
    public nonisolated func receive(_ url: String, via channel: LinkChannel, sourceApplication: String? = nil) {
        send(.link(url, channel, sourceApplication: sourceApplication))
    }

    /// An activity from `continue userActivity`, the launch options or the connection options: a link only
    /// when it is a browsing-web activity (``LinkInbox/link(activityType:webpageURL:)``); any other is ignored.
    public nonisolated func receive(activityType: String, webpageURL: String?, via channel: LinkChannel) {
        guard let url = LinkInbox.link(activityType: activityType, webpageURL: webpageURL) else { return }
        send(.link(url, channel, sourceApplication: nil))
    }

    /// The app's UI is mounted (or, with false, is not any more): links are handled from now on.
    public nonisolated func setReady(_ ready: Bool) {
        send(.ready(ready))
    }

    public nonisolated func setCondition(_ condition: String, holds: Bool) {
        send(.condition(condition, holds))
    }

    /// The app became active, or stopped being active: see ``LinkInbox/setActive(_:at:)``.
    public nonisolated func setActive(_ active: Bool) {
        send(.active(active))
    }

    /// Waits until every input made before the call is applied, and the resolution in flight and the calls of
    /// `onUnhandled`, if any, have finished (for tests and orderly shutdown).
    public func settle() async {
        await withCheckedContinuation { inputs.yield((.flush($0), .zero)) }
        while let task = inFlight?.task {
            await task.value
            if inFlight?.task == task { inFlight = nil }
        }
        while let delivery = delivering.values.first {
            await delivery.value
        }
        while let report = reports.values.first {
            await report.value
        }
    }

    private func apply(_ input: Input, at time: Duration) {
        switch input {
        case .link(let url, let channel, let sender):
            switch table.match(url) {
            case .failure(let rejection):
                record(.rejected(redactedURL: table.redact(url), rejection))
                report(url, .rejected(rejection))
            case .success(let match) where !Self.senderAllowed(match, sender):
                // A delivery without a sender (SwiftUI's onOpenURL) is passed over: its twin from the app or
                // scene delegate names the sender. One from another app is refused.
                guard let sender else {
                    record(.senderUnknown(link: "\(match)"))
                    return
                }
                let rejection = LinkRejection(
                    .sourceApplicationNotAllowed,
                    "route '\(match.routeName)' takes custom-scheme links from some apps only, not from \(sender)"
                )
                record(.rejected(redactedURL: table.redact(url), rejection))
                report(url, .rejected(rejection))
            case .success(let match):
                // Matched once: the inbox answers each delivery with exactly one handle or drop, which uses it.
                matches[url] = (match, (matches[url]?.held ?? 0) + 1)
                if channels[url] == nil { channels[url] = channel }
                perform(inbox.receive(url, via: channel, at: time, requires: requirements(match.destination)))
            }
        case .ready(let ready):
            // Links `deliver` could not carry out yet go first, before any the inbox releases with them.
            let retried = ready ? waiting.map { (url: $0.url, match: $0.match) } : []
            if ready { waiting.removeAll() }
            perform(inbox.setReady(ready, at: time), retrying: retried)
        case .condition(let condition, let holds): perform(inbox.setCondition(condition, holds: holds, at: time))
        case .active(let active): perform(inbox.setActive(active, at: time))
        case .checkHeld: checkHeld(at: time)
        case .flush(let continuation): continuation.resume()
        }
    }

    /// Whether a route limited to some apps (``Route/sourceApplications``) takes this custom-scheme delivery.
    private static func senderAllowed(_ match: RouteMatch<Destination>, _ sender: String?) -> Bool {
        guard let allowed = match.sourceApplications, case .customScheme = match.source else { return true }
        return sender.map(allowed.contains) ?? false
    }

    private func perform(
        _ actions: [LinkInbox.Action],
        retrying released: [(url: String, match: RouteMatch<Destination>)] = []
    ) {
        var released = released
        for action in actions {
            let delivery =
                switch action {
                case .drop(let delivery, _), .handle(let delivery): delivery
                }
            guard let entry = matches[delivery.url] else { continue }
            matches[delivery.url] = entry.held > 1 ? (entry.match, entry.held - 1) : nil
            switch action {
            case .drop(_, let reason):
                record(.dropped(link: "\(entry.match)", reason))
                // Nothing of this URL held or in flight any more: its channel goes (a later sighting is new).
                if matches[delivery.url] == nil, inFlight?.links.contains(where: { $0.url == delivery.url }) != true {
                    channels[delivery.url] = nil
                }
                switch reason {
                case .duplicate: break  // its twin is the one handled
                case .expired: report(delivery.url, .expired)
                case .superseded: report(delivery.url, .cancelled)
                }
            case .handle:
                released.append((delivery.url, entry.match))
            }
        }
        if !released.isEmpty { start(released) }
        scheduleHeldCheck()
    }

    /// Wakes the coordinator `heldWarning` after the oldest link held and not yet reported.
    private func scheduleHeldCheck() {
        guard !heldCheckDue else { return }
        let pending =
            inbox.held.filter { !warned.contains("\($0.sequence)") }.map(\.receivedAt)
            + waiting.filter { !warned.contains($0.url) }.map(\.since)
        guard let oldest = pending.min() else { return }
        heldCheckDue = true
        let (sleep, delay) = (self.sleep, max(.zero, oldest + heldWarning - elapsed()))
        Task { [weak self] in
            try? await sleep(delay)
            self?.send(.checkHeld)
        }
    }

    /// Reports each link held `heldWarning` or longer, once, with the call it waits for.
    private func checkHeld(at time: Duration) {
        heldCheckDue = false
        for delivery in inbox.held where time - delivery.receivedAt >= heldWarning {
            guard warned.insert("\(delivery.sequence)").inserted, let match = matches[delivery.url]?.match else {
                continue
            }
            let missing = delivery.requires.subtracting(inbox.conditions).sorted()
            let call =
                !inbox.isReady
                ? "setReady(true)"
                : missing.map { "setCondition(\"\($0)\", holds: true)" }.joined(separator: " and ")
            record(.held(link: "\(match)", waitingFor: call))
        }
        for link in waiting where time - link.since >= heldWarning && warned.insert(link.url).inserted {
            record(.held(link: "\(link.match)", waitingFor: "setReady(true) once the UI can show it"))
        }
        warned.formIntersection(Set(inbox.held.map { "\($0.sequence)" } + waiting.map(\.url)))
        scheduleHeldCheck()
    }

    /// Starts resolving and delivering `released` links together, one after another in their order; it
    /// cancels what is still in flight from an earlier release: a newer link wins.
    private func start(_ released: [(url: String, match: RouteMatch<Destination>)]) {
        if let previous = inFlight {
            previous.task.cancel()
            for (url, link) in previous.links {
                record(.cancelled(link: link))
                report(url, .cancelled)
            }
        }
        nextID += 1
        let id = nextID
        let items = released.map {
            (
                destination: $0.match.destination, confirms: $0.match.requiresConfirmation, url: $0.url,
                link: "\($0.match)", match: $0.match
            )
        }
        let (resolve, confirm, deliver, timeout, sleep) = (
            self.resolve, self.confirm, self.deliver, self.timeout, self.sleep
        )
        // Ended once its last `deliver` returned (and was recorded and reported): what `settle()` waits for, after
        // `inFlight` has moved on.
        func run() async {
            var held = false  // `deliver` could not carry a link out yet: the ones after it wait behind it
            for item in items {
                if held {
                    self.finish(id, nil)
                    self.delivered(item.url, item.match, .notReady("a link before it is held"))
                    continue
                }
                let outcome = await Self.resolve(item.destination, with: resolve, timeout: timeout, sleep: sleep)
                guard !Task.isCancelled else { return }
                switch outcome {
                case .success(let resolved):
                    if item.confirms {
                        let confirmed = await confirm(resolved)
                        guard !Task.isCancelled else { return }
                        guard confirmed else {
                            self.finish(id, .declined(link: item.link), unhandled: .declined)
                            continue
                        }
                    }
                    // Handed to the app from here (this runs on the actor until `deliver` suspends): a newer
                    // link may still cancel the links after it, never report this one as not carried out.
                    self.finish(id, nil)
                    let result: LinkDeliveryError?
                    do {
                        try await deliver(resolved)
                        result = nil
                    } catch let error as LinkDeliveryError {
                        result = error
                    } catch {
                        // The error's type only: its description is the app's, and may hold what the link held.
                        result = .undeliverable("\(type(of: error))")
                    }
                    self.delivered(item.url, item.match, result)
                    if case .notReady = result { held = true }
                    guard !Task.isCancelled else { return }
                case .failure(.timedOut):
                    self.finish(id, .timedOut(link: item.link), unhandled: .timedOut)
                case .failure(.failed):
                    self.finish(id, .resolutionFailed(link: item.link), unhandled: .resolutionFailed)
                }
            }
        }
        let task = Task {
            await run()
            self.delivering[id] = nil
        }
        delivering[id] = task
        inFlight = (id, items.map { ($0.url, $0.link) }, task)
    }

    /// What `deliver` answered for a link: nil when it carried it out.
    private func delivered(_ url: String, _ match: RouteMatch<Destination>, _ result: LinkDeliveryError?) {
        switch result {
        case nil:
            record(.delivered(route: match.routeName, link: "\(match)"))
            let channel = channels.removeValue(forKey: url) ?? .onOpenURL
            if let reporter {
                // Queued before `settle()` returns, so a run that settled has reported every link carried out.
                nextReport += 1
                let number = nextReport
                reports[number] = Task {
                    await reporter.opened(url: url, route: match.routeName, channel: channel)
                    self.reportFinished(number)
                }
            }
        case .notReady(let reason):
            record(.notReady(link: "\(match)", reason: reason))
            // The UI cannot show links now: this one and every later one wait for the next `setReady(true)`.
            waiting.append((url, match, elapsed()))
            perform(inbox.setReady(false, at: elapsed()))
        case .undeliverable(let reason):
            channels[url] = nil
            record(.undeliverable(link: "\(match)", reason: reason))
            report(url, .undeliverable(reason))
        }
    }

    /// Records how the first pending link of release `id` ended (nil: handed to `deliver`).
    private func finish(_ id: Int, _ event: Event?, unhandled: Unhandled? = nil) {
        if let event { record(event) }
        guard inFlight?.id == id, let first = inFlight?.links.first else { return }
        if let unhandled { report(first.url, unhandled) }
        inFlight?.links.removeFirst()
        if inFlight?.links.isEmpty == true { inFlight = nil }
    }

    private func reportFinished(_ number: Int) {
        reports[number] = nil
    }

    private func record(_ event: Event) {
        log(event)
        events.append(event)
        if events.count > eventLimit { events.removeFirst(events.count - eventLimit) }
    }

    /// Hands an unhandled link to the app's hook, off the actor's input order (the hook may take its time).
    private func report(_ url: String, _ reason: Unhandled) {
        let onUnhandled = self.onUnhandled
        nextReport += 1
        let number = nextReport
        reports[number] = Task {
            await onUnhandled(url, reason)
            self.reportFinished(number)
        }
    }

    enum ResolutionFailure: Error { case timedOut, failed }

    /// Runs `resolve` against a timer; whichever ends first decides.
    private static func resolve(
        _ destination: Destination,
        with resolve: @escaping @Sendable (Destination) async throws -> Destination,
        timeout: Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void
    ) async -> Result<Destination, ResolutionFailure> {
        await withTaskGroup(of: Result<Destination, ResolutionFailure>?.self) { group in
            group.addTask {
                do { return .success(try await resolve(destination)) } catch { return .failure(.failed) }
            }
            group.addTask {
                try? await sleep(timeout)
                return Task.isCancelled ? nil : .failure(.timedOut)
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failure(.failed)
        }
    }
}

/// Why `deliver` could not carry a destination out (``LinkCoordinator``), thrown by it.
public enum LinkDeliveryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not now, with why (no tab bar while a sign-in root is shown): the coordinator keeps the link, and every
    /// later one, until the next `setReady(true)`, then delivers it again (once).
    case notReady(String)
    /// Never, with why: reported to `onUnhandled`.
    case undeliverable(String)

    public var description: String {
        switch self {
        case .notReady(let reason): "not ready: \(reason)"
        case .undeliverable(let reason): "undeliverable: \(reason)"
        }
    }
}

/// What the OS callbacks feed: a ``LinkCoordinator``, or ``LinkRelay``, which hands them on to one. The adapters
/// (DeepLinksUIKit's scene delegate, DeepLinksSwiftUI's modifier) forward every callback to one of these.
public protocol LinkReceiver: AnyObject, Sendable {
    func receive(_ url: String, via channel: LinkChannel, sourceApplication: String?)
    func receive(activityType: String, webpageURL: String?, via channel: LinkChannel)
    func setReady(_ ready: Bool)
    func setCondition(_ condition: String, holds: Bool)
    func setActive(_ active: Bool)
}

extension LinkCoordinator {
    /// The default `log`: each event to the unified log on Apple platforms (`Logger`, iOS 14), subsystem
    /// `DeepLinks`, category `links`; a link held, not carried out or rejected at the notice level (shown by
    /// Console and `log stream` without flags), the rest at debug. Descriptions redact sensitive values.
    public static var systemLog: @Sendable (Event) -> Void {
        { event in
            #if canImport(os)
            let logger = Logger(subsystem: "DeepLinks", category: "links")
            switch event {
            case .delivered, .dropped, .senderUnknown, .cancelled:
                logger.debug("\(event.description, privacy: .public)")
            default:
                logger.notice("\(event.description, privacy: .public)")
            }
            #endif
        }
    }
}
