import Crypto
import DeepLinksMail
import DeepLinksStorage
import DeepLinksSupport
import Foundation
import Hummingbird
import Logging
import Prometheus
import SQLKit

/// Requests: recorded at once, turned into one live link and its mail by the background job, within the caps.
extension PasswordResetService {
    func request(email submitted: String, client: Client) async throws {
        let email = try AccountService.address(submitted)
        let key = keys.digest(email.normalized, purpose: "reset address", key: keys.current)
        let network = hashed(ClientNetwork.key(client.address))
        let now = clock.milliseconds()
        try await database.withConnection { sql in
            try await PasswordResetStore.insertRequest(
                address: email.normalized,
                addressKey: key,
                clientKey: network,
                at: now,
                on: sql
            )
            // Who asked is known now; which account, only to the background job.
            try await audit("reset.received", account: nil, client: client, on: sql)
        }
        wake()
    }

    /// Turns recorded requests into queued mail: one live token per account (a new one supersedes the
    /// old, T5), at most `mailPerWindow` and `mailPerDay` mails per address and `mailBudgetPerHour` in all.
    /// With external accounts the backend's lookup hook says first which account uses the address.
    func processRequests() async throws {
        // A processed request matters to the daily cap for a day; then ``Pruning`` deletes it.
        while true {
            let now = clock.milliseconds()
            let pending = try await store.pendingRequests(now: now, limit: 50)
            if pending.isEmpty { return }
            for request in pending {
                if let backend {
                    guard
                        try await lookUp(
                            id: request.id,
                            address: request.address,
                            attempts: request.lookupAttempts,
                            backend: backend
                        )
                    else { continue }
                }
                try await process(id: request.id, address: request.address, key: request.addressKey)
            }
        }
    }

    /// Whether `address_key` already had its `mailPerWindow` or `mailPerDay` mails.
    func throttled(_ key: String, now: Int64, on sql: any SQLDatabase) async throws -> Bool {
        func mailedSince(_ start: Int64) async throws -> Int {
            try await PasswordResetStore.mailed(to: key, since: start, on: sql)
        }
        if try await mailedSince(now - settings.windowSeconds * 1000) >= settings.mailPerWindow { return true }
        return try await mailedSince(now - 86_400_000) >= settings.mailPerDay
    }

    private func process(id: Int64, address: String, key: String) async throws {
        let now = clock.milliseconds()
        let token = SecretToken.generate()
        // nil: held back by the hourly budget.
        let mailed: Bool? = try await database.transaction { sql in
            // Mark first: whatever happens next, a request is processed once.
            guard try await PasswordResetStore.claimRequest(id, on: sql),
                let account = try await PasswordResetStore.enabledAccount(email: address, on: sql)
            else { return false }
            let accountID = account.id
            guard try await !throttled(key, now: now, on: sql) else {
                try await audit("reset.throttled", account: accountID, client: nil, on: sql)
                return false
            }
            // The hourly budget holds back mail to accounts younger than a day only: sign-ups made to spend it
            // cannot stop mail to the accounts people already had.
            let isNew = account.createdAt > now - 86_400_000
            if isNew {
                let spent = try await PasswordResetStore.mailsToNewAccounts(
                    since: now - 3_600_000,
                    networkOf: id,
                    on: sql
                )
                guard spent.all < settings.mailBudgetPerHour, spent.network < settings.mailBudgetPerNetworkPerHour
                else {
                    try await audit("reset.budget_exhausted", account: accountID, client: nil, on: sql)
                    return nil
                }
            }
            try await PasswordResetStore.markMailed(id, newAccount: isNew, on: sql)
            try await issue(token, account: account, mail: true, now: now, on: sql)
            return true
        }
        switch mailed {
        case true: wake()
        case false: break
        case nil:
            metrics?.resetBudgetExhausted.increment()
            logger.warning(
                "reset mail held back: the hourly budget for accounts younger than a day is spent",
                metadata: [
                    "budget": "\(settings.mailBudgetPerHour)", "per network": "\(settings.mailBudgetPerNetworkPerHour)",
                ]
            )
        }
    }

    /// Stores `token` as the account's one live token (a new one supersedes the old, T5), and queues the mail
    /// carrying it unless `mail` is false (the backend sends its own: `deliver: "return"`).
    func issue(
        _ token: String,
        account: PasswordResetStore.ResetAccount,
        mail: Bool,
        now: Int64,
        on sql: any SQLDatabase
    ) async throws {
        let display = account.display
        let tokenHash = keys.digest(token, purpose: "reset", key: keys.current)
        try await PasswordResetStore.replaceToken(
            of: account,
            tokenHash: tokenHash,
            keyVersion: keys.current.version,
            expiresAt: now + settings.tokenLifetimeSeconds * 1000,
            at: now,
            on: sql
        )
        if mail {
            let message = ResetMail.reset(
                to: display,
                universal: try links.universal(token: token, email: display),
                scheme: try links.customScheme(token: token, email: display),
                appName: appName,
                lifetimeMinutes: settings.tokenLifetimeSeconds / 60
            )
            try await outbox.enqueue(message, kind: "password-reset", resetTokenHash: tokenHash, on: sql)
        }
        try await audit("reset.requested", account: account.id, client: nil, on: sql)
    }
}
