@testable import DeepLinksServer
import Testing

/// The clicks' last write at shutdown: when the database fails it, the error the background jobs log says how many
/// clicks are lost and why (they used to go without a count).
@Suite struct ClickFlushJobTests {
    @Test func aLastWriteThatFailsSaysHowManyClicksAreLost() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await ClickFlushTests.addLinks(["lost"], to: world)
            let clicks = ClickCounter(database: world.database)
            for _ in 0..<3 { clicks.count(code: "lost", platform: .iPhone, at: 0) }
            clicks.count(code: "lost", platform: .android, at: 0)
            _ = try await world.sql("DROP TABLE link_clicks")
            do {
                try await ClickFlushJob(clicks: clicks).atShutdown()
                Issue.record("the write succeeded without its table")
            } catch let error as ClickFlushJob.ClicksLost {
                #expect(error.clicks == 4)
                #expect("\(error)".hasPrefix("4 clicks counted since the last write are lost: "), "\(error)")
                #expect("\(error)".contains("link_clicks"), "the database's reason: \(error)")
            }
        }
    }
}
