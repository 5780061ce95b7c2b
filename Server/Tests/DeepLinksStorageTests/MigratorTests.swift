@testable import DeepLinksStorage
import DeepLinksTestSupport
import Logging
import SQLKit
import Testing

@Suite struct MigratorTests {
    @Test(arguments: TestDatabase.allCases)
    func migrationsRunTwiceInARowAndTheSecondRunAppliesNothing(_ kind: TestDatabase) async throws {
        guard kind.isAvailable else { return }
        try await kind.with { database in
            let migrator = Migrator(database: database, logger: Logger(label: "test"))
            let first = try await migrator.migrate()
            let second = try await migrator.migrate()
            #expect(first == Migration.all.map(\.version))
            #expect(second.isEmpty)
            #expect(try await migrator.appliedVersions() == Migration.all.map(\.version))
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func theLatestMigrationUpgradesADatabaseThatHoldsLinksClicksAndMail(_ kind: TestDatabase) async throws {
        guard kind.isAvailable else { return }
        try await kind.with { database in
            let logger = Logger(label: "test")
            try await Migrator(database: database, migrations: Array(Migration.all.prefix(4)), logger: logger).migrate()
            try await database.withConnection { sql in
                try await sql.raw(
                    "INSERT INTO links (code, document, created_at, updated_at) VALUES ('kept', '{}', 1, 1)"
                )
                .run()
                try await sql.raw(
                    "INSERT INTO link_clicks (code, day, platform, bot, clicks) VALUES ('kept', '2026-11-24', 'iphone', \(bind: false), 41)"
                ).run()
                try await sql.raw(
                    "INSERT INTO mail_outbox (kind, sealed_message, created_at, next_attempt_at) VALUES ('old', 'x', 1, 1)"
                ).run()
                try await sql.raw(
                    "INSERT INTO accounts (email, email_display, password_hash, created_at) VALUES ('a@example.com', 'a@example.com', 'h', 1)"
                ).run()
                try await sql.raw(
                    "INSERT INTO reset_requests (address, address_key, received_at) VALUES ('a@example.com', 'k', 1)"
                ).run()
            }
            #expect(
                try await Migrator(database: database, logger: logger).migrate() == [
                    5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                ]
            )
            // Version 15: an account the upgrade found counts as used; the pruning of unused sign-ups never takes it.
            let used = try await database.withConnection { sql in
                try await sql.raw("SELECT used_at FROM accounts").first()?.decode(column: "used_at", as: Int64?.self)
            }
            #expect(used == .some(1))
            // Version 6 on rows that were there: a built-in account has no subject; a waiting request has had no
            // lookup and is due.
            let (subject, attempts) = try await database.withConnection { sql in
                (
                    try await sql.raw("SELECT subject FROM accounts").first()?.decode(
                        column: "subject",
                        as: String?.self
                    ),
                    try await sql.raw("SELECT lookup_attempts + next_lookup_at AS n FROM reset_requests").first()?
                        .decode(
                            column: "n",
                            as: Int.self
                        )
                )
            }
            #expect(subject == .some(nil) && attempts == 0)
            let clicks = try await database.withConnection { sql in
                try await sql.raw("SELECT clicks FROM link_clicks WHERE code = 'kept'").first()?.decode(
                    column: "clicks",
                    as: Int.self
                )
            }
            #expect(clicks == 41, "clicks kept through the table's new shapes")
            // Version 8: the old counts are the link's own; the counter's upsert finds its conflict target, and a QR
            // code's click is a row apart.
            let day = "2026-11-24"  // the day of the row above
            _ = try await database.transaction { sql in
                try await ClickCountStore.add(
                    ["link", "qr"].map {
                        .init(code: "kept", day: day, platform: "iphone", bot: false, source: $0, clicks: 1)
                    },
                    kind: database.kind,
                    returningCodes: false,
                    on: sql
                )
            }
            let rows = try await LinkDocumentStore(database: database).clicks("kept")
            #expect(rows.map { "\($0.source) \($0.clicks)" } == ["link 42", "qr 1"])
            let old = try await database.withConnection { sql in
                try await sql.raw("SELECT message_id, key_version FROM mail_outbox WHERE kind = 'old'").first()
            }
            #expect(
                try old?.decode(column: "message_id", as: String?.self) == nil,
                "a message queued before keeps working without one"
            )
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func aFailingMigrationRollsBackAndIsNotRecorded(_ kind: TestDatabase) async throws {
        guard kind.isAvailable else { return }
        try await kind.with { database in
            let logger = Logger(label: "test")
            try await Migrator(database: database, logger: logger).migrate()
            let broken =
                Migration.all + [
                    Migration(version: 1000, name: "half done") { sql, _ in
                        try await sql.raw("CREATE TABLE half_done (id INTEGER)").run()
                        try await sql.raw("SELECT * FROM no_such_table").run()
                    }
                ]
            await #expect(throws: DatabaseError.self) {
                try await Migrator(database: database, migrations: broken, logger: logger).migrate()
            }
            #expect(
                try await Migrator(database: database, logger: logger).appliedVersions() == Migration.all.map(\.version)
            )
            // The table created before the failure was rolled back with it.
            await #expect(throws: (any Error).self) {
                try await database.withConnection { sql in try await sql.raw("SELECT * FROM half_done").run() }
            }
        }
    }

    @Test func aDatabaseNewerThanTheBuildIsRefusedWithAReason() async throws {
        let (database, cleanup) = try await TestDatabase.sqlite.open()
        let logger = Logger(label: "test")
        let newer = Migration.all + [Migration(version: 99, name: "from the future") { _, _ in }]
        try await Migrator(database: database, migrations: newer, logger: logger).migrate()
        let error = await #expect(throws: DatabaseError.self) {
            try await Migrator(database: database, logger: logger).migrate()
        }
        #expect(
            error?.description
                == "the database schema is at version 99, newer than this build knows (\(Migration.all.count)): upgrade the server"
        )
        await cleanup()
    }
}
