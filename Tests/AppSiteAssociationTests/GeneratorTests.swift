import AppSiteAssociation
import DeepLinksJSON
import Foundation
import Testing

@Suite struct GeneratorTests {
    static let demo = AASAConfiguration(
        apps: [
            .init(
                appID: "ABCDE12345.com.example.demo",
                paths: ["/post/*", "/reset-password", "/search", "/u/*"],
                exclusions: ["/account/*"]
            )
        ],
        webCredentials: ["ABCDE12345.com.example.demo"]
    )

    /// Compares with `Golden/NAME`; `DEEPLINKS_UPDATE_GOLDEN=1 swift test` rewrites it.
    static func golden(_ actual: String, _ name: String) throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/\(name)")
        if ProcessInfo.processInfo.environment["DEEPLINKS_UPDATE_GOLDEN"] == "1" {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(actual == expected, "Golden/\(name) differs (DEEPLINKS_UPDATE_GOLDEN=1 to accept)")
    }

    @Test func theComponentsDocumentMatchesItsGoldenFileAndValidatesCleanly() throws {
        let text = try AASAGenerator.generate(Self.demo)
        try Self.golden(text, "demo-components.json")
        #expect(AASAValidator.validate(data: Data(text.utf8)).isEmpty)
    }

    @Test func theLegacyFormIsAddedForIOS12AndStillValidates() throws {
        var configuration = Self.demo
        configuration.includeLegacyPaths = true
        let text = try AASAGenerator.generate(configuration)
        try Self.golden(text, "demo-legacy.json")
        let diagnostics = AASAValidator.validate(data: Data(text.utf8))
        #expect(diagnostics.isValid)
        #expect(Set(diagnostics.map(\.code.rawValue)) == ["AASA_PATHS_IGNORED", "AASA_BOTH_APPID_FORMS"])
    }

    @Test func theGeneratedFileMatchesAsConfigured() throws {
        let matcher = AASAMatcher(document: AASAGenerator.document(Self.demo))
        let app = "ABCDE12345.com.example.demo"
        #expect(matcher.decide(appID: app, url: "https://links.example.com/post/1").verdict == .match)
        #expect(
            matcher.decide(appID: app, url: "https://links.example.com/post/1#no_universal_links").verdict == .exclude
        )
        #expect(matcher.decide(appID: app, url: "https://links.example.com/account/settings").verdict == .exclude)
        #expect(matcher.decide(appID: app, url: "https://links.example.com/about").verdict == .nomatch)
        var legacy = Self.demo
        legacy.includeLegacyPaths = true
        let legacyMatcher = AASAMatcher(document: AASAGenerator.document(legacy))
        #expect(legacyMatcher.decide(appID: app, url: "https://links.example.com/account/x").verdict == .exclude)
    }

    @Test func anInvalidConfigurationIsRefusedWithItsDiagnostics() {
        let bad = AASAConfiguration(apps: [.init(appID: "demo", paths: ["/$(any)"])])
        do {
            _ = try AASAGenerator.generate(bad)
            Issue.record("should be refused")
        } catch {
            #expect(error.diagnostics.map(\.code.rawValue) == ["AASA_APPID_FORMAT", "AASA_SUBST_UNDEFINED"])
        }
    }

    @Test func prettyPrintingEscapesAndSortsKeys() throws {
        let value = JSONValue.object([
            "b": .array([.number(1), .number(2.5), .null, .bool(true)]), "a": .string("q\"\\\n\u{1}/"),
        ])
        #expect(
            value.prettyPrinted()
                == "{\n  \"a\": \"q\\\"\\\\\\n\\u0001/\",\n  \"b\": [\n    1,\n    2.5,\n    null,\n    true\n  ]\n}"
        )
        #expect(try JSONValue.parse(Data(value.prettyPrinted().utf8)) == value)
    }
}

@Suite struct AssetLinksTests {
    static let fingerprint = (0..<32).map { String(format: "%02X", $0 * 7 % 256) }.joined(separator: ":")

    @Test func aGeneratedStatementValidatesCleanly() throws {
        let data = try JSONEncoder().encode([
            AssetLinksStatement.appLinks(packageName: "com.example.demo", fingerprints: [Self.fingerprint])
        ])
        #expect(AssetLinksValidator.validate(data: data).isEmpty)
    }

    @Test(arguments: [
        ("{}", "ASSETLINKS_ROOT_NOT_ARRAY", AASADiagnostic.Severity.error, ""),
        ("[1,]", "ASSETLINKS_INVALID_JSON", .error, ""),
        (
            #"[{"relation": [], "target": {"namespace": "android_app", "package_name": "com.x", "sha256_cert_fingerprints": ["FP"]}}]"#,
            "ASSETLINKS_RELATION", .error, "/0/relation"
        ),
        (
            #"[{"relation": ["delegate_permission/common.handle_all_url"], "target": {"namespace": "android_app", "package_name": "com.x", "sha256_cert_fingerprints": ["FP"]}}]"#,
            "ASSETLINKS_RELATION", .warning, "/0/relation/0"
        ),
        (
            #"[{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "ios_app", "package_name": "com.x"}}]"#,
            "ASSETLINKS_NAMESPACE", .error, "/0/target/namespace"
        ),
        (
            #"[{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app", "package_name": "demo", "sha256_cert_fingerprints": ["FP"]}}]"#,
            "ASSETLINKS_PACKAGE_NAME", .error, "/0/target/package_name"
        ),
        (
            #"[{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app", "package_name": "com.1x", "sha256_cert_fingerprints": ["FP"]}}]"#,
            "ASSETLINKS_PACKAGE_NAME", .error, "/0/target/package_name"
        ),
        (
            #"[{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app", "package_name": "com.x", "sha256_cert_fingerprints": ["AB:CD"]}}]"#,
            "ASSETLINKS_FINGERPRINT", .error, "/0/target/sha256_cert_fingerprints/0"
        ),
        (
            #"[{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app", "package_name": "com.x", "sha256_cert_fingerprints": []}}]"#,
            "ASSETLINKS_FINGERPRINT", .error, "/0/target/sha256_cert_fingerprints"
        ),
        (
            #"[{"relation": ["delegate_permission/common.get_login_creds"], "target": {"namespace": "web", "site": "https://example.com"}}]"#,
            "ASSETLINKS_NO_APP_LINKS", .warning, ""
        ),
        (
            #"[{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "web", "site": "https://example.com"}, "extra": 1}]"#,
            "ASSETLINKS_UNKNOWN_KEY", .warning, "/0/extra"
        ),
        (#"["statement"]"#, "ASSETLINKS_TYPE", .error, "/0"),
    ])
    func eachProblemHasItsCodeSeverityAndPointer(
        _ json: String,
        _ code: String,
        _ severity: AASADiagnostic.Severity,
        _ pointer: String
    ) {
        let realJSON = json.replacingOccurrences(of: "\"FP\"", with: "\"\(Self.fingerprint)\"")
        let found = AssetLinksValidator.validate(data: Data(realJSON.utf8))
        let match = found.first { $0.code.rawValue == code }
        #expect(match?.severity == severity, "\(found)")
        #expect(match?.pointer == pointer, "\(found)")
    }

    @Test func aLowerCaseFingerprintIsAWarning() {
        let json =
            #"[{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app", "package_name": "com.x", "sha256_cert_fingerprints": ["\#(Self.fingerprint.lowercased())"]}}]"#
        let found = AssetLinksValidator.validate(data: Data(json.utf8))
        #expect(found.map(\.code.rawValue) == ["ASSETLINKS_FINGERPRINT"])
        #expect(found.isValid)
    }
}
