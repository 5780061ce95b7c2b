import AppSiteAssociation
import DeepLinksJSON
import Foundation
import Testing

/// The entitlement test vectors of specs/aasa.md §2.
@Suite struct AssociatedDomainsTests {
    @Test(
        arguments: [
            (["applinks:example.com"], "example.com", "example.com"),
            (["applinks:example.com"], "www.example.com", nil),
            (["applinks:*.example.com"], "shop.example.com", "example.com"),
            (["applinks:*.example.com"], "example.com", nil),
            (
                ["applinks:*.example.com", "applinks:*.users.example.com"], "emily.users.example.com",
                "users.example.com"
            ),
            (["applinks:*.example.com", "applinks:www.example.com"], "www.example.com", "www.example.com"),
            (["applinks:*.example.com"], "a.b.example.com", "example.com"),
            (["applinks:example.com?mode=developer"], "example.com", "example.com"),
            (["webcredentials:example.com"], "example.com", nil),
            (["applinks:Example.COM"], "EXAMPLE.com", "example.com"),
            (["applinks:*.example.com"], "badexample.com", nil),
        ] as [([String], String, String?)]
    )
    func E1_E4_the_file_that_governs_a_host(_ entitlements: [String], _ host: String, _ expected: String?) throws {
        #expect(try AssociatedDomains(entitlements).fileDomain(forHost: host) == expected)
    }

    @Test func E5_H10_the_developer_mode_is_kept_and_ports_are_refused() throws {
        #expect(
            try AssociatedDomains(["applinks:example.com?mode=developer+managed"]).entries.first?.mode
                == "developer+managed"
        )
        #expect(throws: EntitlementError.self) { try AssociatedDomains(["applinks:example.com:8443"]) }
    }

    @Test(arguments: [
        ("example.com", "is not service:domain"),
        ("links:example.com", "'links' is not a service (applinks, webcredentials, activitycontinuation, appclips)"),
        (
            "applinks:https://example.com",
            "the entry holds only a host: no scheme, path, port or trailing slash (E2, E5)"
        ),
        ("applinks:example.com/", "the entry holds only a host: no scheme, path, port or trailing slash (E2, E5)"),
        (
            "applinks:example.com?mode=test",
            "the only query allowed is ?mode=developer, managed or developer+managed (H10)"
        ),
        ("appclips:*.example.com", "appclips entries cannot use a wildcard (E3)"),
    ])
    func E2_E3_malformed_entries_are_refused_with_a_reason(_ entry: String, _ reason: String) {
        do {
            _ = try AssociatedDomains([entry])
            Issue.record("accepted \(entry)")
        } catch {
            #expect(error.reason == reason)
        }
    }
}

@Suite struct EntitlementMatchingTests {
    static let json =
        #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "*"}]}]}}"#
    static let matcher = AASAMatcher(document: try! JSONValue.parse(Data(json.utf8)))

    @Test func E4_a_wildcard_lets_the_root_file_govern_subdomains() throws {
        let wildcard = try AssociatedDomains(["applinks:*.example.com"])
        let decision = Self.matcher.decide(
            appID: "ABCDE12345.com.example.app",
            url: "https://shop.example.com/x",
            domain: "example.com",
            entitlements: wildcard
        )
        #expect(decision.verdict == .match)
        #expect(
            Self.matcher.decide(
                appID: "ABCDE12345.com.example.app",
                url: "https://example.com/x",
                domain: "example.com",
                entitlements: wildcard
            ).trace == ["E1: no applinks entitlement entry covers example.com"]
        )
    }

    @Test func E3_an_exact_entry_takes_its_hosts_own_file() throws {
        let entitlements = try AssociatedDomains(["applinks:*.example.com", "applinks:www.example.com"])
        let decision = Self.matcher.decide(
            appID: "ABCDE12345.com.example.app",
            url: "https://www.example.com/x",
            domain: "example.com",
            entitlements: entitlements
        )
        #expect(decision.verdict == .nomatch)
        #expect(decision.trace == ["E3, E4: www.example.com is governed by www.example.com's file, not example.com's"])
    }
}
