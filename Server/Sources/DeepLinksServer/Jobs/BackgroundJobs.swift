import Logging
import ServiceLifecycle

/// Runs the server's background jobs (turning reset requests into mail, sending mail) one after the
/// other, whenever woken and at least every `interval`; stops at graceful shutdown.
///
/// The work lives in the database, so a job interrupted by a restart is picked up by the next run.
public final class BackgroundJobs: Service, Sendable {
    public typealias Job = @Sendable () async throws -> Void

    /// Wakes the jobs; made before them, so the code that leaves work (built first) can hold it.
    final class Trigger: Sendable {
        let stream: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation

        init() {
            (stream, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        }

        /// Asks for a run now (after a commit that left work).
        @Sendable func wake() { continuation.yield() }
        func finish() { continuation.finish() }
    }

    let jobs: [(name: String, run: Job)]
    let trigger: Trigger
    let interval: Duration
    let logger: Logger

    init(_ jobs: [(name: String, run: Job)], trigger: Trigger = Trigger(), interval: Duration = .seconds(1), logger: Logger) {
        self.jobs = jobs
        self.trigger = trigger
        self.interval = interval
        self.logger = logger
    }

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
                trigger.wake()
            }
        }
        defer { ticker.cancel() }
        await withGracefulShutdownHandler {
            for await _ in trigger.stream {
                await runOnce()
            }
        } onGracefulShutdown: {
            self.trigger.finish()
        }
    }
}
