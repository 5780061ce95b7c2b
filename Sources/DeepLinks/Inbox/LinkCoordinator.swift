/// Runs links from every OS callback to the app: the ``LinkInbox`` (dedup, readiness, conditions), the route
/// table, then an optional async resolution (fetch before navigating) with a timeout, where a newer link
/// cancels a resolution still in flight, and finally `deliver`.
///
/// Callbacks arrive on the main thread, one after another, and their order matters (a launch option before
/// its `open`, a link before `setReady`). So every input method is synchronous and callable from any context:
/// it stamps the time and queues the input, and the actor applies inputs strictly in the order they were made.
public actor LinkCoordinator<Destination: Sendable> {
    /// What happened to each link, in order: for logs (sensitive values are already redacted) and tests.
    public enum Event: Sendable, CustomStringConvertible {
        case delivered(route: String, url: String)
        case rejected(url: String, LinkRejection)
        case dropped(url: String, LinkInbox.DropReason)
        case resolutionFailed(url: String)
        case timedOut(url: String)
        case cancelled(url: String)

        public var description: String {
            switch self {
            case .delivered(let route, let url): "delivered \(url) to \(route)"
            case .rejected(let url, let rejection): "rejected \(url): \(rejection)"
            case .dropped(let url, let reason): "dropped \(url): \(reason.rawValue)"
            case .resolutionFailed(let url): "resolution failed for \(url)"
            case .timedOut(let url): "resolution timed out for \(url)"
            case .cancelled(let url): "resolution cancelled for \(url) by a newer link"
            }
        }
    }

    private let table: RouteTable<Destination>
    private var inbox: LinkInbox
    private let requirements: @Sendable (Destination) -> Set<String>
    private let resolve: @Sendable (Destination) async throws -> Destination
    private let deliver: @Sendable (Destination) async -> Void
    private let timeout: Duration
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private let inputs: AsyncStream<(Input, Duration)>.Continuation
    /// The release being resolved: its task and the links it has not finished yet.
    private var inFlight: (id: Int, urls: [String], task: Task<Void, Never>)?
    private var nextID = 0
    public private(set) var events: [Event] = []

    private enum Input: Sendable {
        case link(String, LinkChannel)
        case ready(Bool)
        case condition(String, Bool)
        case active(Bool)
        /// Resumed once every earlier input is applied.
        case flush(CheckedContinuation<Void, Never>)
    }

    /// - Parameters:
    ///   - requirements: conditions a destination needs before it is handled (`["signedIn"]`).
    ///   - resolve: work before navigating (a fetch); it may refine the destination. Default: none.
    ///   - deliver: carries the destination out (compute a ``NavigationPlan``, hand it to the adapter).
    public init(
        table: RouteTable<Destination>,
        configuration: LinkInbox.Configuration = .init(),
        timeout: Duration = .seconds(10),
        requirements: @escaping @Sendable (Destination) -> Set<String> = { _ in [] },
        resolve: @escaping @Sendable (Destination) async throws -> Destination = { $0 },
        deliver: @escaping @Sendable (Destination) async -> Void
    ) {
        self.table = table
        self.inbox = LinkInbox(configuration: configuration)
        self.timeout = timeout
        self.requirements = requirements
        self.resolve = resolve
        self.deliver = deliver
        self.start = clock.now
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

    private nonisolated func send(_ input: Input) {
        inputs.yield((input, clock.now - start))
    }

    /// A link from any OS callback, untouched.
    public nonisolated func receive(_ url: String, via channel: LinkChannel) {
        send(.link(url, channel))
    }

    /// An activity from `continue userActivity`, the launch options or the connection options: a link only
    /// when it is a browsing-web activity (``LinkInbox/link(activityType:webpageURL:)``); any other is ignored.
    public nonisolated func receive(activityType: String, webpageURL: String?, via channel: LinkChannel) {
        guard let url = LinkInbox.link(activityType: activityType, webpageURL: webpageURL) else { return }
        send(.link(url, channel))
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

    /// Waits until every input made before the call is applied and the resolution in flight, if any, has
    /// finished (for tests and orderly shutdown).
    public func settle() async {
        await withCheckedContinuation { inputs.yield((.flush($0), .zero)) }
        while let task = inFlight?.task {
            await task.value
            if inFlight?.task == task { inFlight = nil }
        }
    }

    private func apply(_ input: Input, at time: Duration) {
        switch input {
        case .link(let url, let channel):
            switch table.match(url) {
            case .failure(let rejection):
                events.append(.rejected(url: table.redact(url), rejection))
            case .success(let match):
                perform(inbox.receive(url, via: channel, at: time, requires: requirements(match.destination)))
            }
        case .ready(let ready): perform(inbox.setReady(ready, at: time))
        case .condition(let condition, let holds): perform(inbox.setCondition(condition, holds: holds, at: time))
        case .active(let active): perform(inbox.setActive(active, at: time))
        case .flush(let continuation): continuation.resume()
        }
    }

    private func perform(_ actions: [LinkInbox.Action]) {
        var released: [RouteMatch<Destination>] = []
        for action in actions {
            switch action {
            case .drop(let delivery, let reason):
                events.append(.dropped(url: table.redact(delivery.url), reason))
            case .handle(let delivery):
                if case .success(let match) = table.match(delivery.url) { released.append(match) }
            }
        }
        if !released.isEmpty { start(released) }
    }

    /// Starts resolving and delivering `matches`, released together, one after another in their order; it
    /// cancels what is still in flight from an earlier release: a newer link wins.
    private func start(_ matches: [RouteMatch<Destination>]) {
        if let previous = inFlight {
            previous.task.cancel()
            events += previous.urls.map { .cancelled(url: $0) }
        }
        nextID += 1
        let id = nextID
        let items = matches.map { (destination: $0.destination, route: $0.routeName, url: "\($0)") }
        let (resolve, deliver, timeout) = (self.resolve, self.deliver, self.timeout)
        let task = Task {
            for item in items {
                let outcome = await Self.resolve(item.destination, with: resolve, timeout: timeout)
                guard !Task.isCancelled else { return }
                switch outcome {
                case .success(let resolved):
                    await deliver(resolved)
                    guard !Task.isCancelled else { return }
                    self.finish(id, .delivered(route: item.route, url: item.url))
                case .failure(.timedOut):
                    self.finish(id, .timedOut(url: item.url))
                case .failure(.failed):
                    self.finish(id, .resolutionFailed(url: item.url))
                }
            }
        }
        inFlight = (id, items.map(\.url), task)
    }

    /// Records how the first pending link of release `id` ended.
    private func finish(_ id: Int, _ event: Event) {
        events.append(event)
        guard inFlight?.id == id else { return }
        inFlight?.urls.removeFirst()
        if inFlight?.urls.isEmpty == true { inFlight = nil }
    }

    enum ResolutionFailure: Error { case timedOut, failed }

    /// Runs `resolve` against a timer; whichever ends first decides.
    private static func resolve(
        _ destination: Destination,
        with resolve: @escaping @Sendable (Destination) async throws -> Destination,
        timeout: Duration
    ) async -> Result<Destination, ResolutionFailure> {
        await withTaskGroup(of: Result<Destination, ResolutionFailure>?.self) { group in
            group.addTask {
                do { return .success(try await resolve(destination)) } catch { return .failure(.failed) }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return Task.isCancelled ? nil : .failure(.timedOut)
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .failure(.failed)
        }
    }
}
