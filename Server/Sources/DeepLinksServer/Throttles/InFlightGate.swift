import HTTPTypes
import Synchronization

/// Bounds the costly work running at once: password hashes (each costs tens of milliseconds and megabytes of memory
/// by design) and imports (a file of megabytes read into links). Past `limit`, a request answers 503 with
/// `Retry-After` at once instead of queueing.
final class InFlightGate: Sendable {
    let limit: Int
    private let inFlight = Mutex(0)

    init(limit: Int) {
        self.limit = limit
    }

    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        let admitted = inFlight.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard admitted else {
            throw APIError(status: .serviceUnavailable, code: .busy, headers: [.retryAfter: "1"])
        }
        defer { inFlight.withLock { $0 -= 1 } }
        return try await body()
    }
}
