@testable import DeepLinksServer
import Foundation
import Synchronization
import Testing

/// ``DescriptorWatch``: the process's real descriptors counted, and the limit's crossings counted and told once a
/// minute at most. (A server run at a real limit with a real flood: `Tests/Cluster/run`.)
@Suite struct DescriptorWatchTests {
    @Test func theProcessSampleCountsTheDescriptorsThisProcessOpens() throws {
        let before = try #require(DescriptorWatch.processSample())
        #expect(before.open > 2 && before.limit > before.open)
        let files = (0..<10).map { _ in open("/dev/null", O_RDONLY) }
        defer { for file in files { close(file) } }
        #expect(files.allSatisfy { $0 >= 0 })
        let after = try #require(DescriptorWatch.processSample())
        // Other tests open and close descriptors meanwhile: at least the ten, not a hundred more.
        #expect(after.open - before.open >= 10 - 4 && after.open - before.open < 100, "\(before) → \(after)")
    }

    @Test func reachingTheLimitIsCountedEachTimeAndToldAtMostOnceAMinute() async throws {
        let samples = Mutex<[(open: Int, limit: Int)]>([(10, 512), (511, 512), (512, 512), (100, 512), (512, 512)])
        let logs = LogCapture()
        let metrics = ServerMetrics()
        let watch = DescriptorWatch(metrics: metrics, logger: logs.logger, every: .zero) {
            samples.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        }
        for _ in 0..<5 { try await watch.run() }
        let exported = metrics.exposition()
        #expect(exported.contains("deeplinks_process_descriptors_exhausted_total 2"), "twice reached, once left")
        #expect(exported.contains("deeplinks_process_open_fds 512"))
        #expect(exported.contains("deeplinks_process_max_fds 512"))
        let warnings = logs.lines.withLock { $0 }.filter { $0.contains("file descriptors exhausted") }
        #expect(warnings.count == 1, "the second crossing within a minute is counted, not logged: \(warnings)")
        #expect(warnings.first?.contains("\"open\": 511") == true, "\(warnings)")
    }
}
