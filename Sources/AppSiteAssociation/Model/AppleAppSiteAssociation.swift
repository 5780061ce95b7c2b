/// An apple-app-site-association file as iOS reads it (<doc:HowIOSReadsAssociationFiles>, "Document structure"): every service, both shapes of
/// `details`, legacy `paths` and `apps`, `defaults` at both levels and substitution variables.
///
/// ``init(_:)`` reads leniently, as iOS does: a value of the wrong type is left out (the validator reports it),
/// and a query dictionary with a non-string value is kept as ``Components/Query/ignored`` (Q9).
/// ``json`` writes the file back.
public struct AppleAppSiteAssociation: Sendable, Hashable {
    public var applinks: AppLinks?
    public var webcredentials: AppList?
    public var appclips: AppList?
    public var activitycontinuation: AppList?

    public init(
        applinks: AppLinks? = nil,
        webcredentials: AppList? = nil,
        appclips: AppList? = nil,
        activitycontinuation: AppList? = nil
    ) {
        self.applinks = applinks
        self.webcredentials = webcredentials
        self.appclips = appclips
        self.activitycontinuation = activitycontinuation
    }

    /// `{"apps": [...]}`, the shape of `webcredentials`, `appclips` and `activitycontinuation` (S10).
    public struct AppList: Sendable, Hashable {
        public var apps: [String]

        public init(apps: [String]) {
            self.apps = apps
        }
    }

    public struct AppLinks: Sendable, Hashable {
        /// The legacy key, present and empty for iOS 9–12 (S4); nil when absent.
        public var apps: [String]?
        public var details: [Details]
        /// Whether `details` was the oldest form, a dictionary keyed by app ID (S6).
        public var detailsAsDictionary: Bool
        /// Domain-level defaults (DF1).
        public var defaults: Components?
        public var substitutionVariables: [String: [String]]

        public init(
            apps: [String]? = nil,
            details: [Details],
            detailsAsDictionary: Bool = false,
            defaults: Components? = nil,
            substitutionVariables: [String: [String]] = [:]
        ) {
            self.apps = apps
            self.details = details
            self.detailsAsDictionary = detailsAsDictionary
            self.defaults = defaults
            self.substitutionVariables = substitutionVariables
        }
    }

    public struct Details: Sendable, Hashable {
        public var appID: String?
        public var appIDs: [String]?
        /// Rules in order; when present, `paths` is ignored (S9).
        public var components: [Components]?
        /// Legacy path patterns, `NOT ` marking an exclusion (L2).
        public var paths: [String]?
        /// App-level defaults (DF1).
        public var defaults: Components?

        public init(
            appID: String? = nil,
            appIDs: [String]? = nil,
            components: [Components]? = nil,
            paths: [String]? = nil,
            defaults: Components? = nil
        ) {
            self.appID = appID
            self.appIDs = appIDs
            self.components = components
            self.paths = paths
            self.defaults = defaults
        }

        /// Every app the entry names: `appID` and `appIDs` together (R7).
        public var apps: Set<String> {
            Set((appID.map { [$0] } ?? []) + (appIDs ?? []))
        }

        /// The rules iOS evaluates: `components`, or the legacy `paths` as path-only rules (L6).
        public var rules: [Components] {
            if let components { return components }
            return (paths ?? []).map { path in
                path.hasPrefix("NOT ")
                    ? Components(path: String(path.dropFirst(4)), exclude: true) : Components(path: path)
            }
        }
    }

    /// One rule (a Components object), also the shape of `defaults` (DF2). nil means "not set here".
    public struct Components: Sendable, Hashable {
        public enum Query: Sendable, Hashable {
            /// Compared with the whole raw query (Q2).
            case pattern(String)
            /// Item name → value pattern (Q4).
            case items([String: String])
            /// A dictionary with a non-string value: iOS ignores the whole `?` (Q9).
            case ignored
        }

        public var path: String?
        public var query: Query?
        public var fragment: String?
        public var exclude: Bool?
        public var comment: String?
        public var caseSensitive: Bool?
        public var percentEncoded: Bool?

        public init(
            path: String? = nil,
            query: Query? = nil,
            fragment: String? = nil,
            exclude: Bool? = nil,
            comment: String? = nil,
            caseSensitive: Bool? = nil,
            percentEncoded: Bool? = nil
        ) {
            self.path = path
            self.query = query
            self.fragment = fragment
            self.exclude = exclude
            self.comment = comment
            self.caseSensitive = caseSensitive
            self.percentEncoded = percentEncoded
        }

        /// `self` over `fallback`, key by key: the more specific level wins (DF1).
        func overriding(_ fallback: Components?) -> Components {
            guard let fallback else { return self }
            return Components(
                path: path ?? fallback.path,
                query: query ?? fallback.query,
                fragment: fragment ?? fallback.fragment,
                exclude: exclude ?? fallback.exclude,
                comment: comment,
                caseSensitive: caseSensitive ?? fallback.caseSensitive,
                percentEncoded: percentEncoded ?? fallback.percentEncoded
            )
        }
    }
}
