import DeepLinksSupport

/// The reset journey's policy. Every default is the secure one (<doc:ResetSecurity>).
public struct PasswordResetSettings: Sendable {
    /// How long a reset link lives: 30 minutes by default, 5 to 120 allowed (T4).
    public var tokenLifetimeSeconds: Int64 = 30 * 60
    /// The shortest time a reset request takes to answer, whatever it found (R2).
    public var requestFloorMilliseconds: Int64 = 100
    /// Mail per submitted address: at most `perWindow` in `windowSeconds`, `perDay` in 24 h (R3, R4).
    public var mailPerWindow = 3
    public var windowSeconds: Int64 = 15 * 60
    public var mailPerDay = 10
    /// Failed attempts against one live token (or one account's token, named by address) before it dies (T7).
    public var failedAttemptCap = 5
    /// Per-IP token buckets: requests for a link, and checks or confirmations of one (R5).
    public var requestBurst = 20
    public var requestsPerMinute = 10
    public var confirmBurst = 20
    public var confirmsPerMinute = 10
    /// Per-network buckets for the built-in accounts: sign-ups, and sign-ins (each address has its own too).
    public var signUpBurst = 10
    public var signUpsPerMinute = 1
    public var signInBurst = 20
    public var signInsPerMinute = 10
    /// Reset mail sent per hour to accounts younger than a day, by every server together (R5's global budget),
    /// and of those, asked for from one client network (a sign-up flood from one place spends its own share).
    public var mailBudgetPerHour = 1000
    public var mailBudgetPerNetworkPerHour = 50
    /// External accounts: lookups tried for one reset request before it is dropped (2 s, 4 s ... 5 min apart:
    /// about 25 minutes in all).
    public var lookupAttempts: Int64 = 12
    public var passwordPolicy = PasswordPolicy()
    public var hasher = PasswordHasher()

    public init() {}

    public func validated() throws(ConfigurationError) -> Self {
        guard (5 * 60...120 * 60).contains(tokenLifetimeSeconds) else {
            throw ConfigurationError(
                setting: "reset token lifetime",
                reason: "\(tokenLifetimeSeconds / 60) min is outside 5 to 120 min"
            )
        }
        guard passwordPolicy.minimumLength >= 8, passwordPolicy.maximumLength >= 64 else {
            throw ConfigurationError(
                setting: "password policy",
                reason: "the minimum must be at least 8 and the maximum at least 64 code points"
            )
        }
        return self
    }
}
