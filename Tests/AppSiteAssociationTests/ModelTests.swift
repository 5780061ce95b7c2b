import AppSiteAssociation
import DeepLinksJSON
import Foundation
import Testing

@Suite struct ModelTests {
    @Test func theModelReadsEveryServiceAndBothDetailsShapes() throws {
        let json = #"""
            {"applinks": {"apps": [], "defaults": {"caseSensitive": false},
                          "substitutionVariables": {"food": ["sushi"]},
                          "details": [{"appID": "ABCDE12345.a.b", "appIDs": ["ABCDE12345.c.d"], "paths": ["NOT /x", "/y"],
                                       "defaults": {"percentEncoded": false},
                                       "components": [{"/": "/a", "?": {"k": "v"}, "#": "f", "exclude": true, "comment": "c", "caseSensitive": true, "percentEncoded": true}]}]},
             "webcredentials": {"apps": ["ABCDE12345.a.b"]}, "appclips": {"apps": ["ABCDE12345.a.b.Clip"]},
             "activitycontinuation": {"apps": ["ABCDE12345.a.b"]}}
            """#
        let file = AppleAppSiteAssociation(try JSONValue.parse(Data(json.utf8)))
        let applinks = try #require(file.applinks)
        #expect(applinks.apps == [])
        #expect(applinks.defaults?.caseSensitive == false)
        #expect(applinks.substitutionVariables == ["food": ["sushi"]])
        let entry = try #require(applinks.details.first)
        #expect(entry.apps == ["ABCDE12345.a.b", "ABCDE12345.c.d"])
        #expect(entry.paths == ["NOT /x", "/y"])
        #expect(entry.defaults?.percentEncoded == false)
        #expect(
            entry.components == [
                .init(
                    path: "/a",
                    query: .items(["k": "v"]),
                    fragment: "f",
                    exclude: true,
                    comment: "c",
                    caseSensitive: true,
                    percentEncoded: true
                )
            ]
        )
        #expect(file.webcredentials?.apps == ["ABCDE12345.a.b"])
        #expect(file.appclips?.apps == ["ABCDE12345.a.b.Clip"])
        #expect(file.activitycontinuation?.apps == ["ABCDE12345.a.b"])
        // Written back, the file reads the same.
        #expect(AppleAppSiteAssociation(file.json) == file)
    }

    @Test func legacyPathsBecomePathRules() {
        let entry = AppleAppSiteAssociation.Details(appID: "ABCDE12345.a.b", paths: ["NOT /private/*", "*"])
        #expect(entry.rules == [.init(path: "/private/*", exclude: true), .init(path: "*")])
    }

    @Test func theDictionaryFormKeepsItsShapeAndItsAppIDs() throws {
        let json = #"{"applinks": {"details": {"ABCDE12345.a.b": {"paths": ["*"]}}}}"#
        let file = AppleAppSiteAssociation(try JSONValue.parse(Data(json.utf8)))
        #expect(file.applinks?.detailsAsDictionary == true)
        #expect(file.applinks?.details.first?.appID == "ABCDE12345.a.b")
        #expect(file.json == (try JSONValue.parse(Data(json.utf8))))
    }

    @Test func Q9_a_query_dictionary_with_a_non_string_value_is_read_as_ignored() throws {
        let json =
            #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"?": {"a": "1", "b": 2}}]}]}}"#
        let file = AppleAppSiteAssociation(try JSONValue.parse(Data(json.utf8)))
        #expect(file.applinks?.details.first?.components?.first?.query == .ignored)
    }

    @Test func wrongTypesAreLeftOutAsIOSDoes() throws {
        let json =
            #"{"applinks": {"details": [{"appIDs": "ABCDE12345.a.b", "components": [{"/": 5, "exclude": "yes"}, 7]}]}}"#
        let file = AppleAppSiteAssociation(try JSONValue.parse(Data(json.utf8)))
        let entry = try #require(file.applinks?.details.first)
        #expect(entry.appIDs == nil)
        #expect(entry.components == [.init()])
    }
}
