import Foundation
import Testing

/// `deeplinks outbox`: on a database of its own, with the real binary.
@Suite struct OutboxCommandTests {
    @Test func listAndRequeueAnswerOnAnEmptyQueueAndRefuseBadIDs() throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = ["--database-url", "sqlite:\(folder.appendingPathComponent("db.sqlite").path)"]
        let list = try CommandRunner.run(["outbox", "list"] + database)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout == "the outbox is empty\n")
        let requeue = try CommandRunner.run(["outbox", "requeue", "7"] + database)
        #expect(requeue.status == 0, "\(requeue.stderr)")
        #expect(requeue.stdout == "requeued 0 message(s)\n")
        let bad = try CommandRunner.run(["outbox", "requeue", "seven"] + database)
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("seven"))
    }
}
