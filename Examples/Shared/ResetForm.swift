/// The reset screen's logic, the same in both reference apps: what the screen shows, what the fields must hold
/// before the app sends them, and what each answer of the server means for the screen. No UI and no network,
/// so Linux tests reach it (Tests/ReferenceAppSupportTests); each app only draws `phase` and `problem`.
struct ResetForm: Equatable, Sendable {
    enum Phase: Equatable, Sendable {
        /// The link's token is being checked with the server.
        case checking
        /// The link is good: the fields are shown for the account with this (masked) address.
        case ready(maskedEmail: String)
        case saving(maskedEmail: String)
        /// The password is changed (and every session ended): sign in with it.
        case done
        /// Used, replaced by a newer link, or past its lifetime: ask for a new one.
        case expired
    }

    private(set) var phase: Phase = .checking
    /// Why the last attempt did not go through, for the person: the fields' problem or the server's reason.
    private(set) var problem: String?

    /// Why the fields cannot be sent yet, or nil.
    static func problem(newPassword: String, confirmation: String) -> String? {
        if newPassword.isEmpty { return "Enter a new password." }
        if newPassword != confirmation { return "The two passwords are not the same." }
        return nil
    }

    /// The server answered the check: the link is good for `maskedEmail`, or (nil) it is not.
    mutating func checked(maskedEmail: String?) {
        phase = maskedEmail.map { .ready(maskedEmail: $0) } ?? .expired
    }

    /// The person pressed Save: true when the fields may be sent (the phase is then `saving`).
    mutating func submit(newPassword: String, confirmation: String) -> Bool {
        guard case .ready(let masked) = phase else { return false }
        problem = Self.problem(newPassword: newPassword, confirmation: confirmation)
        guard problem == nil else { return false }
        phase = .saving(maskedEmail: masked)
        return true
    }

    /// What the server answered the new password.
    mutating func saved(_ answer: Result<Void, ServerAPI.Failure>) {
        guard case .saving(let masked) = phase else { return }
        switch answer {
        case .success:
            phase = .done
            problem = nil
        case .failure(.rejected(let reason)):
            // A password the server refuses (too short, too common): the link is still good; try another.
            phase = .ready(maskedEmail: masked)
            problem = reason.isEmpty ? "The server refused this password." : reason
        case .failure(.invalid):
            phase = .expired
        }
    }
}
