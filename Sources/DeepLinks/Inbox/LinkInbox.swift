/// The one entry point for every channel iOS delivers links through: a pure state machine, as a value.
/// Each call returns the ``Action``s to carry out (handle a link, or drop one with a reason); the caller
/// performs them. Time is passed in, so tests drive it without sleeping.
///
/// It merges one delivery seen through two channels (launch options and `open`, SwiftUI and a scene
/// delegate), keeps a genuine repeat (the same link tapped twice arrives twice on one channel), keeps order,
/// holds links until the app is ready and until the conditions their route needs hold (signed in, say),
/// applies a policy to several held links, and expires held links.
public struct LinkInbox: Sendable {
    public enum HeldPolicy: Sendable, Hashable {
        /// Every held link is handled, in arrival order.
        case queue
        /// Only the newest held link is handled; older ones are dropped as superseded.
        case latestWins
    }

    public struct Configuration: Sendable, Hashable {
        public var heldPolicy: HeldPolicy
        /// A held link older than this is dropped as expired (default 5 minutes).
        public var expiry: Duration
        /// Before the app is active, two twin channels reporting the same link within this window are one
        /// delivery (default 2 seconds: SwiftUI publishes a cold-start link a run-loop turn or more after the
        /// scene connects). Launch-option sightings always use it.
        public var duplicateWindow: Duration
        /// While the app is active, twins of one delivery come in the same run-loop turn: a sighting later than
        /// this is a new tap (default 50 ms).
        public var activeDuplicateWindow: Duration

        public init(
            heldPolicy: HeldPolicy = .queue,
            expiry: Duration = .seconds(300),
            duplicateWindow: Duration = .seconds(2),
            activeDuplicateWindow: Duration = .milliseconds(50)
        ) {
            self.heldPolicy = heldPolicy
            self.expiry = expiry
            self.duplicateWindow = duplicateWindow
            self.activeDuplicateWindow = activeDuplicateWindow
        }
    }

    /// One link as received.
    public struct Delivery: Sendable, Hashable {
        /// Arrival number, from 0: the order links were received in.
        public let sequence: Int
        public let url: String
        public let channel: LinkChannel
        /// Time of arrival, in the caller's clock (seconds since any origin).
        public let receivedAt: Duration
        /// Conditions the link's route needs before it may be handled (`"signedIn"`, say).
        public let requires: Set<String>
    }

    public enum DropReason: String, Sendable, Hashable {
        /// The same delivery, already received through a twin channel.
        case duplicate
        /// Held longer than the expiry.
        case expired
        /// A newer held link replaced it (``HeldPolicy/latestWins``).
        case superseded
    }

    public enum Action: Sendable, Hashable {
        case handle(Delivery)
        case drop(Delivery, DropReason)
    }

    public let configuration: Configuration
    public private(set) var isReady = false
    /// Whether the app is active (foreground), as told by ``setActive(_:at:)``.
    public private(set) var isActive = false
    public private(set) var conditions: Set<String> = []
    /// Links received and not yet handled or dropped, in arrival order.
    public private(set) var held: [Delivery] = []
    /// Recent deliveries, with every channel each has been seen on: one delivery may show up on several
    /// twin channels (a scene delegate, `onOpenURL` and `onContinueUserActivity`), once on each.
    private var recent: [Sighting] = []

    private struct Sighting: Sendable {
        var delivery: Delivery
        var channels: Set<LinkChannel>
        /// When the app became active after this sighting, if it has.
        var activatedAt: Duration?
        /// The latest sighting of this delivery.
        var lastSeenAt: Duration

        var fromSceneConnection: Bool {
            delivery.channel == .sceneConnectionURLContext || delivery.channel == .sceneConnectionUserActivity
        }

        /// Whether a sighting on `channel` at `time` can be this delivery's twin.
        func admits(_ channel: LinkChannel, at time: Duration, active: Bool, _ configuration: Configuration) -> Bool {
            // A twin of the channel the delivery first came through (a scene connection and a later
            // `openURLContexts` are never one delivery, even when SwiftUI's publish sits between them).
            guard !channels.contains(channel), channel.twins.contains(delivery.channel) else { return false }
            let age = time - delivery.receivedAt
            // Once a twin has come, further twins (`onContinueUserActivity` beside `onOpenURL`) come in its turn.
            if channels.count > 1, time - lastSeenAt > configuration.activeDuplicateWindow { return false }
            switch delivery.channel {
            case .sceneConnectionURLContext, .sceneConnectionUserActivity:
                // The twin is SwiftUI's publish, a render or more later, maybe after activation.
                return age <= configuration.duplicateWindow
            case .launchOptionsURL, .launchOptionsUserActivity:
                // The twin is `open`/`continue`, in the launch's own turn around activation (A1, A2); when the
                // launch method returned false it never comes, and a later tap is a new link (F4).
                return age <= configuration.duplicateWindow
                    && activatedAt.map { time - $0 <= configuration.activeDuplicateWindow } ?? true
            default:
                return age <= (active ? configuration.activeDuplicateWindow : configuration.duplicateWindow)
            }
        }
    }
    private var nextSequence = 0

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The activity type of a universal link (`NSUserActivityTypeBrowsingWeb`).
    public static let browsingWebActivityType = "NSUserActivityTypeBrowsingWeb"

    /// The link an activity carries: its `webpageURL` when it is a browsing-web activity (a universal link),
    /// nil for any other activity (Handoff, Spotlight, state restoration), which is not a link (P8).
    public static func link(activityType: String, webpageURL: String?) -> String? {
        activityType == browsingWebActivityType ? webpageURL : nil
    }

    /// A link from `channel`, received at `time`, whose route needs `requires`.
    public mutating func receive(_ url: String, via channel: LinkChannel, at time: Duration, requires: Set<String> = [])
        -> [Action]
    {
        let delivery = Delivery(
            sequence: nextSequence,
            url: url,
            channel: channel,
            receivedAt: time,
            requires: requires
        )
        nextSequence += 1
        recent.removeAll { time - $0.delivery.receivedAt > configuration.duplicateWindow }
        // A sighting on a channel the delivery has not been seen on yet, twin of one it has: the same delivery.
        // A second sighting on the same channel is a genuine repeat (the user tapped again).
        if let index = recent.firstIndex(where: {
            $0.delivery.url == url && $0.admits(channel, at: time, active: isActive, configuration)
        }) {
            recent[index].channels.insert(channel)
            recent[index].lastSeenAt = time
            if channel == .onOpenURL || channel == .onContinueUserActivity, recent[index].fromSceneConnection {
                // SwiftUI publishes one link per scene connection ([R], P7): the connection's other links
                // will have no twin, so a later sighting of one of them is a new tap.
                recent.removeAll { $0.fromSceneConnection && $0.delivery.url != url && $0.delivery.receivedAt <= time }
            }
            return [.drop(delivery, .duplicate)]
        }
        recent.append(Sighting(delivery: delivery, channels: [channel], lastSeenAt: time))
        held.append(delivery)
        return release(at: time)
    }

    /// The app says its UI is mounted (or, with false, that it is not any more: links are held again).
    public mutating func setReady(_ ready: Bool, at time: Duration) -> [Action] {
        isReady = ready
        return release(at: time)
    }

    /// A condition routes may need (`"signedIn"`) starts or stops holding.
    public mutating func setCondition(_ condition: String, holds: Bool, at time: Duration) -> [Action] {
        if holds { conditions.insert(condition) } else { conditions.remove(condition) }
        return release(at: time)
    }

    /// The app became active (`didBecomeActive`, `sceneDidBecomeActive`, `scenePhase == .active`) or stopped
    /// being active (`didEnterBackground`, `sceneDidEnterBackground`, `sceneDidDisconnect`). Either is a
    /// user-visible boundary: a link seen after it is a new delivery, not the twin of one seen before
    /// (<doc:LinkDelivery>, oracle 6). Becoming active keeps launch-option and scene-connection sightings: their
    /// twin (`open` after launch, SwiftUI's publish after the scene connected) may come after it.
    public mutating func setActive(_ active: Bool, at time: Duration) -> [Action] {
        isActive = active
        if active {
            recent.removeAll { !$0.delivery.channel.isConnectionTime }
            for index in recent.indices where recent[index].activatedAt == nil { recent[index].activatedAt = time }
        } else {
            recent.removeAll()
        }
        return release(at: time)
    }

    /// Lets time pass: expires held links.
    public mutating func tick(at time: Duration) -> [Action] {
        release(at: time)
    }

    /// Expire, apply the policy, then hand over every held link whose conditions hold, in order. A link
    /// waiting for a condition does not block later links that need none (they are independent taps).
    private mutating func release(at time: Duration) -> [Action] {
        var actions: [Action] = []
        held.removeAll { delivery in
            guard time - delivery.receivedAt > configuration.expiry else { return false }
            actions.append(.drop(delivery, .expired))
            return true
        }
        if configuration.heldPolicy == .latestWins, held.count > 1 {
            for delivery in held.dropLast() { actions.append(.drop(delivery, .superseded)) }
            held = [held.last!]
        }
        guard isReady else { return actions }
        held.removeAll { delivery in
            guard delivery.requires.isSubset(of: conditions) else { return false }
            actions.append(.handle(delivery))
            return true
        }
        return actions
    }
}
