import Foundation

/// A clock that moves only when told to. A `LinkCoordinator` given one stamps its inputs and times its
/// resolutions on it, so a test (or `DeliverySimulator.run(coordinatorWith:urls:knobs:route:)`) decides
/// exactly how far apart two callbacks are, and every run is the same.
public final class TestClock: Clock, @unchecked Sendable {
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// Time since the clock was made.
        public var offset: Swift.Duration

        public init(offset: Swift.Duration = .zero) { self.offset = offset }

        public func advanced(by duration: Swift.Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Swift.Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        public var description: String { "\(offset)" }
    }

    private struct Sleeper {
        let id: Int
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// Guards everything below: sleepers register from any task, `advance` runs on the test's.
    private let lock = NSLock()
    private var current = Instant()
    private var sleepers: [Sleeper] = []
    /// Sleeps cancelled before they were registered.
    private var cancelled: Set<Int> = []
    private var nextID = 0

    public init() {}

    public var now: Instant { lock.withLock { current } }
    public var minimumResolution: Swift.Duration { .zero }

    /// Suspends until ``advance(by:)`` moves the clock to `deadline` or past it; throws `CancellationError` when
    /// the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Swift.Duration? = nil) async throws {
        let id = lock.withLock {
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Now { case wake, cancel, wait }
                let now: Now = lock.withLock {
                    if cancelled.remove(id) != nil { return .cancel }
                    if deadline <= current { return .wake }
                    sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return .wait
                }
                switch now {
                case .wake: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                case .wait: break
                }
            }
        } onCancel: {
            let sleeper: Sleeper? = lock.withLock {
                guard let index = sleepers.firstIndex(where: { $0.id == id }) else {
                    cancelled.insert(id)
                    return nil
                }
                return sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration`, waking every sleep whose deadline has come, earliest first.
    public func advance(by duration: Swift.Duration) {
        let woken: [Sleeper] = lock.withLock {
            current = current.advanced(by: max(duration, .zero))
            let due = sleepers.filter { $0.deadline <= current }.sorted { $0.deadline < $1.deadline }
            sleepers.removeAll { $0.deadline <= current }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Moves the clock to `instant`, if it is later than now.
    public func advance(to instant: Instant) {
        advance(by: now.duration(to: instant))
    }
}
