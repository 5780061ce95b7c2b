import AppSiteAssociation
import Foundation
import Testing

/// One test per diagnostic code of specs/aasa.md §20, with the exact severity and pointer.
@Suite struct ValidatorTests {
    static let app = "ABCDE12345.com.example.app"

    static func diagnostics(_ json: String) -> [AASADiagnostic] {
        AASAValidator.validate(data: Data(json.utf8))
    }

    /// A valid base document with `entry` as its only details entry.
    static func entry(_ entry: String, applinks: String = "") -> String {
        #"{"applinks": {\#(applinks.isEmpty ? "" : applinks + ",") "details": [\#(entry)]}}"#
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var code: String
        var severity: AASADiagnostic.Severity
        var pointer: String
        var json: String
        var testDescription: String { code }
    }

    static let cases: [Case] = [
        Case(code: "AASA_INVALID_JSON", severity: .error, pointer: "", json: #"{"applinks": {"details": [],}}"#),
        Case(code: "AASA_INVALID_JSON", severity: .error, pointer: "", json: "<html>Not found</html>"),
        Case(code: "AASA_INVALID_JSON", severity: .error, pointer: "", json: ""),
        Case(code: "AASA_ROOT_NOT_OBJECT", severity: .error, pointer: "", json: #"[{"applinks": {}}]"#),
        Case(code: "AASA_ROOT_NOT_OBJECT", severity: .error, pointer: "", json: "null"),
        Case(code: "AASA_NO_SERVICE", severity: .error, pointer: "", json: #"{"appLinks": {"details": []}}"#),
        Case(
            code: "AASA_UNKNOWN_KEY",
            severity: .warning,
            pointer: "/appLinks",
            json: #"{"appLinks": {}, "webcredentials": {"apps": []}}"#
        ),
        Case(
            code: "AASA_UNKNOWN_KEY",
            severity: .warning,
            pointer: "/applinks/details/0/components/0/casesensitive",
            json: entry(#"{"appIDs": ["\#(app)"], "components": [{"/": "/a", "casesensitive": false}]}"#)
        ),
        Case(
            code: "AASA_TYPE",
            severity: .error,
            pointer: "/applinks/details/0/components/0/exclude",
            json: entry(#"{"appIDs": ["\#(app)"], "components": [{"/": "/a", "exclude": "true"}]}"#)
        ),
        Case(
            code: "AASA_TYPE",
            severity: .error,
            pointer: "/applinks/details/0/components/0/~1",
            json: entry(#"{"appIDs": ["\#(app)"], "components": [{"/": 5}]}"#)
        ),
        Case(
            code: "AASA_TYPE",
            severity: .error,
            pointer: "/applinks/details",
            json: #"{"applinks": {"details": "all"}}"#
        ),
        Case(
            code: "AASA_TYPE",
            severity: .error,
            pointer: "/applinks/substitutionVariables/food",
            json: entry(
                #"{"appIDs": ["\#(app)"], "components": []}"#,
                applinks: #""substitutionVariables": {"food": "sushi"}"#
            )
        ),
        Case(
            code: "AASA_MISSING_DETAILS",
            severity: .error,
            pointer: "/applinks",
            json: #"{"applinks": {"apps": []}}"#
        ),
        Case(
            code: "AASA_EMPTY_DETAILS",
            severity: .warning,
            pointer: "/applinks/details",
            json: #"{"applinks": {"details": []}}"#
        ),
        Case(
            code: "AASA_LEGACY_DETAILS_DICT",
            severity: .warning,
            pointer: "/applinks/details",
            json: #"{"applinks": {"apps": [], "details": {"\#(app)": {"paths": ["*"]}}}}"#
        ),
        Case(
            code: "AASA_MISSING_APPID",
            severity: .error,
            pointer: "/applinks/details/0",
            json: entry(#"{"components": [{"/": "*"}]}"#)
        ),
        Case(
            code: "AASA_MISSING_APPID",
            severity: .error,
            pointer: "/applinks/details/0/appIDs",
            json: entry(#"{"appIDs": [], "components": [{"/": "*"}]}"#)
        ),
        Case(
            code: "AASA_BOTH_APPID_FORMS",
            severity: .warning,
            pointer: "/applinks/details/0",
            json: entry(#"{"appID": "\#(app)", "appIDs": ["\#(app)"], "components": [{"/": "*"}]}"#)
        ),
        Case(
            code: "AASA_APPID_FORMAT",
            severity: .error,
            pointer: "/applinks/details/0/appIDs/0",
            json: entry(#"{"appIDs": ["ABCD1234.com.apple.wwdc"], "components": [{"/": "*"}]}"#)
        ),
        Case(
            code: "AASA_APPID_FORMAT",
            severity: .error,
            pointer: "/webcredentials/apps/0",
            json: #"{"webcredentials": {"apps": ["abcde12345.com.example.app"]}}"#
        ),
        Case(
            code: "AASA_DUPLICATE_APPID",
            severity: .warning,
            pointer: "/applinks/details/1",
            json:
                #"{"applinks": {"details": [{"appIDs": ["\#(app)"], "components": [{"/": "/a"}]}, {"appIDs": ["\#(app)"], "components": [{"/": "/b"}]}]}}"#
        ),
        Case(
            code: "AASA_APPS_NOT_EMPTY",
            severity: .error,
            pointer: "/applinks/apps",
            json: entry(#"{"appIDs": ["\#(app)"], "components": [{"/": "*"}]}"#, applinks: #""apps": ["\#(app)"]"#)
        ),
        Case(
            code: "AASA_NO_RULES",
            severity: .warning,
            pointer: "/applinks/details/0",
            json: entry(#"{"appIDs": ["\#(app)"]}"#)
        ),
        Case(
            code: "AASA_PATHS_IGNORED",
            severity: .warning,
            pointer: "/applinks/details/0/paths",
            json: entry(#"{"appIDs": ["\#(app)"], "paths": ["*"], "components": [{"/": "/a"}]}"#)
        ),
        Case(
            code: "AASA_QUERY_PREDICATE_TYPE",
            severity: .error,
            pointer: "/applinks/details/0/components/0/?/flag",
            json: entry(#"{"appIDs": ["\#(app)"], "components": [{"?": {"a": "1", "flag": true}}]}"#)
        ),
        Case(
            code: "AASA_SUBST_NAME",
            severity: .error,
            pointer: "/applinks/substitutionVariables/a$b",
            json: entry(
                #"{"appIDs": ["\#(app)"], "components": []}"#,
                applinks: #""substitutionVariables": {"a$b": ["x"]}"#
            )
        ),
        Case(
            code: "AASA_SUBST_NESTED",
            severity: .error,
            pointer: "/applinks/substitutionVariables/a/0",
            json: entry(
                #"{"appIDs": ["\#(app)"], "components": []}"#,
                applinks: #""substitutionVariables": {"a": ["$(lang)"]}"#
            )
        ),
        Case(
            code: "AASA_SUBST_UNDEFINED",
            severity: .error,
            pointer: "/applinks/details/0/components/0/~1",
            json: entry(#"{"appIDs": ["\#(app)"], "components": [{"/": "/$(any)/x"}]}"#)
        ),
        Case(
            code: "AASA_SUBST_UNDEFINED",
            severity: .error,
            pointer: "/applinks/details/0/components/0/?/f",
            json: entry(
                #"{"appIDs": ["\#(app)"], "components": [{"?": {"f": "$(Food)"}}]}"#,
                applinks: #""substitutionVariables": {"food": ["x"]}"#
            )
        ),
        Case(
            code: "AASA_SUBST_UNTERMINATED",
            severity: .error,
            pointer: "/applinks/details/0/components/0/~1",
            json: entry(#"{"appIDs": ["\#(app)"], "components": [{"/": "/$(lang"}]}"#)
        ),
        Case(
            code: "AASA_SUBST_EMPTY",
            severity: .warning,
            pointer: "/applinks/substitutionVariables/food",
            json: entry(
                #"{"appIDs": ["\#(app)"], "components": []}"#,
                applinks: #""substitutionVariables": {"food": []}"#
            )
        ),
        Case(
            code: "AASA_SUBST_EMPTY_VALUE",
            severity: .warning,
            pointer: "/applinks/substitutionVariables/food/1",
            json: entry(
                #"{"appIDs": ["\#(app)"], "components": []}"#,
                applinks: #""substitutionVariables": {"food": ["a", ""]}"#
            )
        ),
        Case(
            code: "AASA_SUBST_SHADOWS_PREDEFINED",
            severity: .warning,
            pointer: "/applinks/substitutionVariables/lang",
            json: entry(
                #"{"appIDs": ["\#(app)"], "components": []}"#,
                applinks: #""substitutionVariables": {"lang": ["en"]}"#
            )
        ),
        Case(
            code: "AASA_UNREACHABLE_RULE",
            severity: .warning,
            pointer: "/applinks/details/0/components/1",
            json: entry(#"{"appIDs": ["\#(app)"], "components": [{"/": "*"}, {"/": "/never"}]}"#)
        ),
        Case(
            code: "AASA_UNREACHABLE_RULE",
            severity: .warning,
            pointer: "/applinks/details/0/paths/1",
            json: entry(#"{"appIDs": ["\#(app)"], "paths": ["*", "/never"]}"#)
        ),
        Case(
            code: "AASA_HASH_IN_PATH",
            severity: .warning,
            pointer: "/applinks/details/0/components/0/~1",
            json: entry(#"{"appIDs": ["\#(app)"], "components": [{"/": "/#/market/*"}]}"#)
        ),
        Case(
            code: "AASA_QUERY_IN_PATH",
            severity: .warning,
            pointer: "/applinks/details/0/paths/0",
            json: entry(#"{"appIDs": ["\#(app)"], "paths": ["/services/detail/?id=*"]}"#)
        ),
    ]

    @Test(arguments: cases)
    func eachDiagnosticHasItsCodeSeverityAndPointer(_ case_: Case) {
        let found = Self.diagnostics(case_.json)
        let match = found.first { $0.code.rawValue == case_.code }
        #expect(match?.severity == case_.severity, "\(found)")
        #expect(match?.pointer == case_.pointer, "\(found)")
        #expect(found.isValid == !found.contains { $0.severity == .error })
    }

    @Test func AASA_TOO_LARGE_is_an_error_above_131072_bytes_and_a_warning_above_128000() {
        func sized(_ size: Int) -> String {
            let head = #"{"applinks": {"details": [{"appIDs": ["\#(Self.app)"], "components": [{"/": "*", "comment": ""#
            let tail = #""}]}]}}"#
            return head + String(repeating: "x", count: size - head.utf8.count - tail.utf8.count) + tail
        }
        let big = Self.diagnostics(sized(140_000))
        #expect(big.first { $0.code.rawValue == "AASA_TOO_LARGE" }?.severity == .error)
        let near = Self.diagnostics(sized(129_000))
        #expect(near.first { $0.code.rawValue == "AASA_TOO_LARGE" }?.severity == .warning)
        #expect(Self.diagnostics(sized(127_000)).allSatisfy { $0.code.rawValue != "AASA_TOO_LARGE" })
    }

    @Test func AASA_BOM_is_a_warning_and_the_file_is_still_read() {
        let found = AASAValidator.validate(
            data: Data([0xEF, 0xBB, 0xBF])
                + Data(Self.entry(#"{"appIDs": ["\#(Self.app)"], "components": [{"/": "*"}]}"#).utf8)
        )
        #expect(found.map(\.code.rawValue) == ["AASA_BOM"])
        #expect(found.isValid)
    }

    @Test func applesDocumentedExampleIsValidWithoutDiagnostics() {
        let json = #"""
            {"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app", "ABCDE12345.com.example.app2"],
                "components": [
                  {"#": "no_universal_links", "exclude": true, "comment": "Matches any URL with a fragment that equals no_universal_links and instructs the system not to open it as a universal link."},
                  {"/": "/buy/*", "comment": "Matches any URL with a path that starts with /buy/."},
                  {"/": "/help/website/*", "exclude": true, "comment": "Matches any URL with a path that starts with /help/website/ and instructs the system not to open it as a universal link."},
                  {"/": "/help/*", "?": {"articleNumber": "????"}, "comment": "Matches any URL with a path that starts with /help/ and that has a query item with name 'articleNumber' and a value of exactly four characters."}
                ]}]},
             "webcredentials": {"apps": ["ABCDE12345.com.example.app"]},
             "appclips": {"apps": ["ABCDE12345.com.example.MyApp.Clip"]}}
            """#
        #expect(Self.diagnostics(json).isEmpty)
    }

    @Test func everyProblemIsReportedNotJustTheFirst() {
        let json = Self.entry(#"{"appIDs": ["bad"], "components": [{"/": 1, "?": {"x": 2}, "exclude": "no"}]}"#)
        let codes = Self.diagnostics(json).map(\.code.rawValue)
        #expect(codes.filter { $0 == "AASA_TYPE" }.count == 2)
        #expect(codes.contains("AASA_APPID_FORMAT"))
        #expect(codes.contains("AASA_QUERY_PREDICATE_TYPE"))
    }

    @Test func diagnosticsReadAsASentence() {
        let found = Self.diagnostics(
            Self.entry(#"{"appIDs": ["\#(Self.app)"], "components": [{"?": {"flag": true}}]}"#)
        )
        #expect(
            found.map(\.description) == [
                "error AASA_QUERY_PREDICATE_TYPE at /applinks/details/0/components/0/?/flag: query value is a boolean: iOS then ignores the whole '?' dictionary and the rule matches any query"
            ]
        )
    }
}
