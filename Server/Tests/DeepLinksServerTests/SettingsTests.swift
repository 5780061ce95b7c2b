@testable import DeepLinksMail
import DeepLinksSecrets
import DeepLinksServer
@testable import DeepLinksStorage
@testable import DeepLinksSupport
import DemoAppRoutes
import Foundation
import Logging
import Testing

@Suite struct DatabaseURLTests {
    @Test(arguments: [
        ("sqlite:var/deeplinks.sqlite", DatabaseURL.sqliteFile(path: "var/deeplinks.sqlite")),
        ("sqlite:///tmp/x.sqlite", .sqliteFile(path: "/tmp/x.sqlite")),
        ("sqlite::memory:", .sqliteMemory),
        ("postgres://u:p@localhost:5432/db", .postgres(url: "postgres://u:p@localhost:5432/db")),
        (
            "POSTGRESQL://u@db.internal/app?sslmode=require",
            .postgres(url: "postgresql://u@db.internal/app?sslmode=require")
        ),
    ])
    func acceptedForms(_ input: String, _ expected: DatabaseURL) throws {
        #expect(try DatabaseURL(parsing: input) == expected)
    }

    @Test(arguments: [
        ("", "database URL: is empty"),
        (
            "mysql://u:hunter2@h/db",
            "database URL: unsupported scheme 'mysql': use sqlite:PATH or postgres://USER:PASSWORD@HOST/DATABASE"
        ),
        ("sqlite:", "database URL: sqlite: needs a file path, as in sqlite:var/deeplinks.sqlite"),
        (
            "postgres://u:hunter2@/db",
            "database URL: postgres://u:***@/db is not a valid PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE)"
        ),
        ("postgres://localhost/db", "database URL: postgres://localhost/db names no user"),
        ("postgres://u:p@h:99999/db", "database URL: port 99999 is out of range"),
        ("sqlite:a\u{0}b", "database URL: contains a control character"),
    ])
    func malformedURLsGiveAReasonWithoutThePassword(_ input: String, _ message: String) {
        #expect(throws: ConfigurationError.self) { try DatabaseURL(parsing: input) }
        do {
            _ = try DatabaseURL(parsing: input)
        } catch {
            #expect(error.description == message)
            #expect(!error.description.contains("hunter2"))
        }
    }

    @Test func redactionHidesThePasswordOnly() throws {
        let url = try DatabaseURL(parsing: "postgres://app:s3cr%40t@db:5432/links")
        #expect(url.redacted == "postgres://app:***@db:5432/links")
        #expect("\(url)" == "postgres://app:***@db:5432/links")
    }

    @Test func anUnreachableDatabaseFailsWithOneLineAndNoSecret() async throws {
        let url = try DatabaseURL(parsing: "postgres://app:hunter2@127.0.0.1:1/links?sslmode=disable")
        do {
            _ = try await Database.open(url, logger: .init(label: "test"))
            Issue.record("opening a closed port should fail")
        } catch let error as DatabaseError {
            #expect(
                error.description.hasPrefix(
                    "cannot open the database at postgres://app:***@127.0.0.1:1/links?sslmode=disable: "
                )
            )
            #expect(!error.description.contains("hunter2"))
            #expect(!error.description.contains("\n"))
        }
    }
}

@Suite struct MailURLTests {
    @Test(arguments: [
        ("var/mail/", MailURL.folder(path: "var/mail/")),
        ("file:/srv/mail", .folder(path: "/srv/mail")),
        (
            "smtp://mailer:pw@127.0.0.1:2525",
            .smtp(.init(host: "127.0.0.1", port: 2525, implicitTLS: false, username: "mailer", password: "pw"))
        ),
        (
            "smtps://smtp.example.com",
            .smtp(.init(host: "smtp.example.com", port: 465, implicitTLS: true, username: nil, password: nil))
        ),
        (
            "smtp://smtp.example.com",
            .smtp(.init(host: "smtp.example.com", port: 587, implicitTLS: false, username: nil, password: nil))
        ),
    ])
    func acceptedForms(_ input: String, _ expected: MailURL) throws {
        #expect(try MailURL(parsing: input) == expected)
    }

    @Test(arguments: [
        ("", "mail URL: is empty"),
        (
            "imap://u:hunter2@h",
            "mail URL: unsupported scheme in imap://u:***@h: use a folder path, smtp:// or smtps://"
        ),
        ("smtp://", "mail URL: smtp:// is not a valid SMTP URL"),
        ("smtp://h:70000", "mail URL: port 70000 is out of range"),
    ])
    func malformedURLsGiveAReason(_ input: String, _ message: String) {
        do {
            _ = try MailURL(parsing: input)
            Issue.record("\(input) should be refused")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func theDescriptionHidesThePassword() throws {
        #expect("\(try MailURL(parsing: "smtp://mailer:hunter2@h:25"))" == "smtp://mailer:***@h:25")
    }
}

@Suite struct AppConfigurationTests {
    static let examplePath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/demo-app.json").path

    @Test func theShippedExampleIsTheDemoApp() throws {
        #expect(AppConfiguration.demo.appID == "ABCDE12345.com.example.demo")
        #expect(AppConfiguration.demo.customScheme == DemoRoute.scheme)
        #expect(AppConfiguration.demo.domains == [DemoRoute.host])
    }

    @Test(arguments: [
        ("", "config.json: is not valid JSON"),
        ("[1]", "config.json: the top level: expected an object"),
        (#"{"app": {"teamID": 5}}"#, "config.json: app.teamID: expected a string"),
        (#"{"app": {"domains": "links.example.com"}}"#, "config.json: app.domains: expected an array"),
        ("{}", "config.json: app: is required"),
        (#"{"apps": []}"#, "config.json: apps: list at least one app"),
        (#"{"app": {}, "apps": [{}]}"#, "config.json: app, apps: give one app as app, or several as apps, not both"),
        (
            #"{"apps": [{"teamID": "ABCDE12345", "bundleID": "a.b", "customScheme": "x", "domains": ["x.com"]}, {"teamID": "ABCDE12345"}]}"#,
            "config.json has 3 problems: apps[1].bundleID: is required; apps[1].customScheme: is required; apps[1].domains: list at least one universal-link domain"
        ),
        (
            #"{"app": {"teamID": "abc", "bundleID": "demo", "customScheme": "https", "domains": ["https://x.com", "a.com:8443", "*.a.com", "a..com", "ok.example.com"], "appStoreID": "id123"}}"#,
            "config.json has 8 problems: app.teamID: 'abc' is not ten upper-case letters or digits; app.bundleID: 'demo' is not a reverse-DNS identifier (letters, digits, '-' and '.'); app.customScheme: 'https' is reserved; choose a scheme of the app's own; app.domains[0]: 'https://x.com' must be a host name without a scheme; app.domains[1]: 'a.com:8443' must be a host name without a port; app.domains[2]: '*.a.com' is a wildcard; list the exact host the server answers for; app.domains[3]: 'a..com' is not a valid host name; app.appStoreID: 'id123' is not the numeric App Store ID (digits only, without 'id')"
        ),
        (
            #"{"app": {"teamID": "ABCDE12345", "bundleID": "a.b", "customScheme": "1app", "domains": ["x.com"]}}"#,
            "config.json: app.customScheme: '1app' is not a URL scheme (a letter, then letters, digits, '+', '-' or '.')"
        ),
    ])
    func malformedFilesListEveryProblem(_ json: String, _ message: String) {
        do {
            _ = try AppConfiguration.decode(Data(json.utf8), source: "config.json")
            Issue.record("should be refused: \(json)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func theTwoAppsExampleLoadsAndItsFilesValidate() throws {
        let path = URL(fileURLWithPath: Self.examplePath).deletingLastPathComponent().appendingPathComponent(
            "two-apps.json"
        ).path
        let configuration = try AppConfiguration.load(path: path)
        #expect(configuration.apps.map(\.displayName) == ["Demo", "Demo Lite"])
        #expect(configuration.apps.allSatisfy { $0.routes != nil })
        let files = try AssociationFiles(app: configuration, links: configuration.links)
        #expect(
            String(decoding: files.appleAppSiteAssociation.body, as: UTF8.self).contains(
                "ABCDE12345.com.example.demo.lite"
            )
        )
        #expect(files.linkDomainAssociation?.hosts == ["go.example.com"])
    }

    @Test func severalAppsShareADomainButNotAnIdentitySchemeOrPackage() throws {
        let fingerprint = [String](repeating: "AB", count: 32).joined(separator: ":")
        func app(_ bundle: String, _ scheme: String, _ domain: String, package: String? = nil, store: String? = nil)
            -> String
        {
            let android =
                package.map {
                    #", "android": {"packageName": "\#($0)", "sha256CertFingerprints": ["\#(fingerprint)"]\#(store.map { #", "playStoreURL": "\#($0)""# } ?? "")}"#
                } ?? ""
            return
                #"{"teamID": "ABCDE12345", "bundleID": "\#(bundle)", "customScheme": "\#(scheme)", "domains": ["\#(domain)"]\#(android)}"#
        }
        let three =
            #"{"apps": [\#(app("com.example.demo", "demoapp", "links.example.com")), \#(app("com.example.demo.Clip", "democlip", "links.example.com")), \#(app("com.example.lite", "lite", "lite.example.com", package: "com.example.lite", store: "https://play.example.org/lite"))]}"#
        let configuration = try AppConfiguration.decode(Data(three.utf8), source: "c")
        #expect(configuration.bundleID == "com.example.demo", "the first app is the primary one")
        #expect(
            configuration.apps.map(\.bundleID) == ["com.example.demo", "com.example.demo.Clip", "com.example.lite"]
        )
        #expect(configuration.apps.allSatisfy { $0.additionalApps.isEmpty })
        #expect(
            configuration.app(bundleID: "com.example.lite")?.android?.playStoreURL == "https://play.example.org/lite"
        )
        #expect(
            AppConfiguration.AndroidApp(packageName: "p.q", sha256CertFingerprints: []).playStoreURL
                == "https://play.google.com/store/apps/details?id=p.q"
        )

        let clash =
            #"{"apps": [\#(app("com.example.demo", "demoapp", "a.com", package: "p.q")), \#(app("com.example.demo", "demoapp", "b.com", package: "p.q", store: "http://play.example.org/"))]}"#
        do {
            _ = try AppConfiguration.decode(Data(clash.utf8), source: "c")
            Issue.record("an http store URL must be refused")
        } catch {
            #expect(
                error.problems == [
                    "apps[1].android.playStoreURL: 'http://play.example.org/' is not an https URL"
                ]
            )
        }
        let twins =
            #"{"apps": [\#(app("com.example.demo", "demoapp", "a.com", package: "p.q")), \#(app("com.example.demo", "demoapp", "b.com", package: "p.q"))]}"#
        do {
            _ = try AppConfiguration.decode(Data(twins.utf8), source: "c")
            Issue.record("two apps with one identity must be refused")
        } catch {
            #expect(
                Set(error.problems) == [
                    "apps: two apps have the bundle ID 'ABCDE12345.com.example.demo'",
                    "apps: two apps have the custom scheme 'demoapp'",
                    "apps: two apps have the Android package 'p.q'",
                ]
            )
        }
    }

    @Test func earlierLinkDomainsAreHostsOfTheirOwn() throws {
        func decode(_ others: String) throws -> AppConfiguration {
            try AppConfiguration.decode(
                Data(
                    #"{"app": {"teamID": "ABCDE12345", "bundleID": "com.x.y", "customScheme": "x", "domains": ["a.com"]}, "links": {"linkDomain": "go.a.com", "otherLinkDomains": \#(others)}}"#
                        .utf8
                ),
                source: "c"
            )
        }
        #expect(try decode(#"["Old.Page.Example"]"#).links.otherLinkDomains == ["old.page.example"])
        do {
            _ = try decode(#"["old.page.example", "https://x.page.link"]"#)
            Issue.record("a URL is no host")
        } catch let error as ConfigurationError {
            #expect(
                error.problems == [
                    "links.otherLinkDomains[1]: 'https://x.page.link' must be a host name without a scheme"
                ]
            )
        }
    }

    @Test func hostsAndSchemesAreLowerCased() throws {
        let json =
            #"{"app": {"teamID": "ABCDE12345", "bundleID": "com.x.y", "customScheme": "MyApp", "domains": ["Links.Example.COM"]}}"#
        let app = try AppConfiguration.decode(Data(json.utf8), source: "c")
        #expect(app.customScheme == "myapp")
        #expect(app.domains == ["links.example.com"])
        #expect(app.displayName == "com.x.y")
    }
}

@Suite struct SecretKeysTests {
    @Test func keysParseNewestFirstAndRefuseShortOrDuplicateOnesWithoutEchoingThem() throws {
        let strong = Data(repeating: 1, count: 32).base64EncodedString()
        let keys = try SecretKeys(parsing: "1:\(strong), 3:\(strong)")
        #expect(keys.current.version == 3)
        #expect(keys.keys.map(\.version) == [3, 1])
        let short = Data(repeating: 2, count: 16).base64EncodedString()
        for bad in ["", "1:\(short)", "1:\(strong),1:\(strong)", "one:\(strong)", "1-\(strong)", "0:\(strong)"] {
            #expect(throws: ConfigurationError.self) { try SecretKeys(parsing: bad) }
            do {
                _ = try SecretKeys(parsing: bad)
            } catch {
                #expect(!error.description.contains(strong) && !error.description.contains(short))
            }
        }
    }

    @Test func resetSettingsRefuseALifetimeOutsideFiveToOneHundredTwentyMinutesAndAWeakMinimum() throws {
        var settings = PasswordResetSettings()
        #expect(throws: Never.self) { try settings.validated() }
        settings.passwordPolicy.minimumLength = 7
        #expect(throws: ConfigurationError.self) { try settings.validated() }
        settings.passwordPolicy.minimumLength = 8
        settings.tokenLifetimeSeconds = 120 * 60
        #expect(throws: Never.self) { try settings.validated() }
    }
}
