import AsyncHTTPClient
import DeepLinksJSON
import DeepLinksStorage
import DeepLinksSupport
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Events for the configured webhook endpoints (`--webhook URL`): `link.created`, `link.updated`, `link.deleted`,
/// `clicks.counted` (a flush's counts per link; on SQLite per thousand keys), `deferred.redeemed` and
/// `association.cdn_differs` (``AppleCDNWatch``). An event is a
/// row of `webhook_outbox` per endpoint, written in the transaction that made the change, so none is lost when an
/// endpoint or this server is down and none is sent for a change that rolled back; ``WebhookSender`` delivers them.
struct WebhookEvents: Sendable {
    let endpoints: [String]
    let clock: WallClock

    /// Queues `type` with `data` for every endpoint, on the caller's connection (inside its transaction).
    func enqueue(_ type: String, _ data: JSONValue, on sql: DatabaseConnection) async throws {
        try await enqueue([(type, data)], on: sql)
    }

    /// Queues many events (an import's) with as few statements as the rows allow.
    func enqueue(_ events: [(type: String, data: JSONValue)], on sql: DatabaseConnection) async throws {
        guard !endpoints.isEmpty, !events.isEmpty else { return }
        let now = clock.milliseconds()
        let rows = events.map { event in
            let id = Base64URL.encode(SecureBytes.random(count: 16))
            let body = JSONValue.object([
                "id": .string(id), "type": .string(event.type), "at": .number(Double(now)), "data": event.data,
            ])
            return (eventID: id, type: event.type, body: body.compactJSON)
        }
        try await WebhookOutboxStore.insert(rows, at: now, for: endpoints, on: sql)
    }
}
