import Foundation  // NSLock: the relay is called from UIKit's callbacks and from the app's own tasks

/// The app's one place for links: the front door's scene and app delegates (DeepLinksUIKit), its SwiftUI modifier
/// (DeepLinksSwiftUI) and the app's own code (a deferred link, sign-in) all talk to ``shared``, which hands every
/// call, in order, to the ``LinkCoordinator`` the app started with ``start(_:requirements:onUnhandled:reporter:deliver:)``.
///
/// It answers the question every app with a scene delegate meets: UIKit makes the scene delegate, so how does it
/// reach the coordinator? Through the relay. Calls made before the coordinator exists (a cold start's connection
/// options come before SwiftUI builds a view) are kept and handed over, in order, when it starts: none is lost.
/// Any thread may call it.
public final class LinkRelay: LinkReceiver, @unchecked Sendable {
    /// The app's relay.
    public static let shared = LinkRelay()

    private let lock = NSLock()
    private var current: (any LinkReceiver)?
    private var pending: [@Sendable (any LinkReceiver) -> Void] = []

    /// A relay of its own (tests, or an app with one coordinator per window); apps use ``shared``.
    public init() {}

    /// The coordinator calls go to, once started.
    public var receiver: (any LinkReceiver)? { lock.withLock { current } }

    /// Starts the app's coordinator on `table` and hands it every call made so far, in order. A second call
    /// changes nothing and returns nil: the app has one coordinator, made once (a view that appears again, a
    /// second window).
    /// - Parameters:
    ///   - table: the app's routes.
    ///   - requirements: the conditions a destination needs (`["signedIn"]`): ``setCondition(_:holds:)`` says
    ///     when one holds.
    ///   - onUnhandled: a link that was not carried out, with why (``LinkCoordinator/Unhandled``).
    ///   - reporter: tells the deeplinks server what the app opened (``LinkReporter``); nil tells no one.
    ///   - deliver: shows the destination; it throws ``LinkDeliveryError/notReady(_:)`` when the UI cannot yet.
    @discardableResult
    public func start<Destination: Sendable>(
        _ table: RouteTable<Destination>,
        requirements: @escaping @Sendable (Destination) -> Set<String> = { _ in [] },
        onUnhandled: @escaping @Sendable (_ url: String, LinkCoordinator<Destination>.Unhandled) async -> Void = {
            _,
            _ in
        },
        reporter: LinkReporter? = nil,
        deliver: @escaping @Sendable (Destination) async throws -> Void
    ) -> LinkCoordinator<Destination>? {
        guard receiver == nil else { return nil }
        let coordinator = LinkCoordinator(
            table: table,
            requirements: requirements,
            onUnhandled: onUnhandled,
            reporter: reporter,
            deliver: deliver
        )
        return attach(coordinator) ? coordinator : nil
    }

    /// Hands calls to `receiver` from now on, after every call made before (a coordinator the app built itself).
    /// Returns false, changing nothing, when the relay has a receiver already.
    @discardableResult
    public func attach(_ receiver: any LinkReceiver) -> Bool {
        lock.withLock {
            guard current == nil else { return false }
            current = receiver
            for call in pending { call(receiver) }
            pending = []
            return true
        }
    }

    /// Under the lock, so that calls reach the receiver in the order they were made.
    private func relay(_ call: @escaping @Sendable (any LinkReceiver) -> Void) {
        lock.withLock {
            if let current { call(current) } else { pending.append(call) }
        }
    }

    // The callbacks, as ``LinkCoordinator`` takes them: see its methods of the same names.

    public func receive(_ url: String, via channel: LinkChannel, sourceApplication: String? = nil) {
        relay { $0.receive(url, via: channel, sourceApplication: sourceApplication) }
    }

    public func receive(activityType: String, webpageURL: String?, via channel: LinkChannel) {
        relay { $0.receive(activityType: activityType, webpageURL: webpageURL, via: channel) }
    }

    public func setReady(_ ready: Bool) {
        relay { $0.setReady(ready) }
    }

    public func setCondition(_ condition: String, holds: Bool) {
        relay { $0.setCondition(condition, holds: holds) }
    }

    public func setActive(_ active: Bool) {
        relay { $0.setActive(active) }
    }
}
