@testable import DeepLinksServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// ``CachedRedirects``: a cached link's redirect answered on the event loop, as the router answers it, over a live
/// socket (raw bytes where the order of pipelined answers or the connection's life is the point).
@Suite struct CachedRedirectTests {
    static let request = "GET /summer HTTP/1.1\r\nHost: localhost\r\nUser-Agent: \(SmartLinkTests.desktop)\r\n\r\n"

    /// A live server on SQLite holding the `summer` link, read into the cache by a desktop's redirect through the
    /// router (a cache miss), whose answer `body` gets. The link's creation on this server is not dropped from the
    /// cache again by the change log's sync (``LinkCache/appliedHere(_:now:)``), so later redirects find it there.
    func withCachedLink(
        idleTimeoutSeconds: Int? = nil,
        _ body: @escaping @Sendable (ResetClient, _ routed: TestResponse) async throws -> Void
    ) async throws {
        try await ResetWorld.with(.sqlite) { world in
            try await world.serve({
                SmartLinkTests.configure(&$0)
                if let idleTimeoutSeconds { $0.idleTimeoutSeconds = idleTimeoutSeconds }
            }) { api in
                let created = try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin)
                #expect(created.status == .created)
                // The cache keeps nothing before the server's first read of the change log.
                var synced: Double?
                for _ in 0..<200 {
                    let metrics = try await api.get("/metrics").text
                    synced = metrics.split(separator: "\n").lazy
                        .compactMap { $0.wholeMatch(of: /deeplinks_link_cache_synced_timestamp_seconds (\S+)/) }
                        .first.flatMap { Double($0.1) }
                    if let synced, synced > 0 { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                let now = Date().timeIntervalSince1970
                #expect(synced.map { abs($0 - now) < 60 } == true, "the change log read: \(String(describing: synced))")
                let routed = try await api.get("/summer", headers: [.userAgent: SmartLinkTests.desktop])
                #expect(routed.status == .found)
                try await body(api, routed)
            }
        }
    }

    @Test func theEventLoopRedirectsACachedLinkExactlyAsTheRouterDoesAndCountsTheClick() async throws {
        try await withCachedLink { api, routed in
            let early = try await api.get("/summer", headers: [.userAgent: SmartLinkTests.desktop])
            #expect(early.status == .found)
            let tagged = try await api.get("/summer?utm_source=news", headers: [.userAgent: SmartLinkTests.desktop])
            #expect(tagged.headers[.location] == "https://links.example.com/web/post/10?utm_source=news")
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
            #expect(metrics.contains("deeplinks_link_cache_redirects_on_event_loop_total 2\n"), "all but the first")
            #expect(
                metrics.contains(#"deeplinks_http_requests_total{method="GET",route="/{code}",status="302"} 3"#),
                "every redirect in the metrics, under the route's name"
            )
            var clicks: Int?
            for _ in 0..<100 {
                let stats = try await api.get("/v1/links/summer/stats", headers: SmartLinkTests.admin).object
                clicks = stats["clicks"] as? Int
                if clicks == 3 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(clicks == 3, "every click counted")
        }
    }

    @Test func onlyABodilessGetOrHeadOfOneSegmentThatKeepsTheConnectionIsAnsweredEarly() {
        func head(_ method: HTTPRequest.Method, _ path: String, _ fields: HTTPFields = [:]) -> HTTPRequest {
            HTTPRequest(method: method, scheme: nil, authority: "localhost", path: path, headerFields: fields)
        }
        #expect(CachedRedirects.mayAnswer(head(.get, "/summer")))
        #expect(CachedRedirects.mayAnswer(head(.head, "/summer?utm_source=news")))
        #expect(CachedRedirects.mayAnswer(head(.get, "/summer", [.connection: "keep-alive"])))
        #expect(!CachedRedirects.mayAnswer(head(.post, "/summer")))
        #expect(!CachedRedirects.mayAnswer(head(.get, "/")))
        #expect(!CachedRedirects.mayAnswer(head(.get, "/v1/links")))
        #expect(!CachedRedirects.mayAnswer(head(.get, "/summer", [.connection: "Close"])), "the router closes")
        #expect(!CachedRedirects.mayAnswer(head(.get, "/summer", [.contentLength: "4"])), "the router reads a body")
        #expect(!CachedRedirects.mayAnswer(head(.get, "/summer", [.transferEncoding: "chunked"])))
        // A long query leaves the event loop (#43): past 2 KiB, or 64 items.
        #expect(CachedRedirects.mayAnswer(head(.get, "/summer?" + String(repeating: "a", count: 2000))))
        #expect(!CachedRedirects.mayAnswer(head(.get, "/summer?" + String(repeating: "a", count: 2100))))
        #expect(!CachedRedirects.mayAnswer(head(.get, "/summer?" + String(repeating: "a&", count: 64))))
    }

    @Test func pipelinedRequestsAreAnsweredInTheOrderTheyWereSent() async throws {
        try await withCachedLink { api, _ in
            let connection = try RawConnection(port: try #require(api.client.port))
            // The router's answers take a hop to the concurrency pool; the cached ones would overtake them.
            let paths = ["/robots.txt", "/summer", "/robots.txt", "/summer", "/summer", "/favicon.ico", "/summer"]
            connection.send(paths.map { Self.request.replacingOccurrences(of: "/summer", with: $0) }.joined())
            #expect(try connection.statuses(paths.count) == [200, 302, 200, 302, 302, 204, 302])
        }
    }

    @Test func aConnectionBusyWithCachedRedirectsOutlivesTheIdleTimeout() async throws {
        let checked = Mutex(false)
        do {
            try await withCachedLink(idleTimeoutSeconds: 3) { api, _ in
                let connection = try RawConnection(port: try #require(api.client.port))
                // Three idle timeouts of requests 0.6 s apart: the connection-state handler sees each one. (Three
                // seconds, not one: the harness's own client, used while the link is set up, must not sit idle past
                // it on a loaded machine.)
                for _ in 0..<15 {
                    connection.send(Self.request)
                    #expect(try connection.statuses(1) == [302])
                    try await Task.sleep(for: .milliseconds(600))
                }
                // Idle: closed after the timeout.
                try await Task.sleep(for: .milliseconds(4500))
                #expect(connection.isClosed)
                checked.withLock { $0 = true }
            }
        } catch  where checked.withLock({ $0 }) {
            // The harness's own client sat idle past the timeout as well: the server closed it, and the harness's
            // close at the end finds it closing, closed or reset, depending on timing (a loaded machine saw all three).
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

    /// Whether the server closes the connection within the read timeout, after any answer it sends first (read and
    /// dropped).
    var closesAfterAnyAnswer: Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let read = recv(socket, &buffer, buffer.count, 0)
            if read == 0 { return true }
            if read < 0 { return errno == ECONNRESET }
        }
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
