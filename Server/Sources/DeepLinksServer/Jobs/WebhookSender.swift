import AsyncHTTPClient
import DeepLinksSecrets
import DeepLinksStorage
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// The webhook job: delivers the events ``WebhookEvents`` queued in `webhook_outbox`: a signed `POST` of the event's JSON, oldest first, claimed before it is sent as mail is
/// (``Database/claimDue(_:now:lease:databaseClock:returning:)``), so servers sharing the database never send a row twice at once; a 2xx answer ends it, anything else is retried with backoff (2 s
/// doubling, at most 15 min) for a day, then given up.
///
/// Headers: `Deeplinks-Event` (the type), `Deeplinks-Delivery` (the event's id, the same on every retry: receivers
/// drop a repeat) and `Deeplinks-Signature` (`t=UNIX-SECONDS,n=EVENT-ID,v2=HEX...`, each `v2` an HMAC-SHA-256 of
/// `"{t}.{n}.webhook.{body}"` under one of `DEEPLINKS_HOOK_SECRETS`, newest first): a receiver refuses a `t` more than five
/// minutes from its clock.
struct WebhookSender: BackgroundJob {
    var name: String { "webhooks" }

    let database: Database
    let secrets: SecretKeys
    let clock: WallClock
    let logger: Logger
    /// How long a claim lasts: longer than a delivery may take (10 s).
    var lease: Int64 = 30_000
    /// How long an event is retried before it is given up.
    var retryFor: Int64 = 86_400_000

    static let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: .init(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(10)))
    )

    func run() async throws { try await drain() }

    func drain() async throws {
        while !Task.isCancelled, let claimed = try await claim() {
            await deliver(claimed)
        }
    }

    func claim() async throws -> WebhookOutboxStore.Claimed? {
        try await WebhookOutboxStore(database: database).claimDue(
            now: clock.milliseconds(),
            lease: lease,
            databaseClock: clock.isSystem
        )
    }

    private func deliver(_ event: WebhookOutboxStore.Claimed) async {
        let body = Array(event.body.utf8)
        var request = HTTPClientRequest(url: event.endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "deeplinks/\(DeepLinksServerVersion.current)")
        request.headers.add(name: "Deeplinks-Event", value: event.type)
        request.headers.add(name: "Deeplinks-Delivery", value: event.eventID)
        request.headers.add(
            name: AccountsBackend.signatureHeader,
            value: AccountsBackend.signature(
                body,
                at: Int64(Date().timeIntervalSince1970),
                nonce: event.eventID,
                purpose: "webhook",
                secrets: secrets
            )
        )
        request.body = .bytes(body)
        var failure: String
        do {
            let response = try await Self.client.execute(request, timeout: .seconds(10))
            let status = Int(response.status.code)
            _ = try? await response.body.collect(upTo: 64 * 1024)
            if (200..<300).contains(status) {
                try? await finish(event.id, sentAt: clock.milliseconds(), next: 0, error: nil)
                return
            }
            failure = "answered \(status)"
        } catch {
            failure = "could not be reached (\(type(of: error)))"
        }
        let now = clock.milliseconds()
        let delay = min(Int64(2_000) << min(event.attempts - 1, 20), 15 * 60 * 1000)
        let givingUp = now + delay - event.createdAt > retryFor
        try? await finish(event.id, sentAt: nil, next: givingUp ? .max : now + delay, error: failure)
        logger.warning(
            "webhook not delivered",
            metadata: [
                "event": "\(event.type)", "endpoint": "\(Self.redacted(event.endpoint))",
                "attempt": "\(event.attempts)",
                "reason": "\(failure)", "retry": "\(givingUp ? "never (retried for a day)" : "in \(delay / 1000) s")",
            ]
        )
    }

    /// An endpoint as logs and errors show it: scheme, host and port, never the path, which often is the secret
    /// (`https://hooks.slack.com/services/T0/B0/SECRET` is `https://hooks.slack.com/…`).
    static func redacted(_ endpoint: String) -> String {
        guard let url = URL(string: endpoint), let scheme = url.scheme, let host = url.host else {
            return "(an address)"
        }
        let port = url.port.map { ":\($0)" } ?? ""
        let path = url.path.isEmpty || url.path == "/" ? "" : "/…"
        return "\(scheme)://\(host)\(port)\(path)"
    }

    private func finish(_ id: Int64, sentAt: Int64?, next: Int64, error: String?) async throws {
        try await WebhookOutboxStore(database: database).record(id, sentAt: sentAt, nextAttemptAt: next, error: error)
    }
}
