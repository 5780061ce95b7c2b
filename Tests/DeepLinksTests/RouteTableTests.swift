import DeepLinks
import DemoAppRoutes
import Foundation
import Testing

/// The URL table of the route table: every case names the destination it reaches or the code it is refused with.
@Suite struct RouteTableTests {
    enum Expected: Sendable, Equatable {
        case route(DemoRoute)
        case refused(String)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var url: String
        var expected: Expected
        init(_ url: String, _ expected: Expected) {
            self.url = url
            self.expected = expected
        }
        var testDescription: String { url.count > 80 ? String(url.prefix(80)) + "…" : url }
    }

    static let token = "AbCdEfGhIjKlMnOpQrStUvWxYz012345-_"
    static let uuid = UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8")!

    static let valid: [Case] = {
        let t = token
        var cases: [Case] = []
        // One destination, every link form.
        for form in [
            "demoapp://post/10", "demoapp:///post/10", "demoapp:post/10", "DEMOAPP://post/10", "demoapp://POST/10",
            "demoapp://post/10/", "demoapp://post//10", "https://links.example.com/post/10",
            "https://LINKS.EXAMPLE.COM/post/10", "https://links.example.com/post/10/",
            "https://links.example.com//post/10",
            "https://links.example.com./post/10", "https://links.example.com/post/10?utm_source=mail",
            "https://links.example.com/post/10#section", "demoapp://post/10?ref=share&ref=again",
            "https://links.example.com/post/%31%30", "demoapp://po%73t/10",
        ] {
            cases.append(Case(form, .route(.post(id: 10))))
        }
        cases += [
            Case("demoapp://", .route(.home)),
            Case("demoapp:///", .route(.home)),
            Case("demoapp:", .route(.home)),
            Case("https://links.example.com", .route(.home)),
            Case("https://links.example.com/", .route(.home)),
            Case("https://links.example.com/?utm_campaign=x", .route(.home)),
            Case("demoapp://post/0", .route(.post(id: 0))),
            Case("demoapp://post/-5", .route(.post(id: -5))),
            Case("demoapp://post/9223372036854775807", .route(.post(id: Int.max))),
            // A literal beats a parameter, whatever the declaration order; backtracking finds the rest.
            Case("demoapp://post/new", .route(.newPost)),
            Case("https://links.example.com/post/new", .route(.newPost)),
            Case("https://links.example.com/post/new/", .route(.newPost)),
            Case("demoapp://post/7/comments", .route(.comments(postID: 7))),
            Case("https://links.example.com/post/7/comments/", .route(.comments(postID: 7))),
            Case("demoapp://post/new/comments", .refused("invalid_parameter")),
            // Reset: fragment for universal links, query for the custom scheme.
            Case("https://links.example.com/reset-password#token=\(t)", .route(.resetPassword(token: t, email: nil))),
            Case("https://links.example.com/reset-password/#token=\(t)", .route(.resetPassword(token: t, email: nil))),
            Case(
                "https://links.example.com/reset-password#token=\(t)&email=user%2Btag%40example.com",
                .route(.resetPassword(token: t, email: "user+tag@example.com"))
            ),
            Case(
                "https://links.example.com/reset-password#email=a%40b.co&token=\(t)",
                .route(.resetPassword(token: t, email: "a@b.co"))
            ),
            Case(
                "https://links.example.com/reset-password?utm_source=x#token=\(t)",
                .route(.resetPassword(token: t, email: nil))
            ),
            Case("demoapp://reset-password?token=\(t)", .route(.resetPassword(token: t, email: nil))),
            Case("demoapp:///reset-password?token=\(t)", .route(.resetPassword(token: t, email: nil))),
            Case("demoapp:reset-password?token=\(t)", .route(.resetPassword(token: t, email: nil))),
            Case(
                "demoapp://reset-password?token=\(t)&email=user+tag@example.com",
                .route(.resetPassword(token: t, email: "user+tag@example.com"))
            ),
            Case(
                "demoapp://reset-password?token=\(t)&email=user%2Btag%40example.com",
                .route(.resetPassword(token: t, email: "user+tag@example.com"))
            ),
            Case("demoapp://reset-password?email=x%40y.z&token=\(t)", .route(.resetPassword(token: t, email: "x@y.z"))),
            // Search: + is a plus, %20 a space, repeated keys a list, defaults.
            Case("demoapp://search?q=swift", .route(.search(query: "swift", tags: [], page: 1))),
            Case("demoapp://search?q=a+b", .route(.search(query: "a+b", tags: [], page: 1))),
            Case("demoapp://search?q=a%2Bb", .route(.search(query: "a+b", tags: [], page: 1))),
            Case("demoapp://search?q=a%20b", .route(.search(query: "a b", tags: [], page: 1))),
            Case("demoapp://search?q=%25", .route(.search(query: "%", tags: [], page: 1))),
            Case("demoapp://search?q=%2525", .route(.search(query: "%25", tags: [], page: 1))),
            Case("demoapp://search?q=caf%C3%A9", .route(.search(query: "café", tags: [], page: 1))),
            Case("demoapp://search?q=café", .route(.search(query: "café", tags: [], page: 1))),
            Case("demoapp://search?q=%F0%9F%98%80", .route(.search(query: "😀", tags: [], page: 1))),
            Case("demoapp://search?q=a%26b%3Dc", .route(.search(query: "a&b=c", tags: [], page: 1))),
            Case("demoapp://search?q=a/b?c", .route(.search(query: "a/b?c", tags: [], page: 1))),
            Case(
                "demoapp://search?q=x&tag=a&tag=b&tag=c",
                .route(.search(query: "x", tags: ["a", "b", "c"], page: 1))
            ),
            Case("demoapp://search?tag=b&q=x&tag=a", .route(.search(query: "x", tags: ["b", "a"], page: 1))),
            Case("demoapp://search?q=x&page=3", .route(.search(query: "x", tags: [], page: 3))),
            Case(
                "https://links.example.com/search?q=x&page=2&tag=t",
                .route(.search(query: "x", tags: ["t"], page: 2))
            ),
            Case("https://links.example.com/search/?q=x", .route(.search(query: "x", tags: [], page: 1))),
            Case("demoapp://search?q=x&unknown=1", .route(.search(query: "x", tags: [], page: 1))),
            Case("demoapp://search?q=x#frag", .route(.search(query: "x", tags: [], page: 1))),
            // UUID, catch-all and a custom parameter type.
            Case("https://links.example.com/u/6ba7b810-9dad-11d1-80b4-00c04fd430c8", .route(.profile(id: uuid))),
            Case("https://links.example.com/u/6BA7B810-9DAD-11D1-80B4-00C04FD430C8", .route(.profile(id: uuid))),
            Case("demoapp://files/a", .route(.file(path: "a"))),
            Case("demoapp://files/a/b/c.txt", .route(.file(path: "a/b/c.txt"))),
            Case("https://links.example.com/files/docs/r%C3%A9sum%C3%A9.pdf", .route(.file(path: "docs/résumé.pdf"))),
            Case("https://links.example.com/files/a%2Fb", .route(.file(path: "a/b"))),
            Case("demoapp://files/new", .route(.file(path: "new"))),
            Case("demoapp://settings/account", .route(.settings(tab: .account))),
            Case("demoapp://settings/privacy", .route(.settings(tab: .privacy))),
            Case("https://links.example.com/settings/notifications", .route(.settings(tab: .notifications))),
            Case("demoapp://settings/account?from=push", .route(.settings(tab: .account))),
            Case("demoapp://SETTINGS/account", .route(.settings(tab: .account))),
            Case("demoapp:settings/privacy", .route(.settings(tab: .privacy))),
            Case("demoapp:///files/x/y", .route(.file(path: "x/y"))),
            Case("demoapp:files/x", .route(.file(path: "x"))),
            Case("demoapp://files/post/new", .route(.file(path: "post/new"))),
            Case("https://links.example.com/files/a+b", .route(.file(path: "a+b"))),
            Case("https://links.example.com/files/%E2%9C%93", .route(.file(path: "✓"))),
            Case("demoapp://post/12345678", .route(.post(id: 12345678))),
            Case("https://links.example.com/post/42/comments?sort=new", .route(.comments(postID: 42))),
            Case("demoapp:post/new", .route(.newPost)),
            Case("demoapp:///post/new/", .route(.newPost)),
            Case("demoapp://search?q=%2B%2B", .route(.search(query: "++", tags: [], page: 1))),
            Case("demoapp://search?q=a=b", .route(.search(query: "a=b", tags: [], page: 1))),
            Case("demoapp://search?q=x&tag=%F0%9F%8D%95", .route(.search(query: "x", tags: ["🍕"], page: 1))),
            Case("demoapp://search?q=x&page=-1", .route(.search(query: "x", tags: [], page: -1))),
        ]
        return cases
    }()

    static let invalid: [Case] = {
        let t = token
        return [
            // Sources.
            Case("otherapp://post/10", .refused("scheme_not_accepted")),
            Case("http://links.example.com/post/10", .refused("scheme_not_accepted")),
            Case("ftp://links.example.com/post/10", .refused("scheme_not_accepted")),
            Case("javascript:alert(1)", .refused("scheme_not_accepted")),
            Case("https://example.com/post/10", .refused("host_not_accepted")),
            Case("https://evil.links.example.com/post/10", .refused("host_not_accepted")),
            Case("https://links.example.com.evil.com/post/10", .refused("host_not_accepted")),
            Case("https://links-example.com/post/10", .refused("host_not_accepted")),
            Case("demoapp://u/6ba7b810-9dad-11d1-80b4-00c04fd430c8", .refused("source_not_accepted")),
            Case("https://links.example.com/reset-password?token=\(t)", .refused("missing_parameter")),
            Case("demoapp://reset-password#token=\(t)", .refused("missing_parameter")),
            // Paths.
            Case("demoapp://nowhere", .refused("no_route")),
            Case("demoapp://post", .refused("no_route")),
            Case("demoapp://post/10/comments/5", .refused("no_route")),
            Case("demoapp://post/10/likes", .refused("no_route")),
            Case("https://links.example.com/Post/10", .refused("no_route")),
            Case("https://links.example.com/files", .refused("no_route")),
            Case("https://links.example.com/post%2F10", .refused("no_route")),
            Case("demoapp://settings", .refused("no_route")),
            // Parameter kinds and constraints.
            Case("demoapp://post/abc", .refused("invalid_parameter")),
            Case("demoapp://post/1.5", .refused("invalid_parameter")),
            Case("demoapp://post/+10", .refused("invalid_parameter")),
            Case("demoapp://post/010", .refused("invalid_parameter")),
            Case("demoapp://post/-0", .refused("invalid_parameter")),
            Case("demoapp://post/99999999999999999999", .refused("invalid_parameter")),
            Case("demoapp://post/%20", .refused("invalid_parameter")),
            Case("demoapp://post/abc/comments", .refused("invalid_parameter")),
            Case("https://links.example.com/u/not-a-uuid", .refused("invalid_parameter")),
            Case("https://links.example.com/u/6ba7b8109dad11d180b400c04fd430c8", .refused("invalid_parameter")),
            Case("demoapp://settings/billing", .refused("invalid_parameter")),
            Case("demoapp://settings/Account", .refused("invalid_parameter")),
            Case("demoapp://search", .refused("missing_parameter")),
            Case("demoapp://search?q=", .refused("invalid_parameter")),
            Case("demoapp://search?q", .refused("invalid_parameter")),
            Case("demoapp://search?q=a&q=b", .refused("invalid_parameter")),
            Case("demoapp://search?q=x&page=two", .refused("invalid_parameter")),
            Case("demoapp://search?q=x&page=1&page=2", .refused("invalid_parameter")),
            Case("demoapp://search?q=x&tag=", .refused("invalid_parameter")),
            Case("demoapp://search?q=" + String(repeating: "a", count: 201), .refused("invalid_parameter")),
            Case("https://links.example.com/reset-password", .refused("missing_parameter")),
            Case("https://links.example.com/reset-password#token", .refused("missing_parameter")),
            Case("https://links.example.com/reset-password#token=short", .refused("invalid_parameter")),
            Case("https://links.example.com/reset-password#token=\(t)!", .refused("invalid_character_or_parameter")),
            Case("https://links.example.com/reset-password#token=\(t)%21", .refused("invalid_parameter")),
            Case("https://links.example.com/reset-password#token=\(t)&token=\(t)", .refused("invalid_parameter")),
            Case("https://links.example.com/reset-password#token=\(t)&email=a", .refused("invalid_parameter")),
            Case("demoapp://reset-password?token=" + String(repeating: "a", count: 129), .refused("invalid_parameter")),
            Case("demoapp://reset-password?token=\(t)+", .refused("invalid_parameter")),
            Case("demoapp://reset-password?token=\(t)%2B", .refused("invalid_parameter")),
            // The URL policy, through the table.
            Case("demoapp://post/%ZZ", .refused("invalid_percent_encoding")),
            Case("demoapp://post/1%00", .refused("control_character")),
            Case("demoapp://post/1\u{0}", .refused("control_character")),
            Case("demoapp://post/%FF", .refused("invalid_utf8")),
            Case("demoapp://user@post/10", .refused("userinfo_not_allowed")),
            Case("https://user:pw@links.example.com/post/10", .refused("userinfo_not_allowed")),
            Case("https://links.example.com:443/post/10", .refused("port_not_allowed")),
            Case("https://links.example.com:x/post/10", .refused("invalid_port")),
            Case("demoapp://post/1 0", .refused("invalid_character")),
            Case("demoapp://search?q=<b>", .refused("invalid_character")),
            Case("demoapp://post/10#a#b", .refused("invalid_character")),
            Case("post/10", .refused("missing_scheme")),
            Case("", .refused("empty_url")),
            Case("9app://post/10", .refused("invalid_scheme")),
            Case("https:///post/10", .refused("invalid_host")),
            Case("https://links.example.com/" + String(repeating: "a/", count: 4100), .refused("url_too_long")),
            Case(
                "demoapp://search?q=x&" + (1...64).map { "k\($0)=1" }.joined(separator: "&"),
                .refused("too_many_query_items")
            ),
            Case("demoapp://files/" + String(repeating: "b", count: 2049), .refused("value_too_long")),
            Case("https://links.example.com/post/10?q=%", .refused("invalid_percent_encoding")),
            Case("demoapp://reset-password?token=\(t)&email=%C0%AF", .refused("invalid_utf8")),
            Case("https://links.example.com/settings/%00", .refused("control_character")),
            Case("demoapp://search?q=x&tag=a%0Ab", .refused("control_character")),
        ]
    }()

    @Test func theTableHasOverOneHundredFiftyCases() {
        #expect(Self.valid.count + Self.invalid.count >= 150)
    }

    @Test(arguments: valid + invalid)
    func eachURLReachesItsDestinationOrIsRefusedWithItsCode(_ case_: Case) {
        let result = DemoRoute.table.match(case_.url)
        switch (result, case_.expected) {
        case (.success(let match), .route(let expected)):
            #expect(match.destination == expected)
        case (.failure(let rejection), .refused(let code)):
            if code == "invalid_character_or_parameter" {
                #expect(["invalid_character", "invalid_parameter"].contains(rejection.code.rawValue))
            } else {
                #expect(rejection.code.rawValue == code, "\(rejection)")
            }
        case (.success(let match), .refused(let code)):
            Issue.record("expected \(code), reached \(match.destination)")
        case (.failure(let rejection), .route(let expected)):
            Issue.record("expected \(expected), refused: \(rejection)")
        }
    }

    @Test func rejectionsNeverQuoteASensitiveValue() {
        let secret = "SeCrEtToKeN"
        for url in [
            "https://links.example.com/reset-password#token=\(secret)",
            "demoapp://reset-password?token=\(secret)&email=victim%40example.com",
            "https://links.example.com/reset-password#token=\(secret)&token=\(secret)",
        ] {
            guard case .failure(let rejection) = DemoRoute.table.match(url) else {
                Issue.record("should be refused: \(url)")
                continue
            }
            #expect(!rejection.description.contains(secret))
            #expect(!rejection.description.contains("victim"))
        }
    }

    @Test func matchDescriptionsRedactSensitiveParameters() throws {
        let match = try DemoRoute.table.match("demoapp://reset-password?token=\(Self.token)&email=a%40b.co").get()
        #expect(match.description == "reset-password-scheme /reset-password email=<redacted> token=<redacted>")
        #expect(match.routeName == "reset-password-scheme")
        #expect(match.source == .customScheme("demoapp"))
        let post = try DemoRoute.table.match("https://links.example.com/post/3").get()
        #expect(post.description == "post /post/:id id=3")
        #expect(post.source == .universalLink(host: "links.example.com"))
    }

    @Test func redactReplacesSensitiveQueryAndFragmentValues() {
        let table = DemoRoute.table
        #expect(
            table.redact("demoapp://reset-password?token=abc&email=a%40b.co&x=1")
                == "demoapp://reset-password?token=REDACTED&email=REDACTED&x=1"
        )
        #expect(
            table.redact("https://links.example.com/reset-password#token=abc")
                == "https://links.example.com/reset-password#token=REDACTED"
        )
        #expect(
            table.redact("https://links.example.com/reset-password#abc")
                == "https://links.example.com/reset-password#REDACTED"
        )
        #expect(table.redact("https://links.example.com/post/1?q=x") == "https://links.example.com/post/1?q=x")
        #expect(table.redact("demoapp://x?to%6Ben=abc") == "demoapp://x?to%6Ben=REDACTED")
    }
}
