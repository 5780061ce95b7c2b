import AppSiteAssociation
import DeepLinksJSON
import Foundation
import Testing

/// Matching rules of specs/aasa.md, each test named after the rule it checks.
@Suite struct MatcherTests {
    static let app = "ABCDE12345.com.example.app"
    static let other = "ZYXWV98765.com.example.other"

    /// A file with one details entry for `app` holding `components`, plus optional applinks-level extras.
    static func file(_ components: String, extras: String = "", entryExtras: String = "") -> AASAMatcher {
        let json =
            #"{"applinks": {\#(extras.isEmpty ? "" : extras + ",") "details": [{"appIDs": ["\#(app)"]\#(entryExtras.isEmpty ? "" : "," + entryExtras), "components": \#(components)}]}}"#
        return matcher(json)
    }

    static func matcher(_ json: String) -> AASAMatcher {
        AASAMatcher(document: try! JSONValue.parse(Data(json.utf8)))
    }

    static func verdict(_ matcher: AASAMatcher, _ url: String, app: String = app) -> AASAVerdict {
        matcher.decide(appID: app, url: url).verdict
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var rule: String
        var components: String
        var url: String
        var expected: AASAVerdict
        var extras: String = ""
        var entryExtras: String = ""
        var testDescription: String { "\(rule): \(components) \(url)" }
    }

    static let cases: [Case] = [
        // §5 evaluating one rule
        Case(
            rule: "M1 first matching rule decides, exclude stops",
            components: #"[{"/": "/buy/*", "exclude": true}, {"/": "*"}]"#,
            url: "https://example.com/buy/1",
            expected: .exclude
        ),
        Case(
            rule: "M1 later rules apply when earlier ones miss",
            components: #"[{"/": "/buy/*", "exclude": true}, {"/": "*"}]"#,
            url: "https://example.com/sell/1",
            expected: .match
        ),
        Case(
            rule: "M2 all specified components must match",
            components: #"[{"/": "/a", "?": "x=1"}]"#,
            url: "https://example.com/a?x=2",
            expected: .nomatch
        ),
        Case(
            rule: "M2 all specified components match",
            components: ##"[{"/": "/a", "?": "x=1", "#": "f"}]"##,
            url: "https://example.com/a?x=1#f",
            expected: .match
        ),
        Case(
            rule: "M3 unspecified components match anything",
            components: #"[{"/": "/a"}]"#,
            url: "https://example.com/a?anything=1#frag",
            expected: .match
        ),
        Case(
            rule: "M4 absent fragment is empty: '' matches",
            components: ##"[{"#": ""}]"##,
            url: "https://example.com/a",
            expected: .match
        ),
        Case(
            rule: "M4 absent fragment is empty: '?*' does not",
            components: ##"[{"#": "?*"}]"##,
            url: "https://example.com/a",
            expected: .nomatch
        ),
        Case(
            rule: "M5 comment is ignored",
            components: #"[{"/": "/a", "comment": "hello"}]"#,
            url: "https://example.com/a",
            expected: .match
        ),
        Case(
            rule: "M6 a rule with no URL keys matches everything",
            components: #"[{"comment": "all"}]"#,
            url: "https://example.com/x/y?z#w",
            expected: .match
        ),
        Case(
            rule: "M6 an empty exclude rule excludes everything",
            components: #"[{"exclude": true}, {"/": "*"}]"#,
            url: "https://example.com/x",
            expected: .exclude
        ),
        Case(
            rule: "M7 exclude defaults to false",
            components: #"[{"/": "/a"}]"#,
            url: "https://example.com/a",
            expected: .match
        ),
        // §6 pattern language
        Case(
            rule: "P1 star matches zero characters",
            components: #"[{"/": "/a*"}]"#,
            url: "https://example.com/a",
            expected: .match
        ),
        Case(
            rule: "P2 question mark matches exactly one character",
            components: #"[{"/": "/a?c"}]"#,
            url: "https://example.com/ac",
            expected: .nomatch
        ),
        Case(
            rule: "P2 question mark matches one character",
            components: #"[{"/": "/a?c"}]"#,
            url: "https://example.com/abc",
            expected: .match
        ),
        Case(
            rule: "P3 ?* needs one or more",
            components: #"[{"/": "/a/?*"}]"#,
            url: "https://example.com/a/",
            expected: .nomatch
        ),
        Case(
            rule: "P3 ?* matches one or more",
            components: #"[{"/": "/a/?*"}]"#,
            url: "https://example.com/a/b",
            expected: .match
        ),
        Case(
            rule: "P4 whole component, not a prefix",
            components: #"[{"/": "abc"}]"#,
            url: "https://example.com/abcd",
            expected: .nomatch
        ),
        Case(
            rule: "P4 whole component, not a suffix",
            components: #"[{"/": "abc"}]"#,
            url: "https://example.com/xabc",
            expected: .nomatch
        ),
        Case(
            rule: "P5 a literal ? in a path is only matched by a wildcard or %3F",
            components: #"[{"/": "/a%3Fb"}]"#,
            url: "https://example.com/a%3Fb",
            expected: .match
        ),
        Case(
            rule: "P6 star crosses slashes",
            components: #"[{"/": "/buy/*"}]"#,
            url: "https://example.com/buy/42/x",
            expected: .match
        ),
        Case(
            rule: "P6 Apple's legacy example",
            components: #"[{"/": "/foo/*/bar/201?/mypage"}]"#,
            url: "https://example.com/foo/a/b/bar/2015/mypage",
            expected: .match
        ),
        Case(
            rule: "P7 question mark counts a decoded character",
            components: #"[{"/": "/caf?", "percentEncoded": false}]"#,
            url: "https://example.com/caf%C3%A9",
            expected: .match
        ),
        // §7 path
        Case(
            rule: "PA1 leading slash optional",
            components: #"[{"/": "buy/*"}]"#,
            url: "https://example.com/buy/42",
            expected: .match
        ),
        Case(
            rule: "PA2 leading slash run collapses",
            components: #"[{"/": "//abc"}]"#,
            url: "https://example.com/abc",
            expected: .match
        ),
        Case(
            rule: "PA3 trailing slash insignificant in the URL",
            components: #"[{"/": "/buy"}]"#,
            url: "https://example.com/buy/",
            expected: .match
        ),
        Case(
            rule: "PA3 trailing slash insignificant in the pattern",
            components: #"[{"/": "/buy/"}]"#,
            url: "https://example.com/buy",
            expected: .match
        ),
        Case(
            rule: "PA3 trailing slash run",
            components: #"[{"/": "/buy/"}]"#,
            url: "https://example.com/buy//",
            expected: .match
        ),
        Case(
            rule: "PA4 /* also matches the parent",
            components: #"[{"/": "/buy/*"}]"#,
            url: "https://example.com/buy",
            expected: .match
        ),
        Case(
            rule: "PA4 /* does not match a longer name",
            components: #"[{"/": "/buy/*"}]"#,
            url: "https://example.com/buyer",
            expected: .nomatch
        ),
        Case(
            rule: "PA4 /* does not match a shorter name",
            components: #"[{"/": "/buy/*"}]"#,
            url: "https://example.com/bu",
            expected: .nomatch
        ),
        Case(
            rule: "PA5 no slash is added",
            components: #"[{"/": "/id/????"}]"#,
            url: "https://example.com/id/481",
            expected: .nomatch
        ),
        Case(
            rule: "PA5 four characters",
            components: #"[{"/": "/id/????"}]"#,
            url: "https://example.com/id/4815",
            expected: .match
        ),
        Case(
            rule: "PA6 empty path reads as /",
            components: #"[{"/": "/"}]"#,
            url: "https://example.com",
            expected: .match
        ),
        Case(
            rule: "PA7 %2F is not a separator when encoded",
            components: #"[{"/": "/a/b"}]"#,
            url: "https://example.com/a%2Fb",
            expected: .nomatch
        ),
        Case(
            rule: "PA8 interior // compared as written",
            components: #"[{"/": "/a/b"}]"#,
            url: "https://example.com/a//b",
            expected: .nomatch
        ),
        Case(
            rule: "PA9 the path never holds the fragment",
            components: #"[{"/": "/#/market/*"}]"#,
            url: "https://example.com/#/market/1",
            expected: .nomatch
        ),
        // §8 query
        Case(
            rule: "Q2 string query compares the whole raw query",
            components: #"[{"?": "a=1"}]"#,
            url: "https://example.com/x?a=1&b=2",
            expected: .nomatch
        ),
        Case(
            rule: "Q2 string query exact",
            components: #"[{"?": "a=1"}]"#,
            url: "https://example.com/x?a=1",
            expected: .match
        ),
        Case(
            rule: "Q2 string query depends on order",
            components: #"[{"?": "id=*"}]"#,
            url: "https://example.com/x?x=1&id=5",
            expected: .nomatch
        ),
        Case(
            rule: "Q3 no query matches '*'",
            components: #"[{"?": "*"}]"#,
            url: "https://example.com/x",
            expected: .match
        ),
        Case(
            rule: "Q3 no query does not match '?*'",
            components: #"[{"?": "?*"}]"#,
            url: "https://example.com/x",
            expected: .nomatch
        ),
        Case(
            rule: "Q3 an empty query is ''",
            components: #"[{"?": ""}]"#,
            url: "https://example.com/x?",
            expected: .match
        ),
        Case(
            rule: "Q4 dictionary names are literal",
            components: #"[{"?": {"a*": "1"}}]"#,
            url: "https://example.com/x?ab=1",
            expected: .nomatch
        ),
        Case(
            rule: "Q5 unnamed items are ignored",
            components: #"[{"?": {"a": "1"}}]"#,
            url: "https://example.com/x?a=1&b=2",
            expected: .match
        ),
        Case(
            rule: "Q6 an absent item is '': '*' matches",
            components: #"[{"?": {"b": "*"}}]"#,
            url: "https://example.com/x?a=1",
            expected: .match
        ),
        Case(
            rule: "Q6 an absent item is '': '?*' does not",
            components: #"[{"?": {"b": "?*"}}]"#,
            url: "https://example.com/x?a=1",
            expected: .nomatch
        ),
        Case(
            rule: "Q7 an item without = has the value ''",
            components: #"[{"?": {"flag": ""}}]"#,
            url: "https://example.com/x?flag",
            expected: .match
        ),
        Case(
            rule: "Q8 every repeated instance must match",
            components: #"[{"?": {"id": "42"}}]"#,
            url: "https://example.com/x?id=7&id=42",
            expected: .nomatch
        ),
        Case(
            rule: "Q8 repeated equal instances match",
            components: #"[{"?": {"id": "7"}}]"#,
            url: "https://example.com/x?id=7&id=7",
            expected: .match
        ),
        Case(
            rule: "Q8 values are not joined",
            components: #"[{"?": {"id": "7,42"}}]"#,
            url: "https://example.com/x?id=7&id=42",
            expected: .nomatch
        ),
        Case(
            rule: "Q9 a non-string value voids the whole dictionary",
            components: #"[{"?": {"a": "1", "flag": true}}]"#,
            url: "https://example.com/x?a=2",
            expected: .match
        ),
        Case(
            rule: "Q10 + is not a space",
            components: #"[{"?": {"q": "a b"}, "percentEncoded": false}]"#,
            url: "https://example.com/x?q=a+b",
            expected: .nomatch
        ),
        Case(
            rule: "Q10 encoded names compare as written",
            components: #"[{"?": {"$web_only": "true"}, "exclude": true}, {"/": "*"}]"#,
            url: "https://example.com/x?%24web_only=true",
            expected: .match
        ),
        Case(
            rule: "Q10 decoded names under percentEncoded false",
            components: #"[{"?": {"$web_only": "true"}, "exclude": true, "percentEncoded": false}, {"/": "*"}]"#,
            url: "https://example.com/x?%24web_only=true",
            expected: .exclude
        ),
        // §9 fragment
        Case(
            rule: "F1 everything after # is fragment",
            components: ##"[{"#": "a?b"}]"##,
            url: "https://example.com/x#a?b",
            expected: .match
        ),
        Case(
            rule: "F2 the no_universal_links opt-out",
            components: ##"[{"#": "no_universal_links", "exclude": true}, {"/": "*"}]"##,
            url: "https://example.com/x#no_universal_links",
            expected: .exclude
        ),
        // §10 caseSensitive
        Case(
            rule: "C1 case-sensitive by default",
            components: #"[{"/": "/Buy"}]"#,
            url: "https://example.com/buy",
            expected: .nomatch
        ),
        Case(
            rule: "C2 caseSensitive false folds the path",
            components: #"[{"/": "/Buy", "caseSensitive": false}]"#,
            url: "https://example.com/BUY",
            expected: .match
        ),
        Case(
            rule: "C2 caseSensitive false folds query values",
            components: #"[{"?": {"t": "ABC"}, "caseSensitive": false}]"#,
            url: "https://example.com/x?t=abc",
            expected: .match
        ),
        Case(
            rule: "C3 caseSensitive false widens $(upper)",
            components: #"[{"/": "/$(upper)", "caseSensitive": false}]"#,
            url: "https://example.com/q",
            expected: .match
        ),
        Case(
            rule: "C3 $(upper) is upper case by default",
            components: #"[{"/": "/$(upper)"}]"#,
            url: "https://example.com/q",
            expected: .nomatch
        ),
        Case(
            rule: "C4 escapes fold when case-insensitive",
            components: #"[{"/": "/caf%C3%A9", "caseSensitive": false}]"#,
            url: "https://example.com/caf%c3%a9",
            expected: .match
        ),
        Case(
            rule: "C4 decoded text folds with Unicode",
            components: #"[{"/": "/CAFÉ", "caseSensitive": false, "percentEncoded": false}]"#,
            url: "https://example.com/caf%C3%A9",
            expected: .match
        ),
        // §11 percentEncoded
        Case(
            rule: "PE2 encoded comparison",
            components: #"[{"/": "/a%20b"}]"#,
            url: "https://example.com/a%20b",
            expected: .match
        ),
        Case(
            rule: "PE2 a raw space does not match its escape",
            components: #"[{"/": "/a b"}]"#,
            url: "https://example.com/a%20b",
            expected: .nomatch
        ),
        Case(
            rule: "PE2 escape hex case is significant",
            components: #"[{"/": "/caf%C3%A9"}]"#,
            url: "https://example.com/caf%c3%a9",
            expected: .nomatch
        ),
        Case(
            rule: "PE2 unencoded pattern does not match encoded URL",
            components: #"[{"/": "/café"}]"#,
            url: "https://example.com/caf%C3%A9",
            expected: .nomatch
        ),
        Case(
            rule: "PE3 decoded URL, pattern not encoded",
            components: #"[{"/": "/a b", "percentEncoded": false}]"#,
            url: "https://example.com/a%20b",
            expected: .match
        ),
        Case(
            rule: "PE3 an encoded pattern no longer matches",
            components: #"[{"/": "/a%20b", "percentEncoded": false}]"#,
            url: "https://example.com/a%20b",
            expected: .nomatch
        ),
        Case(
            rule: "PE3 non-ASCII under percentEncoded false",
            components: #"[{"/": "/café/*", "percentEncoded": false}]"#,
            url: "https://example.com/caf%C3%A9/menu",
            expected: .match
        ),
        Case(
            rule: "PE4 Apple's non-ASCII example",
            components: #"[{"/": "/中國哲學書電子化計劃/?*", "percentEncoded": false}]"#,
            url:
                "https://example.com/%E4%B8%AD%E5%9C%8B%E5%93%B2%E5%AD%B8%E6%9B%B8%E9%9B%BB%E5%AD%90%E5%8C%96%E8%A8%88%E5%8A%83/1",
            expected: .match
        ),
        Case(
            rule: "PE6 %2F is a separator when decoded",
            components: #"[{"/": "/a/b", "percentEncoded": false}]"#,
            url: "https://example.com/a%2Fb",
            expected: .match
        ),
        // §12 defaults
        Case(
            rule: "DF3 domain defaults set the path",
            components: ##"[{"#": "*"}]"##,
            url: "https://example.com/bar",
            expected: .nomatch,
            extras: ##""defaults": {"/": "/foo/*"}"##
        ),
        Case(
            rule: "DF3 domain defaults path accepts",
            components: ##"[{"#": "*"}]"##,
            url: "https://example.com/foo/1",
            expected: .match,
            extras: ##""defaults": {"/": "/foo/*"}"##
        ),
        Case(
            rule: "DF3 domain defaults exclude",
            components: ##"[{"#": "*"}]"##,
            url: "https://example.com/foo/1",
            expected: .exclude,
            extras: ##""defaults": {"exclude": true}"##
        ),
        Case(
            rule: "DF3 app defaults set the path",
            components: ##"[{"#": "*"}]"##,
            url: "https://example.com/bar",
            expected: .nomatch,
            entryExtras: ##""defaults": {"/": "/foo/*"}"##
        ),
        Case(
            rule: "DF4 rule beats app beats domain for caseSensitive",
            components: #"[{"/": "/A", "caseSensitive": false}]"#,
            url: "https://example.com/a",
            expected: .match,
            extras: #""defaults": {"caseSensitive": true}"#,
            entryExtras: #""defaults": {"caseSensitive": true}"#
        ),
        Case(
            rule: "DF4 app beats domain",
            components: #"[{"/": "/A"}]"#,
            url: "https://example.com/a",
            expected: .nomatch,
            extras: #""defaults": {"caseSensitive": false}"#,
            entryExtras: #""defaults": {"caseSensitive": true}"#
        ),
        Case(
            rule: "DF4 domain default applies",
            components: #"[{"/": "/A"}]"#,
            url: "https://example.com/a",
            expected: .match,
            extras: #""defaults": {"caseSensitive": false}"#
        ),
        Case(
            rule: "DF5 percentEncoded follows the hierarchy",
            components: #"[{"/": "/a b"}]"#,
            url: "https://example.com/a%20b",
            expected: .match,
            entryExtras: #""defaults": {"percentEncoded": false}"#
        ),
        // §13 substitution variables
        Case(
            rule: "SV2 a custom variable",
            components: #"[{"/": "/$(food)/"}]"#,
            url: "https://example.com/sushi",
            expected: .match,
            extras: #""substitutionVariables": {"food": ["burrito", "sushi"]}"#
        ),
        Case(
            rule: "SV2 a value outside the list",
            components: #"[{"/": "/$(food)/"}]"#,
            url: "https://example.com/pizza",
            expected: .nomatch,
            extras: #""substitutionVariables": {"food": ["burrito", "sushi"]}"#
        ),
        Case(
            rule: "SV3 names may hold spaces",
            components: #"[{"/": "/$(Canadian food)"}]"#,
            url: "https://example.com/poutine",
            expected: .match,
            extras: #""substitutionVariables": {"Canadian food": ["poutine"]}"#
        ),
        Case(
            rule: "SV3 names are case-sensitive",
            components: #"[{"/": "/$(Food)"}]"#,
            url: "https://example.com/sushi",
            expected: .nomatch,
            extras: #""substitutionVariables": {"food": ["sushi"]}"#
        ),
        Case(
            rule: "SV4 values are case-sensitive by default",
            components: #"[{"/": "/$(food)"}]"#,
            url: "https://example.com/SUSHI",
            expected: .nomatch,
            extras: #""substitutionVariables": {"food": ["sushi"]}"#
        ),
        Case(
            rule: "SV5 $(digit) is one digit",
            components: #"[{"/": "/$(digit)$(digit)"}]"#,
            url: "https://example.com/42",
            expected: .match
        ),
        Case(
            rule: "SV5 $(xdigit)",
            components: #"[{"/": "/$(xdigit)"}]"#,
            url: "https://example.com/g",
            expected: .nomatch
        ),
        Case(
            rule: "SV5 $(alnum) is ASCII only",
            components: #"[{"/": "/$(alnum)", "percentEncoded": false}]"#,
            url: "https://example.com/%C3%A9",
            expected: .nomatch
        ),
        Case(
            rule: "SV5 there is no $(any)",
            components: #"[{"/": "/$(any)"}]"#,
            url: "https://example.com/x",
            expected: .nomatch
        ),
        Case(
            rule: "SV6 $(lang) matches one code",
            components: #"[{"/": "/$(lang)/*"}]"#,
            url: "https://example.com/fr/x",
            expected: .match
        ),
        Case(
            rule: "SV7 $(region) follows ISO codes: GB",
            components: #"[{"/": "/$(region)"}]"#,
            url: "https://example.com/GB",
            expected: .match
        ),
        Case(
            rule: "SV7 $(region) follows ISO codes: not UK",
            components: #"[{"/": "/$(region)"}]"#,
            url: "https://example.com/UK",
            expected: .nomatch
        ),
        Case(
            rule: "SV8 a variable is never literal text",
            components: #"[{"/": "/$(food)"}]"#,
            url: "https://example.com/$(food)",
            expected: .nomatch,
            extras: #""substitutionVariables": {"food": ["sushi"]}"#
        ),
        Case(
            rule: "SV9 values may hold wildcards",
            components: #"[{"/": "/$(kind)/x"}]"#,
            url: "https://example.com/abcz/x",
            expected: .match,
            extras: #""substitutionVariables": {"kind": ["a*z"]}"#
        ),
        Case(
            rule: "SV10 variables expand in query values",
            components: #"[{"?": {"f": "$(food)"}}]"#,
            url: "https://example.com/x?f=sushi",
            expected: .match,
            extras: #""substitutionVariables": {"food": ["sushi"]}"#
        ),
        Case(
            rule: "SV11 an unterminated variable never matches",
            components: #"[{"/": "/$(food"}]"#,
            url: "https://example.com/$(food",
            expected: .nomatch
        ),
        // §15 URL, host and scheme
        Case(
            rule: "U1 other schemes are never universal links",
            components: #"[{"/": "*"}]"#,
            url: "ftp://example.com/x",
            expected: .nomatch
        ),
        Case(
            rule: "U1 http is a universal-link scheme",
            components: #"[{"/": "*"}]"#,
            url: "http://example.com/x",
            expected: .match
        ),
        Case(
            rule: "U3 the scheme is case-insensitive and userinfo ignored",
            components: #"[{"/": "/x"}]"#,
            url: "HTTPS://user@example.com/x",
            expected: .match
        ),
        Case(
            rule: "U4 raw non-ASCII is encoded first",
            components: #"[{"/": "/caf%C3%A9"}]"#,
            url: "https://example.com/café",
            expected: .match
        ),
    ]

    @Test(arguments: cases)
    func eachRuleDecidesAsSwcutil(_ case_: Case) {
        let matcher = Self.file(case_.components, extras: case_.extras, entryExtras: case_.entryExtras)
        let decision = matcher.decide(appID: Self.app, url: case_.url, domain: "example.com")
        #expect(decision.verdict == case_.expected, "\(decision.trace)")
    }

    @Test func PA_worked_example_of_section_7() {
        let matcher = Self.file(#"[{"/": "/buy/*"}]"#)
        for (url, expected) in [
            ("/buy", true), ("/buy/", true), ("/buy//", true), ("/buy/42", true), ("/buyer", false), ("/bu", false),
        ] {
            #expect((Self.verdict(matcher, "https://example.com" + url) == .match) == expected, "\(url)")
        }
    }

    @Test func SV_worked_example_of_section_13() {
        let json = #"""
            {"applinks": {"substitutionVariables": {"food": ["burrito", "sushi"], "Canadian food": ["burrito", "poutine", "tête-de-violon"]},
              "details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [
                 {"/": "/$(lang)_CA/$(Canadian food)/", "percentEncoded": false},
                 {"/": "/$(lang)_CA/$(food)/", "exclude": true},
                 {"/": "/$(lang)_$(region)/$(food)/"}]}]}}
            """#
        let matcher = Self.matcher(json)
        #expect(Self.verdict(matcher, "https://example.com/fr_CA/t%C3%AAte-de-violon/") == .match)
        #expect(Self.verdict(matcher, "https://example.com/en_CA/burrito/") == .match)
        #expect(Self.verdict(matcher, "https://example.com/en_CA/sushi/") == .exclude)
        #expect(Self.verdict(matcher, "https://example.com/en_US/sushi/") == .match)
        #expect(Self.verdict(matcher, "https://example.com/en_US/poutine/") == .nomatch)
    }

    @Test func R1_an_entry_applies_only_to_the_apps_it_names() {
        let matcher = Self.file(#"[{"/": "*"}]"#)
        #expect(Self.verdict(matcher, "https://example.com/x", app: Self.other) == .nomatch)
    }

    @Test func R2_an_entry_naming_no_app_applies_to_none() {
        let matcher = Self.matcher(#"{"applinks": {"details": [{"components": [{"/": "*"}]}]}}"#)
        #expect(Self.verdict(matcher, "https://example.com/x") == .nomatch)
    }

    @Test func R3_an_unlisted_app_never_matches_and_the_trace_says_so() {
        let decision = Self.matcher(#"{"webcredentials": {"apps": ["ABCDE12345.com.example.app"]}}"#).decide(
            appID: Self.app,
            url: "https://example.com/x"
        )
        #expect(decision.verdict == .nomatch)
        #expect(decision.trace == ["R3: no applinks details entry names \(Self.app)"])
    }

    @Test func R4_document_order_lets_one_app_take_part_of_a_site() {
        let json =
            #"{"applinks": {"details": [{"appID": "\#(Self.other)", "components": [{"/": "/shop/*"}]}, {"appID": "\#(Self.app)", "components": [{"/": "*"}]}]}}"#
        let matcher = Self.matcher(json)
        #expect(Self.verdict(matcher, "https://example.com/shop/1", app: Self.other) == .match)
        #expect(Self.verdict(matcher, "https://example.com/home", app: Self.other) == .nomatch)
    }

    @Test func R5_the_same_app_in_two_entries_stops_at_the_first_matching_rule() {
        let json =
            #"{"applinks": {"details": [{"appID": "\#(Self.app)", "components": [{"/": "/a", "exclude": true}]}, {"appID": "\#(Self.app)", "components": [{"/": "*"}]}]}}"#
        #expect(Self.verdict(Self.matcher(json), "https://example.com/a") == .exclude)
        #expect(Self.verdict(Self.matcher(json), "https://example.com/b") == .match)
    }

    @Test func R7_appID_and_appIDs_name_their_union() {
        let json =
            #"{"applinks": {"details": [{"appID": "\#(Self.other)", "appIDs": ["\#(Self.app)"], "components": [{"/": "*"}]}]}}"#
        #expect(Self.verdict(Self.matcher(json), "https://example.com/a") == .match)
        #expect(Self.verdict(Self.matcher(json), "https://example.com/a", app: Self.other) == .match)
    }

    @Test func S6_details_as_a_dictionary_still_match() {
        let json = #"{"applinks": {"apps": [], "details": {"\#(Self.app)": {"paths": ["/legacy/*"]}}}}"#
        #expect(Self.verdict(Self.matcher(json), "https://example.com/legacy/1") == .match)
    }

    @Test func S9_paths_are_ignored_when_components_are_present() {
        let json =
            #"{"applinks": {"details": [{"appID": "\#(Self.app)", "paths": ["*"], "components": [{"/": "/only"}]}]}}"#
        #expect(Self.verdict(Self.matcher(json), "https://example.com/other") == .nomatch)
    }

    @Test func S10_other_services_grant_no_universal_links() {
        let json = #"{"appclips": {"apps": ["\#(Self.app)"]}, "webcredentials": {"apps": ["\#(Self.app)"]}}"#
        #expect(Self.verdict(Self.matcher(json), "https://example.com/x") == .nomatch)
    }

    @Test func S2_unknown_keys_in_a_rule_are_ignored() {
        #expect(
            Self.verdict(Self.file(#"[{"/": "/a", "casesensitive": false, "x": {"y": 1}}]"#), "https://example.com/A")
                == .nomatch
        )
    }

    @Test func L1_L2_legacy_paths_in_order_with_NOT() {
        let json =
            #"{"applinks": {"apps": [], "details": [{"appID": "\#(Self.app)", "paths": ["NOT /private/*", "*"]}]}}"#
        #expect(Self.verdict(Self.matcher(json), "https://example.com/private/1") == .exclude)
        #expect(Self.verdict(Self.matcher(json), "https://example.com/public") == .match)
    }

    @Test func L2_NOT_without_a_space_is_a_plain_pattern() {
        let json = #"{"applinks": {"details": [{"appID": "\#(Self.app)", "paths": ["NOT/x"]}]}}"#
        #expect(Self.verdict(Self.matcher(json), "https://example.com/NOT/x") == .match)
    }

    @Test func L3_L4_legacy_paths_ignore_the_query_and_their_question_mark_is_a_wildcard() {
        let json = #"{"applinks": {"details": [{"appID": "\#(Self.app)", "paths": ["/services/detail/?id=*"]}]}}"#
        #expect(Self.verdict(Self.matcher(json), "https://example.com/services/detail/?id=42") == .nomatch)
        let plain = #"{"applinks": {"details": [{"appID": "\#(Self.app)", "paths": ["/a"]}]}}"#
        #expect(Self.verdict(Self.matcher(plain), "https://example.com/a?x=1#y") == .match)
    }

    @Test func L5_legacy_paths_are_case_sensitive() {
        let json = #"{"applinks": {"details": [{"appID": "\#(Self.app)", "paths": ["/About"]}]}}"#
        #expect(Self.verdict(Self.matcher(json), "https://example.com/about") == .nomatch)
    }

    @Test func U2_the_host_must_be_the_files_domain() {
        let matcher = Self.file(#"[{"/": "*"}]"#)
        #expect(matcher.decide(appID: Self.app, url: "https://evil.test/x", domain: "example.com").verdict == .nomatch)
        #expect(matcher.decide(appID: Self.app, url: "https://EXAMPLE.COM/x", domain: "example.com").verdict == .match)
    }

    @Test func E5_an_explicit_port_is_not_associated() {
        #expect(Self.verdict(Self.file(#"[{"/": "*"}]"#), "https://example.com:8443/x") == .nomatch)
    }

    @Test func theTraceNamesTheDecidingRuleOrTheClosestFailure() {
        let matcher = Self.file(#"[{"/": "/buy/*", "?": {"id": "?*"}}, {"/": "/sell"}]"#)
        let hit = matcher.decide(appID: Self.app, url: "https://example.com/sell")
        #expect(hit.trace.last == "/applinks/details/0/components/1 matches: match")
        let miss = matcher.decide(appID: Self.app, url: "https://example.com/buy/1")
        #expect(
            miss.trace.last
                == #"no rule matches; closest: /applinks/details/0/components/0: query item 'id' is absent (compared as "") not matching '?*'"#
        )
    }
}
