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
        try FileManager.default.copyItem(at: Self.examples.appendingPathComponent("demo-routes.json"), to: folder.appendingPathComponent("demo-routes.json"))
        var config = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.examples.appendingPathComponent("demo-app.json"))) as! [String: Any]
        var app = config["app"] as! [String: Any]
        app["excludedPaths"] = ["/account/*", "/post/*"]
        config["app"] = app
        let path = folder.appendingPathComponent("app.json")
        try JSONSerialization.data(withJSONObject: config).write(to: path)
        let result = try CommandRunner.run(["check", "--no-links", "--landing-domain", "go.example.com", "--config", path.path])
        #expect(result.status == 1)
        #expect(result.stdout.contains("problem: route 'post' (/post/:id): iOS would not open the app for https://links.example.com/post/1"), "\(result.stdout)")
        #expect(result.stdout.contains("problem: route 'comments' (/post/:id/comments)"))
        #expect(!result.stdout.contains("route 'search'"))
    }

    /// The other app's configuration passes; made to carry its reset token in a custom-scheme link, it is refused
    /// without a server being started, with the reason.
    @Test func aResetRouteThatLeaksItsTokenIsReportedByCheck() throws {
        let other = Self.examples.deletingLastPathComponent().appendingPathComponent("Tests/Support/other-app")
        let good = try CommandRunner.run(["check", "--no-links", "--config", other.appendingPathComponent("app.json").path])
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        #expect(good.stdout == "ok: 4 routes, 2 domain(s), 0 links checked\n")

        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: other.appendingPathComponent("routes.json"), to: folder.appendingPathComponent("routes.json"))
        var config = try JSONSerialization.jsonObject(with: Data(contentsOf: other.appendingPathComponent("app.json"))) as! [String: Any]
        var app = config["app"] as! [String: Any]
        app["passwordReset"] = ["route": "account-reset-in-app", "tokenParameter": "code"]
        config["app"] = app
        let path = folder.appendingPathComponent("app.json")
        try JSONSerialization.data(withJSONObject: config).write(to: path)
        let bad = try CommandRunner.run(["check", "--no-links", "--config", path.path])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("app.passwordReset.route: 'account-reset-in-app' does not accept universal links"), "\(bad.stderr)")
        #expect(bad.stderr.contains("'code' of route 'account-reset-in-app' is in the query"), "\(bad.stderr)")
    }

    @Test func unreadableLinksEndWithOneLine() throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try CommandRunner.run(["check", "--landing-domain", "go.example.com", "--database-url", "sqlite:\(folder.path)/empty.sqlite"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: links: cannot be read from sqlite:"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}

@Suite struct LinksConfigurationTests {
    @Test func theConfigurationFilesLinksSectionIsReadAndFlagsOverrideIt() throws {
        let folder = try CommandRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: CheckCommandTests.examples.appendingPathComponent("demo-routes.json"), to: folder.appendingPathComponent("demo-routes.json"))
        var config = try JSONSerialization.jsonObject(with: Data(contentsOf: CheckCommandTests.examples.appendingPathComponent("demo-app.json"))) as! [String: Any]
        config["links"] = ["linkDomain": "go.example.com", "landingDomain": "open.example.com", "allowedDestinationHosts": ["shop.example.org"]]
        let path = folder.appendingPathComponent("app.json")
        try JSONSerialization.data(withJSONObject: config).write(to: path)
        let fromFile = try CommandRunner.run(["check", "--no-links", "--config", path.path])
        #expect(fromFile.status == 0, "\(fromFile.stdout)\(fromFile.stderr)")
        let overridden = try CommandRunner.run(["check", "--no-links", "--config", path.path, "--landing-domain", "go.example.com"])
        #expect(overridden.stdout.contains("problem: the landing domain is the link domain (go.example.com)"))

        config["links"] = ["linkDomain": "go.example.com", "landingDomain": "go.example.com", "allowedDestinationHosts": ["not a host"]]
        try JSONSerialization.data(withJSONObject: config).write(to: path)
        let bad = try CommandRunner.run(["check", "--no-links", "--config", path.path])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("links.allowedDestinationHosts[0]: 'not a host'"))
        #expect(bad.stderr.contains("links.landingDomain: 'go.example.com' is the link domain"))
    }
}
