import Logging
import ServiceLifecycle

/// Runs the server's background jobs (turning reset requests into mail, sending mail) one after the
/// other, whenever woken and at least every `interval`; stops at graceful shutdown.
///
/// The work lives in the database, so a job interrupted by a restart is picked up by the next run.
public final class BackgroundJobs: Service, Sendable {
    public typealias Job = @Sendable () async throws -> Void
    let jobs: [(name: String, run: Job)]
    let interval: Duration
    let logger: Logger
    private let wakeups: AsyncStream<Void>.Continuation
    private let stream: AsyncStream<Void>

    init(_ jobs: [(name: String, run: Job)], interval: Duration = .seconds(1), logger: Logger) {
        self.jobs = jobs
        self.interval = interval
        self.logger = logger
        (stream, wakeups) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks for a run now (after a commit that left work).
    func wake() { wakeups.yield() }

    /// Runs every job once, in order.
    public func runOnce() async {
        for job in jobs {
            do {
                try await job.run()
            } catch {
                logger.warning("background job failed", metadata: ["job": "\(job.name)", "reason": "\(Database.reason(error))"])
            }
        }
    }

    public func run() async throws {
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                wakeups.yield()
            }
        }
        defer { ticker.cancel() }
        await withGracefulShutdownHandler {
            for await _ in stream {
                await runOnce()
            }
        } onGracefulShutdown: {
            self.wakeups.finish()
        }
    }
}
