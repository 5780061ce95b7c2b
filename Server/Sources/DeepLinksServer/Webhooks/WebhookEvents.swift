import AsyncHTTPClient
import DeepLinksJSON
import DeepLinksStorage
import DeepLinksSupport
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Events for the configured webhook endpoints (`--webhook URL`): `link.created`, `link.updated`, `link.deleted`,
/// `clicks.counted` (a flush's counts per link; on SQLite per thousand keys) and `deferred.redeemed`. An event is a
/// row of `webhook_outbox` per endpoint, written in the transaction that made the change, so none is lost when an
/// endpoint or this server is down and none is sent for a change that rolled back; ``WebhookSender`` delivers them.
struct WebhookEvents: Sendable {
    let endpoints: [String]
    let clock: WallClock

    /// Queues `type` with `data` for every endpoint, on the caller's connection (inside its transaction).
    func enqueue(_ type: String, _ data: JSONValue, on sql: DatabaseConnection) async throws {
        guard !endpoints.isEmpty else { return }
        let id = Base64URL.encode(SecureBytes.random(count: 16))
        let now = clock.milliseconds()
        let body = JSONValue.object([
            "id": .string(id), "type": .string(type), "at": .number(Double(now)), "data": data,
        ])
        .compactJSON
        try await WebhookOutboxStore.insert(eventID: id, type: type, body: body, at: now, for: endpoints, on: sql)
    }
}
