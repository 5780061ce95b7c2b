import DeepLinks
import DeepLinksTesting
import Foundation
import Testing

/// The app's opt-in reporter: what one event holds (and never: a parameter value), its batches, its retries with
/// the same IDs, and what it drops. The delivery simulator checks, over its grid, one event per link carried out.
@Suite struct LinkReporterTests {
    /// A server that answers each POST with the next status of `answers` (the last one from then on), or throws
    /// for 0 (no network), and keeps every body.
    struct Offline: Error {}

    actor Server {
        var answers: [Int]
        /// Each request's body, as JSON text.
        var bodies: [String] = []

        init(_ answers: [Int]) { self.answers = answers }

        func post(_ body: [UInt8]) throws -> Int {
            bodies.append(String(decoding: body, as: UTF8.self))
            let status = answers.count > 1 ? answers.removeFirst() : answers[0]
            if status == 0 { throw Offline() }
            return status
        }

        func events(_ index: Int) -> [[String: String]] {
            let object = (try? JSONSerialization.jsonObject(with: Data(bodies[index].utf8))) as? [String: Any]
            return object?["events"] as? [[String: String]] ?? []
        }
    }

    static func reporter(_ server: Server, clock: TestClock = TestClock()) -> LinkReporter {
        LinkReporter(server: "https://links.example.com/", linkDomains: ["Links.Example.com"], clock: clock) {
            body,
            url in
            #expect(url == "https://links.example.com/v1/events")
            return try await server.post(body)
        }
    }

    @Test func anOpenSaysItsChannelRouteAndCodeAndNoValue() async throws {
        let server = Server([200])
        let reporter = Self.reporter(server)
        await reporter.opened(
            url: "https://links.example.com/summer",
            route: "post",
            channel: .applicationContinueUserActivity
        )
        await reporter.opened(
            url: "https://demo.example.com/reset-password#token=SECRET-TOKEN&email=a%40b.c",
            route: "reset-password",
            channel: .sceneOpenURLContexts
        )
        await reporter.opened(url: "demoapp://post/7?tag=PRIVATE-TAG", route: "post", channel: .onOpenURL)
        await reporter.opened(url: "https://demo.example.com/post/1", route: "post", channel: .deferred)
        await reporter.goal("signup", code: "summer")
        await reporter.settle()
        let sent = await reporter.sent
        #expect(sent.count == 5)
        #expect(sent.map(\.channel) == ["universal_link", "universal_link", "custom_scheme", "deferred", nil])
        #expect(sent.map(\.code) == ["summer", nil, nil, nil, "summer"])
        #expect(sent.map(\.route) == ["post", "reset-password", "post", "post", nil])
        #expect(Set(sent.map(\.id)).count == 5 && sent.allSatisfy { $0.id.count == 32 })
        let text = await server.bodies.joined()
        for secret in ["SECRET-TOKEN", "a%40b.c", "PRIVATE-TAG", "/post/7", "demo.example.com"] {
            #expect(!text.contains(secret), "\(secret) was sent")
        }
        let first = try #require(await server.events(0).first)
        #expect(Set(first.keys) == ["id", "type", "channel", "route", "code"])
    }

    @Test func aFailedBatchIsRetriedWithTheSameIDsAfterADoublingWait() async throws {
        let server = Server([0, 503, 429, 200])
        let clock = TestClock()
        let reporter = Self.reporter(server, clock: clock)
        await reporter.opened(url: "https://links.example.com/summer", route: "post", channel: .onOpenURL)
        await reporter.settle()
        #expect(await server.bodies.count == 1, "the first try, failed")
        for (wait, tries) in [(1, 2), (2, 3), (4, 4)] {
            clock.advance(by: .seconds(wait) - .milliseconds(1))
            await reporter.settle()
            #expect(await server.bodies.count == tries - 1, "not before \(wait) s")
            clock.advance(by: .milliseconds(1))
            for _ in 0..<100 where await server.bodies.count < tries { await Task.yield() }
            #expect(await server.bodies.count == tries, "retried after \(wait) s")
        }
        await reporter.settle()
        let pending = await reporter.pending
        #expect(pending.isEmpty)
        let ids = await (0..<4).asyncMap { await server.events($0).map { $0["id"] ?? "" } }
        #expect(Set(ids).count == 1, "every try carries the same ID: \(ids)")
    }

    @Test func aBatchTheServerRefusesIsDroppedAndNothingIsSentWithoutALink() async throws {
        let server = Server([400])
        let reporter = Self.reporter(server)
        await reporter.settle()
        #expect(await server.bodies.isEmpty, "no link, no request")
        await reporter.goal("signup")
        await reporter.settle()
        #expect(await server.bodies.count == 1)
        let (pending, sent) = (await reporter.pending, await reporter.sent)
        #expect(pending.isEmpty && sent.isEmpty)
    }
}

extension Sequence {
    fileprivate func asyncMap<T>(_ transform: (Element) async -> T) async -> [T] {
        var results: [T] = []
        for element in self { results.append(await transform(element)) }
        return results
    }
}
