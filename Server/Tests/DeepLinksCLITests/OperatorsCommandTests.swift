import Foundation
import Testing

/// `deeplinks operators` (formerly `accounts`, still accepted) and `deeplinks keys`: operators and scoped keys, written with the real binary on a
/// database of its own.
@Suite struct OperatorsCommandTests {
    @Test func operatorsAreAddedListedAndRemovedWithTheirRoles() throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = ["--database-url", "sqlite:\(folder.appendingPathComponent("db.sqlite").path)"]
        let password = "tangerine-orbit-91-lantern\n"
        let added = try CommandRunner.run(
            ["operators", "create", "Ana@Example.com", "--role", "editor"] + database,
            input: password
        )
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout == "added ana@example.com as editor: sign in at /console\n")
        #expect(
            !added.stdout.contains("tangerine") && !added.stderr.contains("tangerine"),
            "the password is never printed"
        )

        let again = try CommandRunner.run(
            ["operators", "create", "ana@example.com", "--role", "admin"] + database,
            input: password
        )
        #expect(again.status == 1 && again.stderr == "error: an operator with this address exists\n")
        let weak = try CommandRunner.run(
            ["operators", "create", "bo@example.com", "--role", "admin"] + database,
            input: "short\n"
        )
        #expect(weak.status == 1 && weak.stderr.contains("too weak"))
        let role = try CommandRunner.run(
            ["operators", "create", "bo@example.com", "--role", "owner"] + database,
            input: password
        )
        #expect(role.status != 0 && role.stderr.contains("viewer, editor or admin"))
        let none = try CommandRunner.run(
            ["operators", "create", "bo@example.com", "--role", "admin"] + database,
            input: ""
        )
        #expect(none.status != 0 && none.stderr.contains("standard input"))

        #expect(try CommandRunner.run(["operators", "list"] + database).stdout == "ana@example.com\teditor\n")
        let lowered = try CommandRunner.run(["operators", "role", "ANA@example.com", "viewer"] + database)
        #expect(lowered.status == 0 && lowered.stdout.contains("now viewer"), "\(lowered.stderr)")
        #expect(try CommandRunner.run(["operators", "list"] + database).stdout == "ana@example.com\tviewer\n")
        let unlocked = try CommandRunner.run(["operators", "unlock", "ana@example.com"] + database)
        #expect(unlocked.status == 0 && unlocked.stdout.contains("may sign in again"))
        // The former name still works for a release, and is not listed.
        #expect(try CommandRunner.run(["accounts", "list"] + database).stdout == "ana@example.com\tviewer\n")
        #expect(!(try CommandRunner.run(["--help"]).stdout.contains("accounts")))
        #expect(try CommandRunner.run(["operators", "remove", "ana@example.com"] + database).status == 0)
        let gone = try CommandRunner.run(["operators", "remove", "ana@example.com"] + database)
        #expect(gone.status == 1 && gone.stderr == "error: no operator has this address\n")
    }

    @Test func keysArePrintedOnceListedByPrefixAndRevoked() throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = ["--database-url", "sqlite:\(folder.appendingPathComponent("db.sqlite").path)"]
        let created = try CommandRunner.run(["keys", "create", "--role", "viewer", "--name", "grafana"] + database)
        #expect(created.status == 0, "\(created.stderr)")
        let key = created.stdout.trimmingCharacters(in: .newlines)
        #expect(key.hasPrefix("dlk_") && key.count == 47, "only the key on standard output: \(created.stdout)")
        let list = try CommandRunner.run(["keys", "list"] + database).stdout
        #expect(list.hasPrefix("1\tgrafana\tviewer\t\(key.prefix(12))…\tnever used\tlive"), "\(list)")
        #expect(!list.contains(key))
        #expect(try CommandRunner.run(["keys", "revoke", "1"] + database).stdout == "revoked key 1\n")
        #expect(try CommandRunner.run(["keys", "list"] + database).stdout.contains("\trevoked "))
        let missing = try CommandRunner.run(["keys", "revoke", "9"] + database)
        #expect(missing.status == 1 && missing.stderr == "error: no API key has this id\n")
        let empty = try CommandRunner.run(["keys", "create", "--role", "viewer", "--name", " "] + database)
        #expect(empty.status == 1 && empty.stderr.contains("1 to 80"))
    }
}
