import Foundation
import Testing

@Suite struct CheckCommandTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples")

    @Test func theDemoPassesWithALandingDomainAndFailsWithoutOne() throws {
        let good = try CommandRunner.run(["check", "--no-links", "--landing-domain", "go.example.com"])
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        #expect(good.stdout == "ok: 10 routes, 1 domain(s), 0 links checked\n")
        let same = try CommandRunner.run(["check", "--no-links", "--landing-domain", "links.example.com"])
        #expect(same.status == 1)
        #expect(same.stdout.contains("problem: the landing domain is the link domain (links.example.com)"))
        let none = try CommandRunner.run(["check", "--no-links"])
        #expect(none.status == 1)
        #expect(none.stdout.contains("problem: no landing domain"))
    }

    @Test func aRouteTheAssociationFileExcludesIsReportedWithTheMatchersReason() throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            at: Self.examples.appendingPathComponent("demo-routes.json"),
            to: folder.appendingPathComponent("demo-routes.json")
        )
        var config =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: Self.examples.appendingPathComponent("demo-app.json"))
            ) as! [String: Any]
        var app = config["app"] as! [String: Any]
        app["excludedPaths"] = ["/account/*", "/post/*"]
        config["app"] = app
        let path = folder.appendingPathComponent("app.json")
        try JSONSerialization.data(withJSONObject: config).write(to: path)
        let result = try CommandRunner.run([
            "check", "--no-links", "--landing-domain", "go.example.com", "--config", path.path,
        ])
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                "problem: route 'post' (/post/:id): iOS would not open the app for https://links.example.com/post/1"
            ),
            "\(result.stdout)"
        )
        #expect(result.stdout.contains("problem: route 'comments' (/post/:id/comments)"))
        #expect(!result.stdout.contains("route 'search'"))
    }

    /// The other app's configuration passes; made to carry its reset token in a custom-scheme link, it is refused
    /// without a server being started, with the reason.
    @Test func aResetRouteThatLeaksItsTokenIsReportedByCheck() throws {
        let other = Self.examples.deletingLastPathComponent().appendingPathComponent("Tests/Support/other-app")
        let good = try CommandRunner.run([
            "check", "--no-links", "--config", other.appendingPathComponent("app.json").path,
        ])
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        #expect(good.stdout == "ok: 4 routes, 2 domain(s), 0 links checked\n")

        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            at: other.appendingPathComponent("routes.json"),
            to: folder.appendingPathComponent("routes.json")
        )
        var config =
            try JSONSerialization.jsonObject(with: Data(contentsOf: other.appendingPathComponent("app.json")))
            as! [String: Any]
        var app = config["app"] as! [String: Any]
        app["passwordReset"] = ["route": "account-reset-in-app", "tokenParameter": "code"]
        config["app"] = app
        let path = folder.appendingPathComponent("app.json")
        try JSONSerialization.data(withJSONObject: config).write(to: path)
        let bad = try CommandRunner.run(["check", "--no-links", "--config", path.path])
        #expect(bad.status == 1)
        #expect(
            bad.stderr.contains("app.passwordReset.route: 'account-reset-in-app' does not accept universal links"),
            "\(bad.stderr)"
        )
        #expect(bad.stderr.contains("'code' of route 'account-reset-in-app' is in the query"), "\(bad.stderr)")
    }

    static let examplesFolder = examples.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples")

    /// Each reference app's Info.plist and entitlements pass against the demo configuration, in XML and in binary.
    @Test(arguments: [
        ("ReferenceApp", "ReferenceApp.entitlements"), ("UIKitReferenceApp", "UIKitReferenceApp.entitlements"),
    ])
    func theReferenceAppsFilesPassInXMLAndBinary(_ app: String, _ entitlementsFile: String) throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let project = Self.examplesFolder.appendingPathComponent(app)
        let info = project.appendingPathComponent("Info.plist").path
        let entitlements = project.appendingPathComponent(entitlementsFile).path
        let xml = try CommandRunner.run([
            "check", "--no-links", "--landing-domain", "go.example.com", "--info-plist", info, "--entitlements",
            entitlements,
        ])
        #expect(xml.status == 0, "\(xml.stdout)\(xml.stderr)")
        #expect(xml.stdout == "ok: 10 routes, 1 domain(s), 0 links checked\n")
        let binary = folder.appendingPathComponent("Info.plist")
        let plist = try PropertyListSerialization.propertyList(
            from: Data(contentsOf: URL(fileURLWithPath: info)),
            format: nil
        )
        try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0).write(to: binary)
        #expect(try Data(contentsOf: binary).starts(with: Data("bplist".utf8)))
        let fromBinary = try CommandRunner.run([
            "check", "--no-links", "--landing-domain", "go.example.com", "--info-plist", binary.path, "--json",
        ])
        #expect(fromBinary.status == 0, "\(fromBinary.stdout)\(fromBinary.stderr)")
        #expect(fromBinary.stdout == #"{"ok":true,"problems":[],"warnings":[]}"# + "\n")
    }

    @Test func aMissingSchemeNameRoleOrDomainIsAProblem() throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func write(_ object: [String: Any], _ name: String) throws -> String {
            let url = folder.appendingPathComponent(name)
            try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0).write(to: url)
            return url.path
        }
        let info = try write(
            [
                "CFBundleIdentifier": "com.example.other",
                "CFBundleURLTypes": [["CFBundleURLSchemes": ["demoapp"], "CFBundleTypeRole": "Owner"]],
            ],
            "Info.plist"
        )
        let entitlements = try write(
            [
                "com.apple.developer.associated-domains": [
                    "applinks:links.example.com?mode=developer", "applinks:elsewhere.example.org",
                ]
            ],
            "app.entitlements"
        )
        let bad = try CommandRunner.run([
            "check", "--no-links", "--landing-domain", "go.example.com", "--info-plist", info, "--entitlements",
            entitlements, "--json",
        ])
        #expect(bad.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(bad.stdout.utf8)) as? [String: Any])
        #expect(report["ok"] as? Bool == false)
        #expect(
            report["problems"] as? [String] == [
                "Info.plist: CFBundleIdentifier is 'com.example.other', the configuration's bundle ID is 'com.example.demo'",
                "Info.plist: no UIApplicationSceneManifest: built with the iOS 27 SDK (Xcode 27), an app without the scene-based life cycle does not launch (Apple's TN3187); add the manifest and move the link lines to a scene delegate (DocC: Wiring deep links in each app life cycle). A target whose Info.plist Xcode generates has it in the built app's Info.plist: check that one",
                "Info.plist: the URL type of 'demoapp' has no CFBundleURLName (a unique reverse-DNS name, such as com.example.demo)",
                "Info.plist: the URL type of 'demoapp' has the role 'Owner' (Editor, Viewer, Shell or None)",
            ]
        )
        let warnings = report["warnings"] as? [String] ?? []
        #expect(warnings.count == 2, "\(warnings)")
        #expect(
            warnings.first?.hasPrefix("entitlements: 'applinks:links.example.com?mode=developer' is for development")
                == true
        )
        #expect(
            warnings.last
                == "entitlements: applinks:elsewhere.example.org is not a configured domain: this server does not serve its association file"
        )

        let none = try write(
            ["CFBundleURLTypes": [["CFBundleURLName": "x", "CFBundleURLSchemes": ["other"]]]],
            "None.plist"
        )
        let noDomain = try write(
            ["com.apple.developer.associated-domains": ["webcredentials:links.example.com"]],
            "none.entitlements"
        )
        let missing = try CommandRunner.run([
            "check", "--no-links", "--landing-domain", "go.example.com", "--info-plist", none, "--entitlements",
            noDomain,
        ])
        #expect(missing.status == 1)
        #expect(
            missing.stdout.contains(
                "problem: Info.plist: no URL type registers the scheme 'demoapp' (CFBundleURLTypes ▸ CFBundleURLSchemes)\n"
            )
        )
        #expect(
            missing.stdout.contains(
                "problem: entitlements: applinks:links.example.com is missing: iOS opens no universal link of links.example.com in the app\n"
            )
        )
    }

    /// `applinks:*.example.com` makes iOS read example.com's file for links.example.com, which this server does not
    /// serve there: the matcher, given the entitlement, says so.
    @Test func aWildcardEntitlementThatMovesTheFileIsAProblem() throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("app.entitlements")
        try PropertyListSerialization.data(
            fromPropertyList: ["com.apple.developer.associated-domains": ["applinks:*.example.com"]],
            format: .xml,
            options: 0
        ).write(to: url)
        let result = try CommandRunner.run([
            "check", "--no-links", "--landing-domain", "go.example.com", "--entitlements", url.path,
        ])
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                "problem: entitlements: with these entries, iOS would not open the app for https://links.example.com/reset-password"
            ),
            "\(result.stdout)"
        )
    }

    @Test func anUnreadableProjectFileExitsWith2() throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let garbage = folder.appendingPathComponent("Info.plist")
        try Data("not a plist".utf8).write(to: garbage)
        for path in [garbage.path, "/no/such/Info.plist"] {
            let result = try CommandRunner.run(["check", "--no-links", "--info-plist", path])
            #expect(result.status == 2)
            #expect(result.stderr.hasPrefix("error: \(path): "), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func unreadableLinksEndWithOneLine() throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CommandRunner.run([
            "check", "--landing-domain", "go.example.com", "--database-url", "sqlite:\(folder.path)/empty.sqlite",
        ])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: links: cannot be read from sqlite:"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}

@Suite struct LinksConfigurationTests {
    @Test func theConfigurationFilesLinksSectionIsReadAndFlagsOverrideIt() throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            at: CheckCommandTests.examples.appendingPathComponent("demo-routes.json"),
            to: folder.appendingPathComponent("demo-routes.json")
        )
        var config =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: CheckCommandTests.examples.appendingPathComponent("demo-app.json"))
            ) as! [String: Any]
        config["links"] = [
            "linkDomain": "go.example.com", "landingDomain": "open.example.com",
            "allowedDestinationHosts": ["shop.example.org"],
        ]
        let path = folder.appendingPathComponent("app.json")
        try JSONSerialization.data(withJSONObject: config).write(to: path)
        let fromFile = try CommandRunner.run(["check", "--no-links", "--config", path.path])
        #expect(fromFile.status == 0, "\(fromFile.stdout)\(fromFile.stderr)")
        let overridden = try CommandRunner.run([
            "check", "--no-links", "--config", path.path, "--landing-domain", "go.example.com",
        ])
        #expect(overridden.stdout.contains("problem: the landing domain is the link domain (go.example.com)"))

        config["links"] = [
            "linkDomain": "go.example.com", "landingDomain": "go.example.com",
            "allowedDestinationHosts": ["not a host"],
        ]
        try JSONSerialization.data(withJSONObject: config).write(to: path)
        let bad = try CommandRunner.run(["check", "--no-links", "--config", path.path])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("links.allowedDestinationHosts[0]: 'not a host'"))
        #expect(bad.stderr.contains("links.landingDomain: 'go.example.com' is the link domain"))
    }
}
