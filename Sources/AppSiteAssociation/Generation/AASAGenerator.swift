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

    public init(apps: [App], fragmentOptOut: Bool = true, includeLegacyPaths: Bool = false, webCredentials: [String] = []) {
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

    public static func document(_ configuration: AASAConfiguration) -> JSONValue {
        var details: [JSONValue] = []
        for app in configuration.apps {
            var components: [JSONValue] = []
            if configuration.fragmentOptOut {
                components.append(.object([
                    "#": .string("no_universal_links"),
                    "exclude": .bool(true),
                    "comment": .string("Any link ending in #no_universal_links opens in the browser."),
                ]))
            }
            components += app.exclusions.map { .object(["/": .string($0), "exclude": .bool(true)]) }
            components += app.paths.map { .object(["/": .string($0)]) }
            var entry: [String: JSONValue] = ["appIDs": .array([.string(app.appID)]), "components": .array(components)]
            if configuration.includeLegacyPaths {
                // iOS 12 reads appID + paths; iOS 13 and later read components and ignore paths (S4, S9).
                entry["appID"] = .string(app.appID)
                entry["paths"] = .array(app.exclusions.map { .string("NOT " + $0) } + app.paths.map { .string($0) })
            }
            details.append(.object(entry))
        }
        var applinks: [String: JSONValue] = ["details": .array(details)]
        if configuration.includeLegacyPaths { applinks["apps"] = .array([]) }
        var root: [String: JSONValue] = ["applinks": .object(applinks)]
        if !configuration.webCredentials.isEmpty {
            root["webcredentials"] = .object(["apps": .array(configuration.webCredentials.map { .string($0) })])
        }
        return .object(root)
    }

    /// The document's text, checked by the validator: throws when it would have an error.
    public static func generate(_ configuration: AASAConfiguration) throws(GenerationError) -> String {
        let document = document(configuration)
        let errors = AASAValidator.validate(document).filter { $0.severity == .error }
        guard errors.isEmpty else { throw GenerationError(diagnostics: errors) }
        return document.prettyPrinted() + "\n"
    }
}
