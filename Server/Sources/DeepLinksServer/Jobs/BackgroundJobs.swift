import DeepLinksStorage
import Logging
import ServiceLifecycle
import Synchronization

/// Runs the server's background jobs (``BackgroundJob``; the list: ``all(resets:mail:webhooks:links:clicks:health:cdnWatch:pruning:)``),
/// each in its own loop, whenever woken and at least every `interval`, so a slow mail server never holds up
/// the click counts or the reset requests.
///
/// At graceful shutdown (which the application reaches after the HTTP server has stopped taking requests),
/// the loops finish what they are doing, within `shutdownGrace`, after which they are cancelled; then the
/// jobs' `atShutdown` runs (the click counts' whole flush), so nothing counted in memory is lost.
/// The work itself lives in the database, so a job interrupted by a restart is picked up by the next run.
package final class BackgroundJobs: Service, Sendable {
    /// Wakes the jobs; made before them, so the code that leaves work (built first) can hold it.
    final class Trigger: Sendable {
        /// One continuation per job loop; nil once finished.
        private let continuations = Mutex<[AsyncStream<Void>.Continuation]?>([])

        /// A stream of wake-ups for one job loop: at most one pending. Already finished after ``finish()``.
        func subscribe() -> AsyncStream<Void> {
            let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            let open = continuations.withLock { list in
                list?.append(continuation)
                return list != nil
            }
            if !open { continuation.finish() }
            return stream
        }

        /// Asks for a run of every job now (after a commit that left work).
        @Sendable func wake() {
            for continuation in continuations.withLock({ $0 ?? [] }) { continuation.yield() }
        }

        func finish() {
            let list = continuations.withLock { list in
                defer { list = nil }
                return list ?? []
            }
            for continuation in list { continuation.finish() }
        }
    }

    let jobs: [any BackgroundJob]
    let trigger: Trigger
    let interval: Duration
    let shutdownGrace: Duration
    let logger: Logger

    init(
        _ jobs: [any BackgroundJob],
        trigger: Trigger = Trigger(),
        interval: Duration = .seconds(1),
        shutdownGrace: Duration = .seconds(5),
        logger: Logger
    ) {
        self.jobs = jobs
        self.trigger = trigger
        self.interval = interval
        self.shutdownGrace = shutdownGrace
        self.logger = logger
    }

    private func run(_ job: any BackgroundJob, atShutdown: Bool = false) async {
        do {
            try await atShutdown ? job.atShutdown() : job.run()
        } catch {
            logger.warning(
                "background job failed",
                metadata: ["job": "\(job.name)", "reason": "\(Database.reason(error))"]
            )
        }
    }

    package func run() async throws {
        let streams = jobs.map { _ in trigger.subscribe() }
        let loops = Task {
            await withTaskGroup(of: Void.self) { group in
                for (job, stream) in zip(jobs, streams) {
                    group.addTask {
                        await self.run(job)
                        for await _ in stream {
                            if Task.isCancelled { break }
                            await self.run(job)
                        }
                    }
                }
            }
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                trigger.wake()
            }
        }
        defer { ticker.cancel() }
        let grace = shutdownGrace
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await loops.value
            } onGracefulShutdown: {
                self.trigger.finish()
                Task {
                    try? await Task.sleep(for: grace)
                    loops.cancel()
                }
            }
        } onCancel: {
            loops.cancel()
        }
        // In a task of its own: when this one was cancelled, the database calls of the last round still run.
        await Task {
            for job in jobs { await run(job, atShutdown: true) }
        }.value
    }
}
