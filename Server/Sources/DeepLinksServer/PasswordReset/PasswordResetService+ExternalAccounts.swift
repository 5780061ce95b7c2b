import DeepLinksJSON
import DeepLinksSecrets
import DeepLinksStorage
import Foundation
import HTTPTypes
import Logging
import Prometheus

/// External accounts (``ExternalAccounts``): the team's backend says which account uses an address and sets
/// passwords; the backend may also ask for links, end them and consume tokens itself. The tokens, throttles,
/// notice and audit are the built-in journey's, on a row per backend user (its `subject`).
extension PasswordResetService {
    /// External accounts: asks the backend which subject uses `address` and records the answer (no subject:
    /// the address is nobody's here either). False when the backend gave no answer: the request waits
    /// (2 s, 4 s ... at most 5 min) and is tried again, and after ``PasswordResetSettings/lookupAttempts`` it
    /// is dropped; the person who asked saw the same answer as always and never sees this.
    func lookUp(id: Int64, address: String, attempts: Int64, backend: AccountsBackend) async throws -> Bool {
        let subject: String?
        do {
            subject = try await backend.lookup(email: address)
        } catch {
            let attempt = attempts + 1
            let giveUp = attempt >= settings.lookupAttempts
            let next = clock.milliseconds() + min(Int64(1) << min(attempt, 9), 300) * 1000
            try await database.withConnection { sql in
                try await PasswordResetStore.retryLookup(id, attempt: attempt, next: next, giveUp: giveUp, on: sql)
                if giveUp { try await audit("reset.lookup_abandoned", account: nil, client: nil, on: sql) }
            }
            metrics?.hookFailures.increment()
            logger.warning(
                giveUp
                    ? "reset request dropped: the lookup hook failed every time"
                    : "reset request waits for the lookup hook",
                metadata: ["attempt": "\(attempt)", "reason": "\(error)"]
            )
            return false
        }
        try await database.withConnection { sql in
            if let subject {
                _ = try await record(subject: subject, email: address, display: address, on: sql)
            } else {
                try await AccountStore.deleteAccount(email: address, on: sql)
            }
        }
        return true
    }

    /// External accounts: the row that stands for the backend's user `subject`, now at `email`. The address
    /// is the subject's alone (a row another subject had for it goes), and an address change ends the
    /// subject's earlier links (the credential generation moves). Such rows have no password and are
    /// never new (the hourly budget of new accounts is for sign-ups, which the backend owns).
    private func record(subject: String, email: String, display: String, on sql: DatabaseConnection) async throws
        -> PasswordResetStore.ResetAccount
    {
        try await AccountStore.recordSubject(subject, email: email, display: display, on: sql)
    }

    /// The backend's password hook sets the password and ends the sessions. The token is held while the
    /// hook runs (two confirmations never both reach the backend; a crashed server's hold lapses after the
    /// timeout), and consumed only after a 2xx. A hook that fails or times out releases the token, which
    /// still works, and answers 503 with `Retry-After`; a password the backend refuses answers 422 with its
    /// reasons, the token still live (C4).
    func confirmAtBackend(_ live: LiveToken, password: String, backend: AccountsBackend, client: Client)
        async throws
    {
        guard let subject = live.subject else { throw Self.invalidToken }
        let now = clock.milliseconds()
        let hold = Int64(backend.accounts.timeoutSeconds + 5)
        guard try await store.hold(live.id, tokenHash: live.digest, until: now + hold * 1000, now: now) else {
            throw APIError(
                status: .conflict,
                code: .resetInProgress,
                fields: ["reason": .string("this link is being used in another request; try again in a moment")],
                headers: [.retryAfter: String(hold)]
            )
        }
        func release() async throws {
            try await store.release(live.id)
        }
        let answer: AccountsBackend.PasswordAnswer
        do {
            answer = try await backend.setPassword(subject: subject, password: password)
        } catch {
            try await release()
            metrics?.hookFailures.increment()
            logger.warning("password not changed: the password hook failed", metadata: ["reason": "\(error)"])
            try await audit("reset.backend_unavailable", account: live.accountID, client: client)
            throw APIError(
                status: .serviceUnavailable,
                code: .accountsBackendUnavailable,
                fields: ["reason": .string("the account service did not answer; the link still works, try again")],
                headers: [.retryAfter: "5"]
            )
        }
        if case .refused(let reasons) = answer {
            try await release()
            // Only reason codes go back, never text the backend might have filled with the password.
            let codes = reasons.filter {
                $0.utf8.count <= 40 && $0.allSatisfy { $0.isASCII && ($0.isLowercase || $0 == "_") }
            }
            throw APIError(
                status: .unprocessableContent,
                code: .weakPassword,
                fields: ["reasons": .array(codes.map { .string($0) })]
            )
        }
        // The backend changed the password: the token is spent whatever happened to it meanwhile.
        try await database.transaction { sql in
            try await PasswordResetStore.delete(live.id, on: sql)
            try await AccountStore.moveGeneration(of: live.accountID, on: sql)
            try await completed(live, client: client, on: sql)
        }
        wake()
    }

    /// The backend's way to confirm: the app posts the new password to the backend, which calls this with
    /// the token and gets the subject and address exactly once (the same conditional delete as ``confirm``).
    /// The backend sets the password and ends the sessions; the notice goes out from here.
    func consume(token: String, email: String?, client: Client) async throws -> (subject: String, email: String) {
        guard let live = try await live(token, email: email, client: client, event: "reset.consuming"),
            let subject = live.subject
        else { throw Self.invalidToken }
        try await spend(live, settingPassword: nil, client: client)
        return (subject, live.display)
    }

    /// The backend changed the subject's password, address or standing on its own (a signed-in change, an
    /// account disabled or deleted): every live link of the subject dies (T3). Unknown subjects are no error.
    func revoke(subject: String) async throws {
        guard ExternalAccounts.isSubject(subject) else {
            throw APIError.malformed("'subject' must be 1 to 255 characters without control characters")
        }
        try await database.transaction { sql in
            for id in try await AccountStore.moveGeneration(ofSubject: subject, on: sql) {
                try await PasswordResetStore.deleteAll(of: id, on: sql)
                try await audit("reset.revoked", account: id, client: nil, on: sql)
            }
        }
    }

    /// How a link the backend asks for reaches its user.
    enum Delivery: String, Sendable {
        /// We mail it, as for a request on the page (the per-address limits hold).
        case mail
        /// We answer with the link; the backend puts it in its own mail.
        case `return`
    }

    /// The backend's way in: a token for its user `subject` at `email` (the backend vouches for both), which
    /// supersedes the subject's earlier link. Answers the link and its expiry (milliseconds since 1970).
    func issueLink(subject: String, email submitted: String, deliver: Delivery) async throws -> (
        link: String, expiresAt: Int64
    ) {
        guard ExternalAccounts.isSubject(subject) else {
            throw APIError.malformed("'subject' must be 1 to 255 characters without control characters")
        }
        let email = try AccountService.address(submitted)
        let key = keys.digest(email.normalized, purpose: "reset address", key: keys.current)
        let now = clock.milliseconds()
        let token = SecretToken.generate()
        try await database.transaction { sql in
            let account = try await record(
                subject: subject,
                email: email.normalized,
                display: email.display,
                on: sql
            )
            if deliver == .mail {
                guard try await !throttled(key, now: now, on: sql) else {
                    throw APIError.tooManyRequests(retryAfter: Int(settings.windowSeconds))
                }
                try await PasswordResetStore.insertBackendRequest(addressKey: key, at: now, on: sql)
            }
            try await issue(token, account: account, mail: deliver == .mail, now: now, on: sql)
        }
        if deliver == .mail { wake() }
        return (try links.universal(token: token, email: email.display), now + settings.tokenLifetimeSeconds * 1000)
    }
}
