import Foundation

/// Wall-clock time in milliseconds since 1970, injectable so tests can move it (expiry, throttles, backoff).
public struct WallClock: Sendable {
    public let milliseconds: @Sendable () -> Int64

    public init(milliseconds: @escaping @Sendable () -> Int64) {
        self.milliseconds = milliseconds
    }

    public static let system = WallClock { Int64(Date().timeIntervalSince1970 * 1000) }
}
