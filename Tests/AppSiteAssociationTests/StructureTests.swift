import AppSiteAssociation
import DeepLinksJSON
import Foundation
import Testing

/// The rules of specs/aasa.md §3, §4 and §12–§15 that the matcher table does not already cover.
@Suite struct StructureTests {
    static let app = "ABCDE12345.com.example.app"

    static func decide(_ json: String, _ url: String, app: String = app) -> AASAVerdict {
        AASAMatcher(document: try! JSONValue.parse(Data(json.utf8))).decide(appID: app, url: url).verdict
    }

    static func codes(_ json: String) -> [String] {
        AASAValidator.validate(data: Data(json.utf8)).map(\.code.rawValue)
    }

    @Test func S1_the_root_is_an_object_with_case_sensitive_service_keys() {
        #expect(Self.codes(#"{"appLinks": {"details": []}}"#).contains("AASA_NO_SERVICE"))
        #expect(
            Self.decide(
                #"{"appLinks": {"details": [{"appIDs": ["\#(Self.app)"], "components": [{"/": "*"}]}]}}"#,
                "https://example.com/"
            ) == .nomatch
        )
        #expect(Self.decide("[]", "https://example.com/") == .nomatch)
    }

    @Test func S3_applinks_holds_details_defaults_substitutionVariables_and_apps() {
        let json =
            #"{"applinks": {"apps": [], "defaults": {"caseSensitive": false}, "substitutionVariables": {"v": ["x"]}, "details": [{"appIDs": ["\#(Self.app)"], "components": [{"/": "/$(v)"}]}]}}"#
        #expect(Self.codes(json).isEmpty)
        #expect(Self.decide(json, "https://example.com/X") == .match)
    }

    @Test func S4_a_non_empty_legacy_apps_is_an_error_and_its_absence_is_fine() {
        #expect(Self.codes(#"{"applinks": {"apps": ["x"], "details": []}}"#).contains("AASA_APPS_NOT_EMPTY"))
        #expect(
            !Self.codes(#"{"applinks": {"details": [{"appIDs": ["\#(Self.app)"], "components": []}]}}"#).contains(
                "AASA_APPS_NOT_EMPTY"
            )
        )
    }

    @Test func S5_a_details_object_holds_appID_appIDs_components_and_defaults() {
        let json =
            #"{"applinks": {"details": [{"appIDs": ["\#(Self.app)"], "defaults": {"/": "/only/*"}, "components": [{"?": "*"}]}]}}"#
        #expect(Self.codes(json).isEmpty)
        #expect(Self.decide(json, "https://example.com/only/1") == .match)
        #expect(Self.decide(json, "https://example.com/else") == .nomatch)
    }

    @Test func S7_app_IDs_are_a_ten_character_prefix_and_a_bundle_ID_with_dashes() {
        #expect(Self.codes(#"{"webcredentials": {"apps": ["ABCDE12345.com.example.my-app"]}}"#).isEmpty)
        #expect(Self.codes(#"{"webcredentials": {"apps": ["ABCD1234.com.apple.wwdc"]}}"#) == ["AASA_APPID_FORMAT"])
        #expect(Self.codes(#"{"webcredentials": {"apps": ["ABCDE12345.com.example_app"]}}"#) == ["AASA_APPID_FORMAT"])
    }

    @Test func S8_components_keys_are_slash_query_hash_exclude_comment_caseSensitive_percentEncoded() {
        let json =
            ##"{"applinks": {"details": [{"appIDs": ["\##(Self.app)"], "components": [{"/": "/a", "?": "*", "#": "*", "exclude": false, "comment": "c", "caseSensitive": true, "percentEncoded": true}]}]}}"##
        #expect(Self.codes(json).isEmpty)
        #expect(Self.decide(json, "https://example.com/a?q#f") == .match)
    }

    @Test func S11_keys_newer_than_an_OS_are_plain_keys_here() {
        // Availability is not modelled per OS; the newest reading (iOS 14+) is the one matched.
        let json =
            #"{"applinks": {"details": [{"appIDs": ["\#(Self.app)"], "components": [{"/": "/a b", "percentEncoded": false}]}]}}"#
        #expect(Self.decide(json, "https://example.com/a%20b") == .match)
    }

    @Test func Q1_the_query_is_a_string_or_a_dictionary() {
        #expect(
            Self.codes(#"{"applinks": {"details": [{"appIDs": ["\#(Self.app)"], "components": [{"?": ["a"]}]}]}}"#)
                .contains("AASA_TYPE")
        )
    }

    @Test func DF1_DF2_defaults_are_components_at_domain_and_app_level() {
        let json =
            #"{"applinks": {"defaults": {"?": {"ref": "?*"}}, "details": [{"appIDs": ["\#(Self.app)"], "components": [{"/": "/a"}]}]}}"#
        #expect(Self.codes(json).isEmpty)
        #expect(Self.decide(json, "https://example.com/a?ref=mail") == .match)
        #expect(Self.decide(json, "https://example.com/a") == .nomatch)
    }

    @Test func DF6_defaults_do_not_apply_to_rules_from_legacy_paths() {
        // Open in the spec; this reading keeps legacy files meaning what they meant on iOS 12.
        let json =
            #"{"applinks": {"defaults": {"caseSensitive": false}, "details": [{"appID": "\#(Self.app)", "paths": ["/A"]}]}}"#
        #expect(Self.decide(json, "https://example.com/a") == .nomatch)
    }

    @Test func DF7_built_in_values() {
        let json = #"{"applinks": {"details": [{"appIDs": ["\#(Self.app)"], "components": [{}]}]}}"#
        #expect(Self.decide(json, "https://example.com/Any/Path?q=1#f") == .match)
    }

    @Test func SV1_variables_map_names_to_string_arrays() {
        #expect(
            Self.codes(#"{"applinks": {"substitutionVariables": {"v": "x"}, "details": []}}"#).contains("AASA_TYPE")
        )
    }

    @Test func L6_legacy_paths_get_the_path_normalizations() {
        let json = #"{"applinks": {"details": [{"appID": "\#(Self.app)", "paths": ["buy/*"]}]}}"#
        #expect(Self.decide(json, "https://example.com/buy") == .match)
    }

    @Test func L7_legacy_paths_are_ignored_beside_components() {
        let json =
            #"{"applinks": {"details": [{"appID": "\#(Self.app)", "paths": ["/legacy"], "components": [{"/": "/new"}]}]}}"#
        #expect(Self.decide(json, "https://example.com/legacy") == .nomatch)
        #expect(Self.codes(json).contains("AASA_PATHS_IGNORED"))
    }

    @Test func P8_no_unicode_normalization() {
        // é as one code point (NFC) does not match e + combining acute (NFD).
        let json =
            #"{"applinks": {"details": [{"appIDs": ["\#(Self.app)"], "components": [{"/": "/caf\u00e9", "percentEncoded": false}]}]}}"#
        #expect(Self.decide(json, "https://example.com/cafe%CC%81") == .nomatch)
        #expect(Self.decide(json, "https://example.com/caf%C3%A9") == .match)
    }

    @Test func PE1_percentEncoded_defaults_to_true() {
        let json = #"{"applinks": {"details": [{"appIDs": ["\#(Self.app)"], "components": [{"/": "/a b"}]}]}}"#
        #expect(Self.decide(json, "https://example.com/a%20b") == .nomatch)
    }

    @Test func PE5_decoding_leaves_plus_and_invalid_escapes_alone() {
        let json =
            #"{"applinks": {"details": [{"appIDs": ["\#(Self.app)"], "components": [{"?": {"q": "a+b%zz"}, "percentEncoded": false}]}]}}"#
        #expect(Self.decide(json, "https://example.com/x?q=a+b%zz") == .match)
    }

    @Test func C5_caseSensitive_follows_the_three_levels() {
        let domainOnly =
            ##"{"applinks": {"defaults": {"caseSensitive": false}, "details": [{"appIDs": ["\##(Self.app)"], "components": [{"#": "Frag"}]}]}}"##
        #expect(Self.decide(domainOnly, "https://example.com/x#frag") == .match)
    }

    @Test func U5_a_trailing_dot_host_is_not_the_domain() {
        let json = #"{"applinks": {"details": [{"appIDs": ["\#(Self.app)"], "components": [{"/": "*"}]}]}}"#
        let matcher = AASAMatcher(document: try! JSONValue.parse(Data(json.utf8)))
        #expect(
            matcher.decide(appID: Self.app, url: "https://example.com./x", domain: "example.com").verdict == .nomatch
        )
    }
}
