@testable import DeepLinksServer
import Foundation
import Testing

/// ``BodyDeadline`` over a live socket: a body sent a byte at a time is cut off after one window, wherever its
/// route would read it (a JSON endpoint, a form, the reset page), with a length or chunked, and on a connection that
/// already served a request; a body that keeps coming at a person's pace is read whole, across several windows.
@Suite struct BodyDeadlineTests {
    static func head(_ path: String, type: String, length: Int) -> String {
        "POST \(path) HTTP/1.1\r\nHost: localhost\r\nContent-Type: \(type)\r\nContent-Length: \(length)\r\n\r\n"
    }

    /// A body window of one second; the idle timeout long, so that the test's own client connection, idle while
    /// the raw ones take their time (long on a loaded machine), is not closed under it.
    static func oneSecondBodies(_ settings: inout ServerSettings) {
        settings.bodyTimeoutSeconds = 1
        settings.idleTimeoutSeconds = 600
    }

    /// The counter of connections closed for a slow body, read from `/metrics`.
    static func closedCount(_ api: ResetClient) async throws -> Int {
        try await counter("deeplinks_http_slow_bodies_closed_total", api)
    }

    /// A counter's value in `/metrics` (0 before its first increment).
    static func counter(_ name: String, _ api: ResetClient) async throws -> Int {
        let metrics = try await api.get("/metrics").text
        return metrics.split(separator: "\n").lazy
            .compactMap { line -> Int? in
                guard line.hasPrefix(name + " ") else { return nil }
                return Int(line.dropFirst(name.count + 1))
            }
            .first ?? 0
    }

    /// A client that gives up halfway through a body (on every route that reads one, the slow-body cut included)
    /// is counted, not logged: a thousand abandoned uploads write no log line.
    @Test func anAbandonedUploadIsCountedNotLogged() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let settings: (inout ServerSettings) -> Void = {
                SmartLinkTests.configure(&$0)
                Self.oneSecondBodies(&$0)
            }
            try await world.serve(settings) { api in
                let port = try #require(api.client.port)
                let heads = [
                    Self.head("/v1/password-resets", type: "application/json", length: 2_000),
                    Self.head("/reset-password", type: "application/x-www-form-urlencoded", length: 2_000),
                    Self.head("/v1/links", type: "application/json", length: 2_000),
                    Self.head("/v1/links/import", type: "text/csv", length: 2_000),
                    Self.head("/console/sign-in", type: "application/x-www-form-urlencoded", length: 2_000),
                ]
                for _ in 0..<40 {
                    for head in heads {
                        let connection = try RawConnection(port: port)
                        connection.send(
                            head.replacingOccurrences(
                                of: "Host: localhost",
                                with: "Host: localhost\r\nAuthorization: Bearer \(SmartLinkTests.adminKey)"
                            ) + "{\"a\":"
                        )
                    }
                }
                // One more, cut by the body deadline instead of closed by its client.
                let slow = try RawConnection(port: port)
                slow.send(Self.head("/v1/password-resets", type: "application/json", length: 2_000) + "{")
                try await Task.sleep(for: .milliseconds(2_500))
                #expect(slow.closesAfterAnyAnswer)
                let abandoned = try await Self.counter("deeplinks_http_abandoned_bodies_total", api)
                #expect(abandoned >= 40 * 3, "\(abandoned)")
                #expect(try await api.get("/healthz").status == .ok)
            }
            let failures = world.logs.lines.withLock { $0 }.filter { $0.contains("request failed") }
            #expect(failures.isEmpty, "\(failures.prefix(3))")
        }
    }

    @Test func aBodySentAByteAtATimeIsCutOffAfterOneWindowOnEveryBodyTakingRoute() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(Self.oneSecondBodies) { api in
                let port = try #require(api.client.port)
                let before = try await Self.closedCount(api)
                let requests = [
                    Self.head("/v1/password-resets", type: "application/json", length: 2_000),
                    Self.head("/reset-password", type: "application/x-www-form-urlencoded", length: 2_000),
                    Self.head("/v1/links", type: "application/json", length: 60_000),
                    // Chunked: a 1 KiB chunk announced, then its bytes one at a time.
                    "POST /v1/password-resets HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\n400\r\n",
                ]
                for request in requests {
                    let connection = try RawConnection(port: port)
                    connection.send(request)
                    // A byte every 200 ms for 2.4 s: 12 bytes, far from 2,000, over two windows of 1 s.
                    let started = ContinuousClock.now
                    for _ in 0..<12 {
                        connection.send("{")
                        try await Task.sleep(for: .milliseconds(200))
                    }
                    #expect(connection.closesAfterAnyAnswer, "\(request)")
                    #expect(ContinuousClock.now - started < .seconds(8))
                }
                // After a request it answered, the same connection's next slow body is cut off too.
                let kept = try RawConnection(port: port)
                kept.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                #expect(try kept.statuses(1) == [200])
                kept.send(Self.head("/v1/password-resets", type: "application/json", length: 500))
                kept.send("{\"em")
                try await Task.sleep(for: .milliseconds(2_500))
                #expect(kept.closesAfterAnyAnswer)
                #expect(try await Self.closedCount(api) == before + 5)
            }
        }
    }

    @Test func aBodyAtAPersonsPaceIsReadAcrossSeveralWindows() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let twoSecondBodies: (inout ServerSettings) -> Void = {
                Self.oneSecondBodies(&$0)
                $0.bodyTimeoutSeconds = 2
            }
            try await world.serve(twoSecondBodies) { api in
                let port = try #require(api.client.port)
                // 60 KiB at about 10 KiB/s (6 s, three windows of 2 s, each well over the 2 KiB they need, so that a
                // loaded machine's stall of a second does not cut it): read whole and answered (202: the reset request
                // was taken, its JSON parsed to the end).
                let padding = String(repeating: "a", count: 60 * 1024 - 40)
                let body = #"{"email":"a@example.com","x":"\#(padding)"}"#
                let connection = try RawConnection(port: port)
                connection.send(Self.head("/v1/password-resets", type: "application/json", length: body.utf8.count))
                var rest = Substring(body)
                while !rest.isEmpty {
                    connection.send(String(rest.prefix(1024)))
                    rest = rest.dropFirst(1024)
                    try await Task.sleep(for: .milliseconds(100))
                }
                let status = try connection.statuses(1).first
                #expect(status == 202, "read whole and answered, not cut off: \(String(describing: status))")
                #expect(try await Self.closedCount(api) == 0)
            }
        }
    }
}
