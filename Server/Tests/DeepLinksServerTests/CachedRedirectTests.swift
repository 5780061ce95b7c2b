@testable import DeepLinksServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// ``CachedRedirects``: a cached link's redirect answered on the event loop, as the router answers it, over a live
/// socket (raw bytes where the order of pipelined answers or the connection's life is the point).
@Suite struct CachedRedirectTests {
    @Test func theEventLoopRedirectsACachedLinkExactlyAsTheRouterDoesAndCountsTheClick() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(SmartLinkTests.configure) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                let path = "/summer?utm_source=news"
                // `Connection: close` always goes to the router; the same request without it is answered earlier.
                let routed = try await api.get(
                    path,
                    headers: [.userAgent: SmartLinkTests.desktop, .connection: "close"]
                )
                let early = try await api.get(path, headers: [.userAgent: SmartLinkTests.desktop])
                #expect(routed.status == .found && early.status == .found)
                #expect(early.headers[.location] == "https://links.example.com/web/post/10?utm_source=news")
                func fields(_ response: TestResponse) -> [String: String] {
                    var fields: [String: String] = [:]
                    for field in response.headers where ![.date, .connection].contains(field.name) {
                        fields[field.name.canonicalName] = field.value
                    }
                    return fields
                }
                #expect(fields(early) == fields(routed))
                #expect(early.headers[.date] != nil && early.headers[.server] == "deeplinks")
                #expect(early.headers[.strictTransportSecurity] == "max-age=31536000")

                let metrics = try await api.get("/metrics").text
                #expect(metrics.contains("deeplinks_link_cache_redirects_on_event_loop_total 1\n"), "only the second")
                #expect(
                    metrics.contains(#"deeplinks_http_requests_total{method="GET",route="/{code}",status="302"} 2"#),
                    "both requests in the metrics, under the route's name"
                )
                var clicks: Int?
                for _ in 0..<100 {
                    clicks =
                        try await api.get("/v1/links/summer/stats", headers: SmartLinkTests.admin).object["clicks"]
                        as? Int
                    if clicks == 2 { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(clicks == 2, "both clicks counted")
            }
        }
    }

    @Test func pipelinedRequestsAreAnsweredInTheOrderTheyWereSent() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve(SmartLinkTests.configure) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                #expect(try await api.get("/summer", headers: [.userAgent: SmartLinkTests.desktop]).status == .found)
                let connection = try RawConnection(port: try #require(api.client.port))
                // The router's answers take a hop to the concurrency pool; the cached ones would overtake them.
                let paths = ["/robots.txt", "/summer", "/robots.txt", "/summer", "/summer", "/favicon.ico", "/summer"]
                connection.send(
                    paths.map {
                        "GET \($0) HTTP/1.1\r\nHost: localhost\r\nUser-Agent: \(SmartLinkTests.desktop)\r\n\r\n"
                    }.joined()
                )
                let statuses = try connection.statuses(paths.count)
                #expect(statuses == [200, 302, 200, 302, 302, 204, 302])
            }
        }
    }

    @Test func aConnectionBusyWithCachedRedirectsOutlivesTheIdleTimeout() async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve({
                SmartLinkTests.configure(&$0)
                $0.idleTimeoutSeconds = 1
            }) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                #expect(try await api.get("/summer", headers: [.userAgent: SmartLinkTests.desktop]).status == .found)
                let connection = try RawConnection(port: try #require(api.client.port))
                // Three idle timeouts of requests 0.3 s apart: the connection-state handler sees each one.
                for _ in 0..<10 {
                    connection.send(
                        "GET /summer HTTP/1.1\r\nHost: localhost\r\nUser-Agent: \(SmartLinkTests.desktop)\r\n\r\n"
                    )
                    #expect(try connection.statuses(1) == [302])
                    try await Task.sleep(for: .milliseconds(300))
                }
                // Idle: closed after the timeout.
                try await Task.sleep(for: .milliseconds(1500))
                #expect(connection.isClosed)
            }
        }
    }
}

/// A TCP connection to the live server, written and read as bytes (no client library reorders or merges).
final class RawConnection {
    private let socket: Int32
    private var received: [UInt8] = []

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect to port \(port): errno \(errno)") }
    }

    deinit { close(socket) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The statuses of the next `count` responses (each with a `Content-Length`), in the order they came.
    func statuses(_ count: Int) throws -> [Int] {
        var statuses: [Int] = []
        while statuses.count < count {
            if let (status, length) = nextResponse() {
                statuses.append(status)
                received.removeFirst(length)
                continue
            }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let read = recv(socket, &buffer, buffer.count, 0)
            guard read > 0 else { throw Failure(description: "closed or timed out after \(statuses)") }
            received += buffer[..<read]
        }
        return statuses
    }

    /// Whether the server closed the connection (a read returns end of file).
    var isClosed: Bool {
        var byte: UInt8 = 0
        return recv(socket, &byte, 1, 0) == 0
    }

    /// The status and whole length of the response at the start of what was received, nil until it is all here.
    private func nextResponse() -> (status: Int, length: Int)? {
        let text = String(decoding: received, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let head = text[..<end.lowerBound]
        let lines = head.split(separator: "\r\n")
        guard let status = lines.first.flatMap({ Int($0.split(separator: " ")[1]) }) else { return nil }
        let length =
            lines.first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        let total = text[..<end.upperBound].utf8.count + length
        return received.count >= total ? (status, total) : nil
    }
}
