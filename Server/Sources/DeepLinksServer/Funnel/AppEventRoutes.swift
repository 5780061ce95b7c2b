import DeepLinks
import DeepLinksStorage
import Foundation
import Hummingbird

/// `POST /v1/events`: what the app's reporter (DeepLinks' `LinkReporter`) sends: a link it opened (`opened`: its
/// channel, its route's name, the short link's code when there was one) or a goal it reached (`goal`: its name, the
/// code of the link that brought the person, if any). Public, as the app calls it without a key; so it takes only
/// what it can check: a code that is a link, a route the app's manifest names, a channel or goal name of a few known
/// characters; and it is throttled per client network, as the made-up codes of `/resolve` are. Each event's ID is
/// recorded with its count in one transaction (``FunnelStore/record(id:count:at:database:)``): a retry, on any
/// replica, is counted once. Never a parameter value, an address or a device identifier: the body has none, and
/// nothing else is kept.
struct AppEventRoutes: Sendable {
    let store: LinkStore
    let policy: LinkPolicy
    let proxies: TrustedProxies
    let clock: WallClock
    /// Per client network (an IPv6 /64): a batch a request, 120 a minute after a burst of 60.
    let limiter = RateLimiter(capacity: 60, perMinute: 120)

    static let maxEvents = 100
    /// The channels an app reports, as the coordinator's channels merge into them.
    static let channels: Set<String> = ["universal_link", "custom_scheme", "deferred"]

    func register(on router: Router<AppRequestContext>) {
        router.post("/v1/events", use: receive)
    }

    struct Batch: Decodable {
        let events: [Event]
    }

    struct Event: Decodable {
        let id: String
        let type: String
        var channel: String?
        var route: String?
        var code: String?
        var goal: String?
    }

    /// How each event of a batch was taken: `counted` (new), `duplicate` (its ID was counted before), or refused
    /// with the reason.
    struct Answer: Encodable {
        struct Refusal: Encodable {
            let index: Int
            let reason: String
        }
        let counted: Int
        let duplicates: Int
        let refused: [Refusal]
    }

    @Sendable func receive(_ request: Request, context: AppRequestContext) async throws -> Response {
        let network = ClientNetwork.key(proxies.clientAddress(peer: context.peer, headers: request.headers))
        if let wait = limiter.take(network, now: clock.milliseconds()) {
            throw APIError.tooManyRequests(retryAfter: wait)
        }
        let batch = try await JSONBody.read(request, context: context).decode(Batch.self)
        guard (1...Self.maxEvents).contains(batch.events.count) else {
            throw APIError.malformed("'events' holds 1 to \(Self.maxEvents) events")
        }
        let now = clock.milliseconds()
        let day = ClickCounter.day(now)
        var answer = (counted: 0, duplicates: 0, refused: [Answer.Refusal]())
        for (index, event) in batch.events.enumerated() {
            switch try await count(event, day: day) {
            case .failure(let refusal):
                answer.refused.append(.init(index: index, reason: refusal.reason))
            case .success(let count):
                if try await FunnelStore.record(id: event.id, count: count, at: now, database: store.database) {
                    answer.counted += 1
                } else {
                    answer.duplicates += 1
                }
            }
        }
        return try JSONResponse.make(
            .ok,
            Answer(counted: answer.counted, duplicates: answer.duplicates, refused: answer.refused)
        )
    }

    struct Refusal: Error {
        let reason: String
    }

    /// What `event` counts, or why it counts nothing.
    private func count(_ event: Event, day: String) async throws -> Result<FunnelStore.Count, Refusal> {
        guard Self.isName(event.id, range: 16...64) else {
            return .failure(Refusal(reason: "'id' is 16 to 64 letters, digits, '-' or '_' (a UUID)"))
        }
        var code = ""
        if let given = event.code {
            guard SmartLinkValidator.isCode(given), try await store.find(given) != nil else {
                return .failure(Refusal(reason: "'code' is no link"))
            }
            code = given
        }
        switch event.type {
        case "opened":
            guard let channel = event.channel, Self.channels.contains(channel) else {
                let channels = Self.channels.sorted().joined(separator: ", ")
                return .failure(Refusal(reason: "'channel' is one of \(channels)"))
            }
            // A route the app's manifest names: an open of a path the app does not have is no open.
            let routes = Set(policy.apps.flatMap { $0.routes?.routes.map(\.name) ?? [] })
            guard let route = event.route, routes.contains(route) else {
                return .failure(Refusal(reason: "'route' is the name of one of the app's routes"))
            }
            return .success(.init(code: code, day: day, kind: .open, name: channel))
        case "goal":
            guard let goal = event.goal, Self.isName(goal, range: 1...40) else {
                return .failure(Refusal(reason: "'goal' is 1 to 40 letters, digits, '-' or '_'"))
            }
            return .success(.init(code: code, day: day, kind: .goal, name: goal.lowercased()))
        default:
            return .failure(Refusal(reason: "'type' is opened or goal"))
        }
    }

    static func isName(_ text: String, range: ClosedRange<Int>) -> Bool {
        range.contains(text.utf8.count)
            && text.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D
                    || $0 == 0x5F
            }
    }
}
