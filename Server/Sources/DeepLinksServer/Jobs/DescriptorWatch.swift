import Foundation
import Logging
import Prometheus
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Watches this server's file descriptors, every second: how many are open against its limit
/// (`deeplinks_process_open_fds`, `deeplinks_process_max_fds`), and when the limit is reached, one count
/// (`deeplinks_process_descriptors_exhausted_total`) and a warning at most once a minute. At the limit `accept()`
/// fails, and NIO's server bootstrap backs off and retries without a word (its `AcceptBackoffHandler` drops the
/// error), while new visitors wait in the kernel's backlog: this is how the operator hears of it.
final class DescriptorWatch: BackgroundJob {
    var name: String { "descriptor watch" }
    let metrics: ServerMetrics
    let logger: Logger
    /// Open descriptors and the limit, read from the process (a test gives its own).
    let sample: @Sendable () -> (open: Int, limit: Int)?
    /// Descriptors short of the limit that count as reached: one connection accepted, one read, then `accept()`
    /// fails.
    static let headroom = 2
    static let warningInterval: Duration = .seconds(60)

    /// The least time between two samples: the jobs run whenever a request wakes them, which may be far more
    /// often than the gauges need.
    let every: Duration

    private struct State {
        var exhausted = false
        var lastSample: ContinuousClock.Instant?
        var lastWarning: ContinuousClock.Instant?
    }
    private let state = Mutex(State())

    init(
        metrics: ServerMetrics,
        logger: Logger,
        every: Duration = .seconds(1),
        sample: @escaping @Sendable () -> (open: Int, limit: Int)? = DescriptorWatch.processSample
    ) {
        self.metrics = metrics
        self.logger = logger
        self.every = every
        self.sample = sample
    }

    func run() async throws {
        let now = ContinuousClock.now
        let due = state.withLock { state in
            guard state.lastSample.map({ now - $0 >= every }) ?? true else { return false }
            state.lastSample = now
            return true
        }
        guard due, let (open, limit) = sample() else { return }
        metrics.openDescriptors.set(Double(open))
        metrics.descriptorLimit.set(Double(limit))
        let warn = state.withLock { state -> Bool in
            let exhausted = open >= limit - Self.headroom
            defer { state.exhausted = exhausted }
            guard exhausted, !state.exhausted else { return false }
            metrics.descriptorsExhausted.increment()
            if let last = state.lastWarning, now - last < Self.warningInterval { return false }
            state.lastWarning = now
            return true
        }
        if warn {
            logger.warning(
                "file descriptors exhausted: new connections wait in the backlog until one is freed (raise the limit, e.g. LimitNOFILE=, or look for a flood of connections)",
                metadata: ["open": "\(open)", "limit": "\(limit)"]
            )
        }
    }

    /// The entries of `/proc/self/fd` and `RLIMIT_NOFILE`'s soft limit (every descriptor open when none is left to
    /// list them with); nil where there is no `/proc`.
    @Sendable static func processSample() -> (open: Int, limit: Int)? {
        var limit = rlimit()
        #if canImport(Glibc)
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        #else
        guard getrlimit(RLIMIT_NOFILE, &limit) == 0 else { return nil }
        #endif
        guard let directory = opendir("/proc/self/fd") else {
            // No descriptor left to read the list with: that is the answer.
            return errno == EMFILE ? (Int(clamping: limit.rlim_cur), Int(clamping: limit.rlim_cur)) : nil
        }
        defer { closedir(directory) }
        var open = -1  // the directory's own descriptor, open while it is read
        while let entry = readdir(directory) {
            if entry.pointee.d_name.0 != 0x2E { open += 1 }  // not "." or ".."
        }
        return (max(0, open), Int(clamping: limit.rlim_cur))
    }
}
