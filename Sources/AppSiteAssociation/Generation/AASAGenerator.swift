import DeepLinksJSON

/// What an apple-app-site-association file should say: the apps, the paths each opens, what each must not
/// open, and whether `#no_universal_links` opts a single link out (F2).
public struct AASAConfiguration: Sendable, Hashable, Codable {
    public struct App: Sendable, Hashable, Codable {
        /// `TEAMID.bundle.id`.
        public var appID: String
        /// Path patterns the app opens (`/post/*`), in order.
        public var paths: [String]
        /// Path patterns the app must not open (`/account/*`), checked before `paths`.
        public var exclusions: [String]

        public init(appID: String, paths: [String], exclusions: [String] = []) {
            self.appID = appID
            self.paths = paths
            self.exclusions = exclusions
        }
    }

    public var apps: [App]
    /// Adds `{"#": "no_universal_links", "exclude": true}` first, so any link can opt out (default true).
    public var fragmentOptOut: Bool
    /// Also writes the legacy form (`"apps": []` and `paths` with `NOT `), which iOS 12 and earlier need.
    public var includeLegacyPaths: Bool
    /// Apps allowed to use the site's passwords (`webcredentials`).
    public var webCredentials: [String]

    public init(
        apps: [App],
        fragmentOptOut: Bool = true,
        includeLegacyPaths: Bool = false,
        webCredentials: [String] = []
    ) {
        self.apps = apps
        self.fragmentOptOut = fragmentOptOut
        self.includeLegacyPaths = includeLegacyPaths
        self.webCredentials = webCredentials
    }
}

/// Writes a components-style apple-app-site-association document (and the legacy `paths` beside it when
/// asked). What it writes always validates: ``generate(_:)`` checks and throws otherwise.
public enum AASAGenerator {
    public struct GenerationError: Error, Sendable, CustomStringConvertible {
        public var diagnostics: [AASADiagnostic]
        public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
    }

    /// The file for a configuration.
    public static func file(_ configuration: AASAConfiguration) -> AppleAppSiteAssociation {
        typealias Components = AppleAppSiteAssociation.Components
        let details = configuration.apps.map { app in
            var components: [Components] = []
            if configuration.fragmentOptOut {
                components.append(
                    Components(
                        fragment: "no_universal_links",
                        exclude: true,
                        comment: "Any link ending in #no_universal_links opens in the browser."
                    )
                )
            }
            components += app.exclusions.map { Components(path: $0, exclude: true) }
            components += app.paths.map { Components(path: $0) }
            // iOS 12 reads appID + paths; iOS 13 and later read components and ignore paths (S4, S9).
            return AppleAppSiteAssociation.Details(
                appID: configuration.includeLegacyPaths ? app.appID : nil,
                appIDs: [app.appID],
                components: components,
                paths: configuration.includeLegacyPaths ? app.exclusions.map { "NOT " + $0 } + app.paths : nil
            )
        }
        return AppleAppSiteAssociation(
            applinks: .init(apps: configuration.includeLegacyPaths ? [] : nil, details: details),
            webcredentials: configuration.webCredentials.isEmpty ? nil : .init(apps: configuration.webCredentials)
        )
    }

    public static func document(_ configuration: AASAConfiguration) -> JSONValue {
        file(configuration).json
    }

    /// The document, checked by the validator: throws when it would have an error.
    public static func validatedDocument(_ configuration: AASAConfiguration) throws(GenerationError) -> JSONValue {
        let document = document(configuration)
        let errors = AASAValidator.validate(document).filter { $0.severity == .error }
        guard errors.isEmpty else { throw GenerationError(diagnostics: errors) }
        return document
    }

    /// The document's text, checked by the validator: throws when it would have an error.
    public static func generate(_ configuration: AASAConfiguration) throws(GenerationError) -> String {
        try validatedDocument(configuration).prettyPrinted() + "\n"
    }
}
