import Foundation

/// Walks an input pool across calls: the harness calls a benchmark's closure once per sample, so an index
/// local to the closure would measure the first input only.
public final class Cursor: @unchecked Sendable {
    private var index = -1
    private static let lock = NSLock()
    nonisolated(unsafe) private static var cursors: [String: Cursor] = [:]

    /// The cursor of one benchmark, by its name.
    public static func named(_ name: String) -> Cursor {
        lock.withLock {
            if let cursor = cursors[name] { return cursor }
            let cursor = Cursor()
            cursors[name] = cursor
            return cursor
        }
    }

    /// The next index in `0..<count`, wrapping around.
    public func next(_ count: Int) -> Int {
        index = index + 1 >= count ? 0 : index + 1
        return index
    }
}
