@testable import DeepLinksStorage
import DeepLinksTestSupport
import Foundation
import Logging
import Testing

/// The outboxes' leases against clocks that disagree: on PostgreSQL, which replicas share, a claim is due and leased
/// by the database's clock, so a replica whose wall clock runs 50 s ahead cannot take a message another replica is
/// still sending; a new message is due at once whatever the clock of the replica that wrote it. On SQLite (one
/// process), a start makes the leases the process held when it stopped due again.
@Suite struct OutboxClockTests {
    static func queue(_ database: Database, at now: Int64) async throws {
        try await database.transaction { sql in
            try await MailOutboxStore.insert(
                .init(
                    kind: "reset",
                    sealed: "sealed",
                    createdAt: now,
                    messageID: "<\(UUID())@example.com>",
                    keyVersion: 1,
                    resetTokenHash: nil
                ),
                on: sql
            )
        }
    }

    static var realNow: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    @Test func aReplicaWhoseClockRunsAheadCannotTakeAMessageAnotherIsSending() async throws {
        guard TestDatabase.postgresql.isAvailable else { return }
        try await TestDatabase.postgresql.with { database in
            try await Migrator(database: database, logger: Logger(label: "test")).migrate()
            let store = MailOutboxStore(database: database)
            // Written by a replica 50 s ahead: due at once all the same.
            try await Self.queue(database, at: Self.realNow + 50_000)
            let first = try await store.claimDue(now: Self.realNow, lease: 45_000)
            #expect(first != nil, "a message written by a replica ahead is due at once")
            // The replica 50 s ahead asks while the first still holds its 45 s lease.
            #expect(try await store.claimDue(now: Self.realNow + 50_000, lease: 45_000) == nil)
            // And one 50 s behind does not take it either, nor a new one before it is written.
            #expect(try await store.claimDue(now: Self.realNow - 50_000, lease: 45_000) == nil)
        }
    }

    /// SQLite only: `deeplinks serve` reclaims at start on SQLite, where it is the one process.
    @Test func aStartMakesTheLeasesAndRetriesOfTheLastRunDueAgain() async throws {
        try await TestDatabase.sqlite.with { database in
            try await Migrator(database: database, logger: Logger(label: "test")).migrate()
            let store = MailOutboxStore(database: database)
            let now = Self.realNow
            try await Self.queue(database, at: now)
            try await Self.queue(database, at: now)
            try await Self.queue(database, at: now)
            // The run that crashed: one message leased, one waiting for a retry, one failed for good.
            let leased = try #require(try await store.claimDue(now: now, lease: 45_000))
            let retried = try #require(try await store.claimDue(now: now, lease: 45_000))
            try await store.record(retried.id, sentAt: nil, nextAttemptAt: now + 600_000, error: "451", erase: false)
            let failed = try #require(try await store.claimDue(now: now, lease: 45_000))
            try await store.record(
                failed.id,
                sentAt: nil,
                nextAttemptAt: MailOutboxStore.never,
                error: "550",
                erase: false
            )
            #expect(try await store.claimDue(now: now + 1_000, lease: 45_000) == nil)
            #expect(try await database.reclaimOutboxes(now: now + 1_000) == 2)
            let again = [
                try await store.claimDue(now: now + 1_000, lease: 45_000)?.id,
                try await store.claimDue(now: now + 1_000, lease: 45_000)?.id,
            ]
            #expect(Set(again.compactMap { $0 }) == [leased.id, retried.id], "the failed one stays failed")
        }
    }
}
