/// Tells the deeplinks server what the app opened, and nothing else: one `opened` event per link the coordinator
/// delivers (its twins merged, as delivery merges them), with the channel it came by (universal link, custom
/// scheme, deferred), the route's name and the short link's code when the link was one; and the goals the app
/// names (`signup`, `purchase`), with the code of the link that brought the person, if the app knows it. Never a
/// parameter value, never a device or person identifier; nothing at all on a launch without a link. Opt-in: give
/// one to ``LinkCoordinator``'s `reporter`.
///
/// Events are queued and sent in batches to `POST {server}/v1/events`; a batch that fails (no network, a 5xx or
/// 429) is retried with a doubling wait (1 s to 5 min). Each event carries a random ID made once, so a retry is
/// never counted twice, on any server replica. A batch the server refuses (another 4xx) is dropped: sending it
/// again would not change the answer.
public actor LinkReporter {
    /// One event, as it is sent.
    public struct Event: Sendable, Hashable {
        /// 32 hex digits, random, made when the event is made.
        public let id: String
        /// `opened` or `goal`.
        public let type: String
        /// For `opened`: `universal_link`, `custom_scheme` or `deferred`.
        public let channel: String?
        /// For `opened`: the name of the route the link took.
        public let route: String?
        /// The short link's code, when there is one.
        public let code: String?
        /// For `goal`: its name.
        public let goal: String?
    }

    /// Sends one batch: `body` (JSON) by POST to `url`; answers the HTTP status, or throws when there was none.
    public typealias Transport = @Sendable (_ body: [UInt8], _ url: String) async throws -> Int

    /// The most events kept while the server cannot be reached: past it, the oldest go.
    public static let maxQueued = 500
    public static let maxBatch = 100
    static let firstWait: Duration = .seconds(1)
    static let longestWait: Duration = .seconds(300)

    private let endpoint: String
    private let linkDomains: Set<String>
    private let transport: Transport
    private let sleep: @Sendable (Duration) async throws -> Void
    private var queue: [Event] = []
    private var sending: Task<Void, Never>?
    /// A batch failed and the next try waits.
    private var retrying = false
    private var wait: Duration = LinkReporter.firstWait
    /// The latest events the server took (counted or known, at most ``maxQueued``), for tests and a debug screen.
    public private(set) var sent: [Event] = []

    /// - Parameters:
    ///   - server: the deeplinks server's origin, `https://links.example.com`.
    ///   - linkDomains: the short-link domains: a link on one of them, one path segment long, is a short link and
    ///     its code is sent.
    ///   - transport: how a batch is sent (the Apple adapters' `URLSession` one by default there).
    ///   - clock: what the retry waits on (a test clock in tests).
    public init(
        server: String,
        linkDomains: [String],
        clock: any Clock<Duration> = ContinuousClock(),
        transport: @escaping Transport
    ) {
        endpoint = server.hasSuffix("/") ? server + "v1/events" : server + "/v1/events"
        self.linkDomains = Set(linkDomains.map { $0.lowercased() })
        self.transport = transport
        sleep = Self.sleeper(clock)
    }

    private static func sleeper<C: Clock<Duration>>(_ clock: C) -> @Sendable (Duration) async throws -> Void {
        { duration in try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil) }
    }

    /// A link the coordinator delivered, by the channel it first came by: queued at once.
    public func opened(url: String, route: String, channel: LinkChannel) {
        let kind: String
        switch channel {
        case .deferred: kind = "deferred"
        case .launchOptionsURL, .applicationOpenURL, .sceneConnectionURLContext, .sceneOpenURLContexts, .onOpenURL:
            kind = url.lowercased().hasPrefix("https://") ? "universal_link" : "custom_scheme"
        default: kind = "universal_link"
        }
        enqueue(Event(id: Self.newID(), type: "opened", channel: kind, route: route, code: code(of: url), goal: nil))
    }

    /// A goal the app reached (`signup`: 1 to 40 letters, digits, `-` or `_`), and the code of the link that led
    /// there, when the app keeps it: queued at once.
    public func goal(_ name: String, code: String? = nil) {
        enqueue(Event(id: Self.newID(), type: "goal", channel: nil, route: nil, code: code, goal: name))
    }

    /// The events not sent yet.
    public var pending: [Event] { queue }

    /// Returns once every event queued so far was sent, or its batch failed and waits for its retry.
    public func settle() async {
        while sending != nil, !retrying { await Task.yield() }
    }

    private func enqueue(_ event: Event) {
        queue.append(event)
        if queue.count > Self.maxQueued { queue.removeFirst(queue.count - Self.maxQueued) }
        guard sending == nil else { return }
        sending = Task { await self.drain() }
    }

    /// Sends batches until the queue is empty; after a failure, waits (doubling) and tries again.
    private func drain() async {
        sending: while !queue.isEmpty {
            let batch = Array(queue.prefix(Self.maxBatch))
            let status = try? await transport(Self.json(batch), endpoint)
            switch status {
            case let status? where (200..<300).contains(status) || ((400..<500).contains(status) && status != 429):
                // Taken, or refused for good: either way not sent again.
                let ids = Set(batch.map(\.id))
                if (200..<300).contains(status) { sent = Array((sent + batch).suffix(Self.maxQueued)) }
                queue.removeAll { ids.contains($0.id) }
                wait = Self.firstWait
            default:
                let delay = wait
                wait = min(wait * 2, Self.longestWait)
                retrying = true
                defer { retrying = false }
                do { try await sleep(delay) } catch { break sending }
            }
        }
        sending = nil
    }

    /// The short link's code of `url`: its one path segment, on a link domain; nil for anything else.
    private func code(of url: String) -> String? {
        guard let parsed = try? LinkURL(parsing: url), parsed.scheme == "https", let host = parsed.host,
            linkDomains.contains(host), parsed.pathSegments.count == 1
        else { return nil }
        return parsed.pathSegments[0]
    }

    /// 128 random bits as 32 hex digits.
    static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return String((0..<32).map { _ in digits[Int(generator.next() % 16)] })
    }

    /// `{"events":[...]}`, each event with the fields it has.
    static func json(_ events: [Event]) -> [UInt8] {
        func string(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        let items = events.map { event in
            let fields: [(String, String?)] = [
                ("id", event.id), ("type", event.type), ("channel", event.channel), ("route", event.route),
                ("code", event.code), ("goal", event.goal),
            ]
            return "{"
                + fields.compactMap { name, value in value.map { "\(string(name)):\(string($0))" } }
                .joined(separator: ",") + "}"
        }
        return Array(("{\"events\":[" + items.joined(separator: ",") + "]}").utf8)
    }
}
