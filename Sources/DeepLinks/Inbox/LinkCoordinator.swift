/// Runs links from every OS callback to the app: the ``LinkInbox`` (dedup, readiness, conditions), the route
/// table, then an optional async resolution (fetch before navigating) with a timeout, where a newer link
/// cancels a resolution still in flight, and finally `deliver`. An actor: callbacks may arrive from any context.
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
    private var inFlight: (id: Int, url: String, task: Task<Void, Never>)?
    private var nextID = 0
    public private(set) var events: [Event] = []

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
    }

    private var now: Duration { clock.now - start }

    /// A link from any OS callback, untouched.
    public func receive(_ url: String, via channel: LinkChannel) {
        switch table.match(url) {
        case .failure(let rejection):
            events.append(.rejected(url: table.redact(url), rejection))
        case .success(let match):
            perform(inbox.receive(url, via: channel, at: now, requires: requirements(match.destination)))
        }
    }

    public func setReady(_ ready: Bool) {
        perform(inbox.setReady(ready, at: now))
    }

    public func setCondition(_ condition: String, holds: Bool) {
        perform(inbox.setCondition(condition, holds: holds, at: now))
    }

    /// The app became active, or stopped being active: see ``LinkInbox/setActive(_:at:)``.
    public func setActive(_ active: Bool) {
        perform(inbox.setActive(active, at: now))
    }

    /// Waits until the resolution in flight, if any, has finished (for tests and orderly shutdown).
    public func settle() async {
        while let task = inFlight?.task {
            await task.value
            if inFlight?.task == task { inFlight = nil }
        }
    }

    private func perform(_ actions: [LinkInbox.Action]) {
        for action in actions {
            switch action {
            case .drop(let delivery, let reason):
                events.append(.dropped(url: table.redact(delivery.url), reason))
            case .handle(let delivery):
                guard case .success(let match) = table.match(delivery.url) else { continue }
                start(match)
            }
        }
    }

    /// Starts resolving `match`, cancelling the resolution in flight: the newest link wins.
    private func start(_ match: RouteMatch<Destination>) {
        let url = "\(match)"
        if let previous = inFlight {
            previous.task.cancel()
            events.append(.cancelled(url: previous.url))
        }
        nextID += 1
        let id = nextID
        let destination = match.destination
        let (resolve, deliver, timeout, route) = (self.resolve, self.deliver, self.timeout, match.routeName)
        let task = Task {
            let outcome = await Self.resolve(destination, with: resolve, timeout: timeout)
            guard !Task.isCancelled else { return }
            switch outcome {
            case .success(let resolved):
                await deliver(resolved)
                await self.finish(id, .delivered(route: route, url: url))
            case .failure(.timedOut):
                await self.finish(id, .timedOut(url: url))
            case .failure(.failed):
                await self.finish(id, .resolutionFailed(url: url))
            }
        }
        inFlight = (id, url, task)
    }

    private func finish(_ id: Int, _ event: Event) {
        events.append(event)
        if inFlight?.id == id { inFlight = nil }
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
