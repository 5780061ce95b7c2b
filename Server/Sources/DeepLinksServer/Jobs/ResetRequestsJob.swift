import DeepLinksSecrets
import DeepLinksStorage
import Foundation
import Logging
import Prometheus

/// Picks up the requests ``PasswordResetService/request(email:client:)`` records (`password_reset_requests`) and
/// turns each into one live reset token and its mail in `mail_outbox` (for ``MailSender``), within the caps.
struct ResetRequestsJob: BackgroundJob {
    let service: PasswordResetService
    var name: String { "password-reset requests" }

    func run() async throws { try await service.processRequests() }
}

extension PasswordResetService {
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
    func throttled(_ key: String, now: Int64, on sql: DatabaseConnection) async throws -> Bool {
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
}
