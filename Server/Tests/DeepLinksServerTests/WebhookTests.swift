@testable import DeepLinksSupport
import Crypto
import DeepLinksSecrets
import DeepLinksTestSupport
import Foundation
import HTTPTypes
import Testing

@testable import DeepLinksServer

/// Webhooks against a real receiver on loopback (a small Python HTTP server): every event signed, delivered once,
/// retried after a failure with the same delivery id, and kept through a restart of the server.
@Suite(.serialized) struct WebhookTests {
    static let secret = [UInt8](repeating: 7, count: 32)
    static var secrets: SecretKeys { try! SecretKeys(parsing: "1:" + Data(secret).base64EncodedString()) }

    /// A receiver that answers 500 to its first `failing` requests, then 204, and records each request in a file
    /// (read when asked: a `readabilityHandler` on a pipe can crash the whole test process on Linux, in
    /// libdispatch's `_dispatch_event_loop_drain`, when its source is torn down; swift-corelibs-libdispatch#949).
    final class Receiver: Sendable {
        let process: Process
        let port: Int
        private let folder: URL
        private var log: URL { folder.appendingPathComponent("requests.jsonl") }

        static let script = """
            import http.server, json, os, sys, threading
            port, failing, seen = int(sys.argv[1]), int(sys.argv[2]), [0]
            threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_POST(self):
                    body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                    seen[0] += 1
                    status = 500 if seen[0] <= failing else 204
                    headers = {key.lower(): value for key, value in self.headers.items()}
                    print(json.dumps({"status": status, "headers": headers, "body": body.decode()}), flush=True)
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                def log_message(self, *args): pass
            http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
            """

        init(port: Int, failing: Int = 0) throws {
            self.port = port
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", Self.script, String(port), String(failing)]
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("webhooks-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: log.path, contents: nil)
            let output = try FileHandle(forWritingTo: log)
            defer { try? output.close() }
            process.standardOutput = output
            // It ends when its standard input closes (when the test process ends, however it ends), and holds none of
            // the test runner's output open (a child holding it keeps `swift test` waiting after a crash).
            process.standardInput = Pipe()
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: 0.5)  // listening
        }

        var url: String { "http://127.0.0.1:\(port)/hooks" }

        var requests: [[String: Any]] {
            let written = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
            return written.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        /// The delivered events (204), each as its body, once they include one of `type`.
        func waitFor(_ type: String, timeout: Duration = .seconds(15)) async throws -> [String: Any] {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                for request in requests where request["status"] as? Int == 204 {
                    let body = try JSONSerialization.jsonObject(with: Data((request["body"] as! String).utf8))
                    if let event = body as? [String: Any], event["type"] as? String == type { return event }
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw ReceiverTimeout(type: type)
        }

        /// Ends the receiver with SIGKILL: a child started while a server runs in this process ignores SIGTERM
        /// (ServiceLifecycle ignores it to handle it itself, and an ignored signal stays ignored across exec). Not
        /// waited for: `waitUntilExit` spins on a concurrency thread on Linux.
        func stop() {
            let pid = process.processIdentifier
            if pid > 0 { kill(pid, SIGKILL) }
            try? FileManager.default.removeItem(at: folder)
        }

        /// A port nothing listens on (the kernel's choice, released at once).
        static func freePort() throws -> Int {
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            probe.arguments = [
                "python3", "-c",
                "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])",
            ]
            let output = Pipe()
            probe.standardOutput = output
            try probe.run()
            // Read to the end (the probe's exit), not `waitUntilExit`, which spins on a concurrency thread on Linux.
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
    }

    struct ReceiverTimeout: Error {
        let type: String
    }

    /// Checks the signature header as a receiver would: `t`, `n` and an HMAC-SHA-256 of `"{t}.{n}.webhook.{body}"`.
    static func verify(_ request: [String: Any]) -> Bool {
        guard let headers = request["headers"] as? [String: String], let body = request["body"] as? String,
            let header = headers["deeplinks-signature"]
        else { return false }
        var fields: [String: [String]] = [:]
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { fields[pair[0], default: []].append(pair[1]) }
        }
        guard let t = fields["t"]?.first, let n = fields["n"]?.first, let seconds = Int64(t),
            abs(seconds - Int64(Date().timeIntervalSince1970)) < 300, n == headers["deeplinks-delivery"]
        else { return false }
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("\(t).\(n).webhook.\(body)".utf8),
            using: SymmetricKey(data: secret)
        )
        let expected = mac.map { String(format: "%02x", $0) }.joined()
        return fields["v2"]?.contains(expected) == true
    }

    static func configure(_ receiver: String) -> (inout ServerSettings) -> Void {
        { settings in
            SmartLinkTests.configure(&settings)
            settings.webhooks = [receiver]
            settings.hookSecrets = secrets
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func linkChangesClicksAndRedemptionsArriveSigned(_ kind: TestDatabase) async throws {
        let receiver = try Receiver(port: try Receiver.freePort())
        defer { receiver.stop() }
        try await ResetWorld.with(kind, external: false) { world in
            try await world.serve(Self.configure(receiver.url)) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                let created = try await receiver.waitFor("link.created")
                #expect((created["data"] as? [String: Any])?["code"] as? String == "summer")
                #expect((created["data"] as? [String: Any])?["route"] as? String == "/post/10")

                _ = try await api.get("/summer", headers: [.userAgent: SmartLinkTests.desktop])
                let counted = try await receiver.waitFor("clicks.counted")
                #expect(
                    ((counted["data"] as? [String: Any])?["links"] as? [[String: Any]])?.first?["clicks"] as? Int == 1
                )

                let deferred = try await api.post("/v1/links/summer/deferred", "")
                let pasteboard = try #require(deferred.object["pasteboard"] as? String, "\(deferred.text)")
                let token = try #require(pasteboard.split(separator: "#deferred=").last.map(String.init))
                #expect(try await api.post("/v1/deferred/redeem", "{\"token\":\"\(token)\"}").status == .ok)
                let redeemed = try await receiver.waitFor("deferred.redeemed")
                #expect((redeemed["data"] as? [String: Any])?["code"] as? String == "summer")

                let updated = try await api.client.execute(
                    uri: "/v1/links/summer",
                    method: .put,
                    headers: SmartLinkTests.admin,
                    body: .init(string: #"{"route":"/post/11"}"#)
                ) { $0 }
                #expect(updated.status == .ok)
                #expect(
                    ((try await receiver.waitFor("link.updated"))["data"] as? [String: Any])?["route"] as? String
                        == "/post/11"
                )
                #expect(
                    try await api.client.execute(
                        uri: "/v1/links/summer",
                        method: .delete,
                        headers: SmartLinkTests.admin
                    ) { $0 }.status == .noContent
                )
                _ = try await receiver.waitFor("link.deleted")

                let requests = receiver.requests
                #expect(requests.allSatisfy(Self.verify), "every request signed under the hook secret")
                let types = requests.compactMap { ($0["headers"] as? [String: String])?["deeplinks-event"] }
                #expect(
                    types == ["link.created", "clicks.counted", "deferred.redeemed", "link.updated", "link.deleted"]
                )
                let ids = requests.compactMap { ($0["headers"] as? [String: String])?["deeplinks-delivery"] }
                #expect(Set(ids).count == 5, "one delivery per event")
                // A delivered event's body is erased: the receiver has it; the row stays a week for its status.
                try await Task.sleep(for: .milliseconds(300))
                let rows = try await world.sql("SELECT body, sent_at FROM webhook_outbox")
                #expect(rows.count == 5)
                for row in rows {
                    #expect(try row.decode(column: "sent_at", as: Int64?.self) != nil)
                    #expect(try row.decode(column: "body", as: String.self) == "")
                }
            }
        }
    }

    @Test func aFailedDeliveryIsRetriedAndAnEventOutlivesARestart() async throws {
        let port = try Receiver.freePort()
        // The path is the secret of many receivers (Slack's /services/T0/B0/SECRET): never in a log line.
        let endpoint = "http://127.0.0.1:\(port)/hooks/T0/B0/s3cretPathToken"
        try await ResetWorld.with(.sqlite, external: false) { world in
            // No receiver yet: the first attempt fails, and the server stops with the event queued.
            try await world.serve(Self.configure(endpoint)) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                // The first attempt ends when connecting gives up (a few seconds).
                for _ in 0..<300 {
                    let error = try await world.sql("SELECT last_error FROM webhook_outbox").first?.decode(
                        column: "last_error",
                        as: String?.self
                    )
                    if error != nil { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                let row = try #require(try await world.sql("SELECT attempts, last_error FROM webhook_outbox").first)
                #expect(try row.decode(column: "attempts", as: Int.self) == 1)
                #expect(
                    try row.decode(column: "last_error", as: String?.self)?.hasPrefix("could not be reached") == true
                )
            }
            // A receiver that fails once, then a new server on the same database: the event arrives once.
            let receiver = try Receiver(port: port, failing: 1)
            defer { receiver.stop() }
            world.clock.advance(seconds: 60)
            try await world.serve(Self.configure(endpoint)) { _ in
                // The retry after the 500 is due seconds later: move the server's clock along while waiting.
                let ticking = Task {
                    while !Task.isCancelled {
                        world.clock.advance(seconds: 10)
                        try await Task.sleep(for: .milliseconds(200))
                    }
                }
                let event = try await receiver.waitFor("link.created")
                ticking.cancel()
                world.clock.advance(seconds: 60)
                try await Task.sleep(for: .seconds(2))
                let requests = receiver.requests
                #expect(requests.map { $0["status"] as? Int } == [500, 204], "retried once after the 500, then done")
                let ids = requests.compactMap { ($0["headers"] as? [String: String])?["deeplinks-delivery"] }
                #expect(ids == [event["id"] as? String, event["id"] as? String], "the same delivery id on the retry")
            }
            let logs = world.logs.lines.withLock { $0 }
            #expect(logs.contains { $0.contains("webhook not delivered") && $0.contains("http://127.0.0.1:\(port)/…") })
            #expect(!logs.contains { $0.contains("s3cretPathToken") }, "the endpoint's path is not logged")
        }
    }

    /// The purpose is signed: a webhook receiver holds no signature that the team backend's hooks accept, and a
    /// signature for one hook is not one for another.
    @Test func aSignatureIsBoundToItsPurpose() {
        let body = Array(#"{"email":"ada@example.com"}"#.utf8)
        func mac(_ purpose: String) -> String {
            AccountsBackend.signature(body, at: 1_800_000_000, nonce: "n0", purpose: purpose, secrets: Self.secrets)
        }
        #expect(Set(["webhook", "hook:lookup", "hook:password"].map(mac)).count == 3)
        let expected = HMAC<SHA256>.authenticationCode(
            for: Array("1800000000.n0.hook:lookup.".utf8) + body,
            using: SymmetricKey(data: Self.secret)
        ).map { String(format: "%02x", $0) }.joined()
        #expect(mac("hook:lookup") == "t=1800000000,n=n0,v2=\(expected)")
    }

    @Test func anEndpointOverPlainHTTPElsewhereOrWithoutSecretsIsRefusedAtStart() async throws {
        try await ResetWorld.with(.sqlite, external: false) { world in
            // A name is never loopback, whatever it starts with; an error names the host, not the path.
            for refused in ["http://hooks.example.com/in", "http://127.attacker.example/hook/s3cret", "http://127.1/x"]
            {
                await #expect {
                    try await world.serve(Self.configure(refused)) { _ in }
                } throws: { error in
                    "\(error)".contains("plain http") && !"\(error)".contains("s3cret")
                }
            }
            for loopback in ["http://127.0.0.2:9/in", "http://[::1]:9/in", "http://localhost:9/in"] {
                try await world.serve(Self.configure(loopback)) { _ in }
            }
            await #expect(throws: ConfigurationError.self) {
                try await world.serve({ settings in
                    Self.configure("https://hooks.example.com/in")(&settings)
                    settings.hookSecrets = nil
                }) { _ in }
            }
        }
    }
}
