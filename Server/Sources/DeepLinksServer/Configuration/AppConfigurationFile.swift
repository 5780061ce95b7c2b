/// The configuration file as it is on disk: JSON, every field optional so that validation can say
/// what is missing. See `Server/Examples/demo-app.json`.
public struct AppConfigurationFile: Codable, Sendable, Equatable {
    public struct App: Codable, Sendable, Equatable {
        public var teamID: String?
        public var bundleID: String?
        public var customScheme: String?
        public var domains: [String]?
        public var appStoreID: String?
        /// App Store Connect's provider token (`pt`, digits), for campaign links App Analytics attributes.
        public var appStoreProviderToken: String?
        public var displayName: String?
        /// The app's route manifest (JSON exported by `RouteTable.manifest`), relative to this file.
        public var routes: String?
        /// Paths the app must never open as universal links (`/account/*`), before every route.
        public var excludedPaths: [String]?
        /// The app's website (`https://www.example.com`): where a path of the app opened without it goes.
        public var webURL: String?
        public var android: Android?
        /// The route of ``routes`` that opens the reset screen; without it, the reset journey is off.
        public var passwordReset: PasswordReset?
    }

    /// Which route of the manifest a reset link uses, and which of its parameters carry the secrets.
    public struct PasswordReset: Codable, Sendable, Equatable {
        /// The name of a universal-link route whose token travels in the fragment.
        public var route: String?
        /// The parameter that carries the token: `token` when absent.
        public var tokenParameter: String?
        /// The parameter that carries the address, when the route has one.
        public var emailParameter: String?
        /// Opt-in: a custom-scheme route for a second link in the mail. Off by default: any app can register
        /// a custom scheme, and the token would travel in its link.
        public var customSchemeRoute: String?
    }

    public struct Android: Codable, Sendable, Equatable {
        public var packageName: String?
        public var sha256CertFingerprints: [String]?
        /// Where Android users without the app go: the Play listing by default.
        public var playStoreURL: String?
    }

    public struct Links: Codable, Sendable, Equatable {
        /// The host of short links.
        public var linkDomain: String?
        /// Earlier link domains (a `page.link`-style custom domain moved here): their short links keep working.
        public var otherLinkDomains: [String]?
        /// The host of landing pages, not the link domain.
        public var landingDomain: String?
        /// Hosts smart links may send people to.
        public var allowedDestinationHosts: [String]?
    }

    /// Where the accounts live: `{"mode": "builtin"}` (the default: the server's own accounts) or
    /// `{"mode": "external", "backend": "https://api.example.com", "timeoutSeconds": 5}` (the team's backend
    /// answers the lookup and password hooks; the server's sign-up, sign-in and session endpoints are off).
    public struct Accounts: Codable, Sendable, Equatable {
        public var mode: String?
        public var backend: String?
        public var timeoutSeconds: Int?
    }

    /// One app; or ``apps`` for several (an iPhone app and an App Clip, two brands on one domain ...).
    public var app: App?
    /// Several apps: the first is the primary one (reset links, short links without an `app`).
    public var apps: [App]?
    public var links: Links?
    public var accounts: Accounts?
}
