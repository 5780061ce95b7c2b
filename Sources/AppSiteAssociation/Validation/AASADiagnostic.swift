/// One finding of the validator: a stable code (listed in <doc:HowIOSReadsAssociationFiles>), its severity, where (a JSON pointer)
/// and a message for a person.
public struct AASADiagnostic: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Codable {
        case error, warning
    }

    /// A stable code: the names below are the Swift spellings, the raw values the strings tools and the JSON
    /// output have always shown.
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let appidFormat = Code(rawValue: "AASA_APPID_FORMAT")
        public static let appsNotEmpty = Code(rawValue: "AASA_APPS_NOT_EMPTY")
        public static let bom = Code(rawValue: "AASA_BOM")
        public static let bothAppidForms = Code(rawValue: "AASA_BOTH_APPID_FORMS")
        public static let duplicateAppid = Code(rawValue: "AASA_DUPLICATE_APPID")
        public static let emptyDetails = Code(rawValue: "AASA_EMPTY_DETAILS")
        public static let hashInPath = Code(rawValue: "AASA_HASH_IN_PATH")
        public static let invalidJson = Code(rawValue: "AASA_INVALID_JSON")
        public static let legacyDetailsDict = Code(rawValue: "AASA_LEGACY_DETAILS_DICT")
        public static let missingAppid = Code(rawValue: "AASA_MISSING_APPID")
        public static let missingDetails = Code(rawValue: "AASA_MISSING_DETAILS")
        public static let noRules = Code(rawValue: "AASA_NO_RULES")
        public static let noService = Code(rawValue: "AASA_NO_SERVICE")
        public static let pathsIgnored = Code(rawValue: "AASA_PATHS_IGNORED")
        public static let queryInPath = Code(rawValue: "AASA_QUERY_IN_PATH")
        public static let queryPredicateType = Code(rawValue: "AASA_QUERY_PREDICATE_TYPE")
        public static let rootNotObject = Code(rawValue: "AASA_ROOT_NOT_OBJECT")
        public static let substEmpty = Code(rawValue: "AASA_SUBST_EMPTY")
        public static let substEmptyValue = Code(rawValue: "AASA_SUBST_EMPTY_VALUE")
        public static let substName = Code(rawValue: "AASA_SUBST_NAME")
        public static let substNested = Code(rawValue: "AASA_SUBST_NESTED")
        public static let substShadowsPredefined = Code(rawValue: "AASA_SUBST_SHADOWS_PREDEFINED")
        public static let substUndefined = Code(rawValue: "AASA_SUBST_UNDEFINED")
        public static let substUnterminated = Code(rawValue: "AASA_SUBST_UNTERMINATED")
        public static let tooLarge = Code(rawValue: "AASA_TOO_LARGE")
        public static let wrongType = Code(rawValue: "AASA_TYPE")
        public static let unknownKey = Code(rawValue: "AASA_UNKNOWN_KEY")
        public static let unreachableRule = Code(rawValue: "AASA_UNREACHABLE_RULE")
        public static let assetLinksFingerprint = Code(rawValue: "ASSETLINKS_FINGERPRINT")
        public static let assetLinksInvalidJson = Code(rawValue: "ASSETLINKS_INVALID_JSON")
        public static let assetLinksNamespace = Code(rawValue: "ASSETLINKS_NAMESPACE")
        public static let assetLinksNoAppLinks = Code(rawValue: "ASSETLINKS_NO_APP_LINKS")
        public static let assetLinksPackageName = Code(rawValue: "ASSETLINKS_PACKAGE_NAME")
        public static let assetLinksRelation = Code(rawValue: "ASSETLINKS_RELATION")
        public static let assetLinksRootNotArray = Code(rawValue: "ASSETLINKS_ROOT_NOT_ARRAY")
        public static let assetLinksWrongType = Code(rawValue: "ASSETLINKS_TYPE")
        public static let assetLinksUnknownKey = Code(rawValue: "ASSETLINKS_UNKNOWN_KEY")
    }

    public var code: Code
    public var severity: Severity
    public var pointer: String
    public var message: String

    public init(_ code: Code, _ severity: Severity, _ pointer: String, _ message: String) {
        self.code = code
        self.severity = severity
        self.pointer = pointer
        self.message = message
    }

    public var description: String { "\(severity) \(code.rawValue) at \(pointer.isEmpty ? "/" : pointer): \(message)" }
}

extension Array where Element == AASADiagnostic {
    /// A document is valid exactly when it has no error; warnings are allowed.
    public var isValid: Bool { !contains { $0.severity == .error } }
}
