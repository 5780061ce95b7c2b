import Crypto
import DeepLinksSecrets
import DeepLinksServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization

/// An app team's own backend, as external accounts see it: its users, passwords and sessions, and the two
/// hooks (`/deeplinks/lookup`, `/deeplinks/password`) served on a live socket. It checks every hook's
/// signature and refuses a replay, as the documented contract asks of a real backend, and can be told to
/// fail (down, slow) to test what the server does then.
final class TeamBackend: Sendable {
    struct User: Sendable {
        var email: String
        var password: String
        var sessions: Set<String> = []
    }

    struct State: Sendable {
        var users: [String: User] = [:]
        /// Lookups to answer 500 before answering again.
        var failingLookups = 0
        var passwordHookDown = false
        var passwordHookDelay: Duration = .zero
        /// Delayed password calls that have answered.
        var delayedCallsDone = 0
        /// Reasons the password hook refuses the next password with (422).
        var refuse: [String] = []
        var lookups = 0
        var passwordCalls = 0
        var refusedSignatures = 0
        var seenNonces: Set<String> = []
        /// Every body a hook received (to check what the server sends).
        var bodies: [String] = []
    }

    let state = Mutex(State())
    /// The raw hook secrets, newest first; the server signs under each.
    let secrets: [(version: Int, bytes: [UInt8])]

    init(secrets: [(version: Int, bytes: [UInt8])] = [(1, (0..<32).map { _ in UInt8.random(in: 0...255) })]) {
        self.secrets = secrets
    }

    /// `DEEPLINKS_HOOK_SECRETS` for these secrets.
    var secretKeys: SecretKeys { try! SecretKeys(secrets) }

    /// A user as the backend's own sign-up makes one; its subject is its id here.
    @discardableResult
    func addUser(email: String, password: String) -> String {
        state.withLock { state in
            let subject = "user-\(state.users.count + 1)"
            state.users[subject] = User(email: email.lowercased(), password: password)
            return subject
        }
    }

    /// The backend's sign-in: a session token, or nil.
    func signIn(email: String, password: String) -> String? {
        state.withLock { state in
            guard let (subject, user) = state.users.first(where: { $0.value.email == email.lowercased() }),
                user.password == password
            else { return nil }
            let session = UUID().uuidString
            state.users[subject]?.sessions.insert(session)
            return session
        }
    }

    func isSignedIn(_ session: String) -> Bool {
        state.withLock { $0.users.values.contains { $0.sessions.contains(session) } }
    }

    /// Whether `header` signs `body` under one of the secrets within five minutes of now, with a nonce seen
    /// for the first time.
    func accepts(_ header: String?, body: [UInt8], hook: String) -> Bool {
        guard let header else { return false }
        let parts = header.split(separator: ",").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
        guard let stamp = parts.first(where: { $0.first == "t" })?.last, let seconds = Int64(stamp),
            abs(Int64(Date().timeIntervalSince1970) - seconds) <= 300,
            let nonce = parts.first(where: { $0.first == "n" })?.last
        else { return false }
        let signed = Array("\(stamp).\(nonce).hook:\(hook).".utf8) + body
        let expected = secrets.map { secret in
            HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: secret.bytes)).map {
                String(format: "%02x", $0)
            }.joined()
        }
        let given = parts.filter { $0.first == "v2" }.compactMap(\.last)
        guard given.contains(where: expected.contains) else { return false }
        return state.withLock { $0.seenNonces.insert(nonce).inserted }
    }

    /// Runs the hooks on a live socket while `body` runs, with the backend's base address.
    func serve<T: Sendable>(_ body: @Sendable (_ address: String) async throws -> T) async throws -> T {
        let router = Router()
        router.post("/deeplinks/lookup") { request, context -> Response in
            let bytes = Array(buffer: try await request.body.collect(upTo: 65536))
            guard self.accepts(request.headers[HTTPField.Name("Deeplinks-Signature")!], body: bytes, hook: "lookup")
            else {
                self.state.withLock { $0.refusedSignatures += 1 }
                return Response(status: .unauthorized)
            }
            let email = (try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])?["email"] as? String
            let subject: String?? = self.state.withLock { state in
                state.lookups += 1
                state.bodies.append(String(decoding: bytes, as: UTF8.self))
                if state.failingLookups > 0 {
                    state.failingLookups -= 1
                    return .none
                }
                return .some(state.users.first { $0.value.email == email }?.key)
            }
            switch subject {
            case .none: return Response(status: .internalServerError)
            case .some(nil): return Response(status: .notFound)
            case .some(let subject?):
                return Response(
                    status: .ok,
                    headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: #"{"subject":"\#(subject)"}"#))
                )
            }
        }
        router.post("/deeplinks/password") { request, context -> Response in
            let bytes = Array(buffer: try await request.body.collect(upTo: 65536))
            guard self.accepts(request.headers[HTTPField.Name("Deeplinks-Signature")!], body: bytes, hook: "password")
            else {
                self.state.withLock { $0.refusedSignatures += 1 }
                return Response(status: .unauthorized)
            }
            let (down, delay) = self.state.withLock { state in
                state.passwordCalls += 1
                state.bodies.append(String(decoding: bytes, as: UTF8.self))
                return (state.passwordHookDown, state.passwordHookDelay)
            }
            // Counted once the answer is made (and a refusal taken): a test waits for a slow call this way.
            defer { if delay > .zero { self.state.withLock { $0.delayedCallsDone += 1 } } }
            if delay > .zero { try await Task.sleep(for: delay) }
            if down { return Response(status: .badGateway) }
            let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] ?? [:]
            guard let subject = object["subject"] as? String, let password = object["password"] as? String else {
                return Response(status: .badRequest)
            }
            return self.state.withLock { state -> Response in
                if !state.refuse.isEmpty {
                    let reasons = state.refuse.map { "\"\($0)\"" }.joined(separator: ",")
                    state.refuse = []
                    return Response(
                        status: .unprocessableContent,
                        headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(string: #"{"reasons":[\#(reasons)]}"#))
                    )
                }
                guard state.users[subject] != nil else { return Response(status: .notFound) }
                state.users[subject]?.password = password
                if object["endSessions"] as? Bool == true { state.users[subject]?.sessions = [] }
                return Response(status: .noContent)
            }
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await app.test(.live) { client in
            try await body("http://127.0.0.1:\(client.port!)")
        }
    }
}
