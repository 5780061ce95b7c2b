import DeepLinksTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import DeepLinksServer

/// The console and its keys under attack, each over a live socket: keys that would outlive their operator, a
/// stranger locking an operator out, an admin removing the last admin, text written into a notice, and a viewer
/// making the server fetch without limit.
struct ConsoleSecurityTests {
    typealias Visit = ConsoleTests.Visit

    static func operators(_ world: ResetWorld, _ people: [(String, OperatorRole)]) async throws -> Operators {
        let operators = Operators(database: world.database, clock: world.clock.wallClock)
        for (email, role) in people {
            _ = try await operators.create(
                email: email,
                password: ConsoleTests.password,
                role: role,
                hasher: world.settings().passwordReset.hasher
            )
        }
        return operators
    }

    /// Posts a console form as `visit`, with the token of its last page.
    static func post(_ api: ResetClient, _ visit: Visit, _ path: String, _ fields: [String: String]) async throws
        -> TestResponse
    {
        var headers = visit.headers
        headers[.contentType] = "application/x-www-form-urlencoded"
        var sent = fields
        sent["csrf"] = visit.csrf
        return try await api.post(path, visit.form(sent), headers: headers)
    }

    /// A key belongs to whoever made it: removing its operator revokes it, lowering their role lowers it, a key
    /// made with an operator's key is theirs too, and the keys list and the audit say what happened.
    @Test(arguments: TestDatabase.allCases)
    func keysFollowTheirOperator(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            let operators = try await Self.operators(
                world,
                [("boss@example.com", .admin), ("leaving@example.com", .admin), ("demoted@example.com", .admin)]
            )
            try await world.serve(SmartLinkTests.configure) { api in
                // Each of the two admins mints an admin key in the console; the leaving one mints a second
                // through the API with the first.
                var keys: [String: String] = [:]
                for email in ["leaving@example.com", "demoted@example.com"] {
                    var (visit, _) = try await ConsoleTests.signIn(api, email)
                    visit.read(try await api.get("/console/keys", headers: visit.headers))
                    let made = try await Self.post(
                        api,
                        visit,
                        "/console/keys",
                        ["name": "ci of \(email)", "role": "admin"]
                    )
                    #expect(made.status == .created)
                    let secret = try #require(
                        made.text.range(of: #"<code id="secret">"#).map {
                            String(made.text[$0.upperBound...].prefix { $0 != "<" })
                        }
                    )
                    keys[email] = secret
                }
                let leaving = try #require(keys["leaving@example.com"])
                let minted = try await api.post(
                    "/v1/keys",
                    #"{"name": "minted", "role": "admin"}"#,
                    headers: ConsoleTests.bearer(leaving)
                )
                #expect(minted.status == .created && minted.object["createdBy"] as? String == "leaving@example.com")
                let second = try #require(minted.object["key"] as? String)
                for key in [leaving, second] {
                    #expect(try await api.get("/v1/keys", headers: ConsoleTests.bearer(key)).status == .ok)
                }

                var (boss, _) = try await ConsoleTests.signIn(api, "boss@example.com")
                boss.read(try await api.get("/console/keys", headers: boss.headers))
                let removed = try await Self.post(
                    api,
                    boss,
                    "/console/operators/remove",
                    ["email": "Leaving@Example.com"]
                )
                #expect(removed.status == .seeOther)
                for key in [leaving, second] {
                    let refused = try await api.get("/v1/keys", headers: ConsoleTests.bearer(key))
                    #expect(refused.status == .unauthorized, "a removed admin's key is revoked")
                }

                // Lowered to editor: their admin key is an editor's now, on every route.
                let demoted = try #require(keys["demoted@example.com"])
                let lowered = try await Self.post(
                    api,
                    boss,
                    "/console/operators/role",
                    ["email": "demoted@example.com", "role": "editor"]
                )
                #expect(lowered.status == .seeOther)
                #expect(try await api.get("/v1/keys", headers: ConsoleTests.bearer(demoted)).status == .forbidden)
                let edit = try await api.post("/v1/links", SmartLinkTests.summer, headers: ConsoleTests.bearer(demoted))
                #expect(edit.status == .created, "an editor's key still edits links")

                let list = try await api.get("/console/keys", headers: boss.headers)
                #expect(list.text.contains("revoked: leaving@example.com was removed by boss@example.com"))
                #expect(list.text.contains("lowered from admin: demoted@example.com became editor"))
                for event in ["operator.removed", "key.revoked", "operator.role", "key.lowered"] {
                    #expect(list.text.contains(event), "the audit shows \(event)")
                }
                let listed = try await api.get("/v1/keys", headers: SmartLinkTests.admin)
                let notes = (listed.object["keys"] as? [[String: Any]] ?? []).compactMap { $0["note"] as? String }
                #expect(notes.count == 3, "\(notes)")
                let audit = try await operators.auditEvents()
                #expect(
                    audit.filter { $0.event == "key.revoked" }.count == 2 && audit.first?.actor == "boss@example.com"
                )
            }
        }
    }

    /// Nobody removes or demotes themselves by another spelling of their address, and the last admin stays.
    @Test func theLastAdminIsNeverRemovedOrDemoted() async throws {
        try await ResetWorld.with(.sqlite) { world in
            let operators = try await Self.operators(
                world,
                [("admin@example.com", .admin), ("ed@example.com", .editor)]
            )
            try await world.serve(SmartLinkTests.configure) { api in
                var (admin, _) = try await ConsoleTests.signIn(api, "admin@example.com")
                admin.read(try await api.get("/console/keys", headers: admin.headers))
                let himself = try await Self.post(
                    api,
                    admin,
                    "/console/operators/remove",
                    ["email": "ADMIN@example.com"]
                )
                #expect(himself.status == .unprocessableContent && himself.text.contains("You cannot remove yourself."))
                let demoted = try await Self.post(
                    api,
                    admin,
                    "/console/operators/role",
                    ["email": "Admin@Example.com", "role": "viewer"]
                )
                #expect(demoted.status == .unprocessableContent)
            }
            await #expect(throws: OperatorError.lastAdmin) {
                try await operators.remove(email: "admin@example.com", by: "cli")
            }
            await #expect(throws: OperatorError.lastAdmin) {
                try await operators.setRole(email: "admin@example.com", to: .editor, by: "cli")
            }
            try await operators.setRole(email: "ed@example.com", to: .admin, by: "cli")
            try await operators.remove(email: "admin@example.com", by: "cli")
            #expect(try await operators.list().map(\.email) == ["ed@example.com"])
        }
    }

    /// A stranger's wrong passwords for an address cannot lock its operator out: the browser they signed in from
    /// is never refused by the address's bucket, a right password never empties it, and `unlock` refills it;
    /// wrong passwords from other browsers are still limited as before (5, then 2 a minute).
    @Test(arguments: TestDatabase.allCases)
    func aStrangerCannotLockAnOperatorOut(_ kind: TestDatabase) async throws {
        try await ResetWorld.with(kind) { world in
            let operators = try await Self.operators(world, [("owner@example.com", .editor)])
            try await world.serve { api in
                // The owner signs in once from their browser, and again: a right password takes nothing.
                let (owner, first) = try await ConsoleTests.signIn(api, "owner@example.com")
                #expect(first.status == .seeOther)
                let device = try #require(owner.cookies[ConsoleRoutes.deviceCookie])
                let cookie = try #require(
                    first.headers[values: .setCookie].first { $0.hasPrefix(ConsoleRoutes.deviceCookie) }
                )
                #expect(cookie.contains("HttpOnly") && cookie.contains("Secure") && cookie.contains("Max-Age="))

                // A stranger guesses: five wrong passwords, then 429, right password or not.
                var statuses: [HTTPResponse.Status] = []
                for _ in 0..<6 {
                    statuses.append(
                        try await ConsoleTests.signIn(api, "owner@example.com", password: "guess-123456").1.status
                    )
                }
                #expect(statuses == Array(repeating: .unauthorized, count: 5) + [.tooManyRequests])
                let strangerRight = try await ConsoleTests.signIn(api, "owner@example.com").1
                #expect(strangerRight.status == .tooManyRequests, "a browser never signed in from is still limited")

                // The owner's browser signs in with the right password.
                let back = try await ConsoleTests.signIn(api, "owner@example.com", device: device).1
                #expect(back.status == .seeOther, "the owner's browser is not locked out: \(back.status)")

                // Another operator's device cookie counts for nobody else, and a made-up one for nobody.
                #expect(try await !operators.isDevice(device, of: "someone@example.com"))
                #expect(try await !operators.isDevice("made-up", of: "owner@example.com"))

                // `deeplinks operators unlock`: a new browser signs in at once.
                try await operators.unlock(email: "OWNER@example.com")
                #expect(try await ConsoleTests.signIn(api, "owner@example.com").1.status == .seeOther)
            }
        }
    }

    /// The list's notice names a link the server deleted, never text from the query.
    @Test func theDeletedNoticeNeverEchoesTheQuery() async throws {
        try await ResetWorld.with(.sqlite) { world in
            _ = try await Self.operators(world, [("ed@example.com", .editor)])
            try await world.serve(SmartLinkTests.configure) { api in
                #expect(
                    try await api.post("/v1/links", SmartLinkTests.summer, headers: SmartLinkTests.admin).status
                        == .created
                )
                var (editor, _) = try await ConsoleTests.signIn(api, "ed@example.com")
                let hostile =
                    "abc.%20Security%20notice%3A%20your%20session%20expired%2C%20sign%20in%20at%20https%3A%2F%2Fevil.example"
                for query in ["deleted=\(hostile)", "deleted=summer", "deleted=never-existed"] {
                    let page = try await api.get("/console/links?\(query)", headers: editor.headers)
                    #expect(page.status == .ok && !page.text.contains("was deleted"), "\(query)")
                    #expect(!page.text.contains("Security notice"))
                }
                editor.read(try await api.get("/console/links/summer", headers: editor.headers))
                let deleted = try await Self.post(api, editor, "/console/links/summer/delete", [:])
                let location = try #require(deleted.headers[.location])
                let notice = try await api.get(location, headers: editor.headers)
                #expect(notice.text.contains("The link summer was deleted."))
            }
        }
    }

    /// The link doctor fetches up to three files a diagnosis: an operator gets 30, then 10 a minute.
    @Test func theDoctorIsThrottledPerOperator() async throws {
        try await ResetWorld.with(.sqlite) { world in
            _ = try await Self.operators(world, [("viewer@example.com", .viewer), ("other@example.com", .viewer)])
            try await world.serve(SmartLinkTests.configure) { api in
                let (viewer, _) = try await ConsoleTests.signIn(api, "viewer@example.com")
                // A host the configuration does not name: the doctor answers without fetching anything.
                let path = "/console/doctor?url=https%3A%2F%2Felsewhere.example%2Fx"
                var statuses: [HTTPResponse.Status] = []
                for _ in 0..<31 { statuses.append(try await api.get(path, headers: viewer.headers).status) }
                #expect(statuses.prefix(30).allSatisfy { $0 == .ok } && statuses.last == .tooManyRequests)
                let refused = try await api.get(path, headers: viewer.headers)
                #expect(refused.headers[.retryAfter] != nil && refused.text.contains("Too many diagnoses"))
                #expect(try await api.get("/console/doctor", headers: viewer.headers).status == .ok, "the form is free")
                let (other, _) = try await ConsoleTests.signIn(api, "other@example.com")
                #expect(try await api.get(path, headers: other.headers).status == .ok, "per operator")
            }
        }
    }
}
