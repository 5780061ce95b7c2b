import Foundation

/// Wall-clock time in milliseconds since 1970, injectable so tests can move it (expiry, throttles, backoff).
public struct WallClock: Sendable {
    public let milliseconds: @Sendable () -> Int64
    /// Whether this is the system's clock: then the outboxes' leases on PostgreSQL are kept by the database's clock,
    /// which every replica shares (`DatabaseConnection.outboxClock(_:fromDatabase:)`); a clock a
    /// test moves keeps them on its own time.
    public let isSystem: Bool

    public init(milliseconds: @escaping @Sendable () -> Int64) {
        self.init(milliseconds: milliseconds, isSystem: false)
    }

    private init(milliseconds: @escaping @Sendable () -> Int64, isSystem: Bool) {
        self.milliseconds = milliseconds
        self.isSystem = isSystem
    }

    public static let system = WallClock(milliseconds: { Int64(Date().timeIntervalSince1970 * 1000) }, isSystem: true)
}
