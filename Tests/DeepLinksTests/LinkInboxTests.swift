import DeepLinks
import Testing

@Suite struct LinkInboxTests {
    static func handled(_ actions: [LinkInbox.Action]) -> [String] {
        actions.compactMap { if case .handle(let delivery) = $0 { delivery.url } else { nil } }
    }

    static func dropped(_ actions: [LinkInbox.Action]) -> [LinkInbox.DropReason] {
        actions.compactMap { if case .drop(_, let reason) = $0 { reason } else { nil } }
    }

    @Test func P3_launchOptionsAndOpenReportOneLinkOnce() {
        var inbox = LinkInbox()
        #expect(Self.handled(inbox.receive("app://post/1", via: .launchOptionsURL, at: .seconds(0))).isEmpty)
        #expect(
            Self.dropped(inbox.receive("app://post/1", via: .applicationOpenURL, at: .milliseconds(50))) == [.duplicate]
        )
        #expect(Self.handled(inbox.setReady(true, at: .seconds(1))) == ["app://post/1"])
    }

    @Test func P12_aSceneDelegateAndOnOpenURLReportOneLinkOnceInEitherOrder() {
        for (first, second) in [
            (LinkChannel.sceneOpenURLContexts, LinkChannel.onOpenURL), (.onOpenURL, .sceneOpenURLContexts),
            (.onOpenURL, .onContinueUserActivity),
        ] {
            var inbox = LinkInbox()
            _ = inbox.setReady(true, at: .zero)
            #expect(Self.handled(inbox.receive("https://x.com/a", via: first, at: .seconds(10))) == ["https://x.com/a"])
            #expect(
                Self.dropped(inbox.receive("https://x.com/a", via: second, at: .seconds(10) + .milliseconds(5))) == [
                    .duplicate
                ]
            )
        }
    }

    @Test func aGenuineRepeatOnOneChannelIsHandledTwice() {
        var inbox = LinkInbox()
        _ = inbox.setReady(true, at: .zero)
        #expect(
            Self.handled(inbox.receive("app://post/1", via: .sceneOpenURLContexts, at: .seconds(1))) == ["app://post/1"]
        )
        #expect(
            Self.handled(
                inbox.receive("app://post/1", via: .sceneOpenURLContexts, at: .seconds(1) + .milliseconds(300))
            ) == ["app://post/1"]
        )
    }

    @Test func aTwinAbsorbsOneDuplicateOnlySoALaterTapStillCounts() {
        var inbox = LinkInbox()
        _ = inbox.setReady(true, at: .zero)
        _ = inbox.receive("app://a", via: .onOpenURL, at: .seconds(1))
        #expect(Self.dropped(inbox.receive("app://a", via: .sceneOpenURLContexts, at: .seconds(1))) == [.duplicate])
        #expect(
            Self.handled(inbox.receive("app://a", via: .sceneOpenURLContexts, at: .milliseconds(1500))) == ["app://a"]
        )
    }

    @Test func twinsOutsideTheWindowAreTwoLinks() {
        var inbox = LinkInbox()
        _ = inbox.setReady(true, at: .zero)
        _ = inbox.receive("app://a", via: .launchOptionsURL, at: .seconds(1))
        #expect(Self.handled(inbox.receive("app://a", via: .applicationOpenURL, at: .seconds(4))) == ["app://a"])
    }

    @Test func P6_linksWaitForReadinessAndKeepTheirOrder() {
        var inbox = LinkInbox()
        for (index, url) in ["app://1", "app://2", "app://3"].enumerated() {
            #expect(inbox.receive(url, via: .sceneConnectionURLContext, at: .milliseconds(index)).isEmpty)
        }
        #expect(inbox.held.map(\.url) == ["app://1", "app://2", "app://3"])
        #expect(Self.handled(inbox.setReady(true, at: .seconds(1))) == ["app://1", "app://2", "app://3"])
        #expect(inbox.held.isEmpty)
        _ = inbox.setReady(false, at: .seconds(2))
        #expect(inbox.receive("app://4", via: .sceneOpenURLContexts, at: .seconds(3)).isEmpty)
        #expect(Self.handled(inbox.setReady(true, at: .seconds(4))) == ["app://4"])
    }

    @Test func aLinkWhoseRouteNeedsSignInWaitsForItWithoutBlockingOthers() {
        var inbox = LinkInbox()
        _ = inbox.setReady(true, at: .zero)
        #expect(inbox.receive("app://account", via: .onOpenURL, at: .seconds(1), requires: ["signedIn"]).isEmpty)
        #expect(Self.handled(inbox.receive("app://post/1", via: .onOpenURL, at: .seconds(2))) == ["app://post/1"])
        #expect(Self.handled(inbox.setCondition("signedIn", holds: true, at: .seconds(3))) == ["app://account"])
    }

    @Test func latestWinsDropsOlderHeldLinksAsSuperseded() {
        var inbox = LinkInbox(configuration: .init(heldPolicy: .latestWins))
        _ = inbox.receive("app://1", via: .onOpenURL, at: .seconds(0))
        let actions = inbox.receive("app://2", via: .onOpenURL, at: .seconds(1))
        #expect(Self.dropped(actions) == [.superseded])
        #expect(Self.handled(inbox.setReady(true, at: .seconds(2))) == ["app://2"])
    }

    @Test func heldLinksExpire() {
        var inbox = LinkInbox(configuration: .init(expiry: .seconds(60)))
        _ = inbox.receive("app://old", via: .onOpenURL, at: .seconds(0))
        _ = inbox.receive("app://new", via: .onOpenURL, at: .seconds(50))
        let actions = inbox.setReady(true, at: .seconds(70))
        #expect(Self.dropped(actions) == [.expired])
        #expect(Self.handled(actions) == ["app://new"])
    }

    @Test func sequencesFollowArrivalOrder() {
        var inbox = LinkInbox()
        _ = inbox.receive("app://a", via: .onOpenURL, at: .zero)
        _ = inbox.receive("app://b", via: .onOpenURL, at: .zero)
        #expect(inbox.held.map(\.sequence) == [0, 1])
    }
}

@Suite struct LinkInboxActivityTests {
    @Test func whileActiveTwinsMustShareARunLoopTurn() {
        var inbox = LinkInbox()
        _ = inbox.setReady(true, at: .zero)
        _ = inbox.setActive(true, at: .zero)
        #expect(
            LinkInboxTests.handled(inbox.receive("https://x.com/a", via: .onContinueUserActivity, at: .seconds(1))) == [
                "https://x.com/a"
            ]
        )
        #expect(
            LinkInboxTests.dropped(
                inbox.receive("https://x.com/a", via: .onOpenURL, at: .seconds(1) + .milliseconds(10))
            ) == [.duplicate]
        )
        // A tenth of a second later, through the other channel: a new tap.
        #expect(
            LinkInboxTests.handled(inbox.receive("https://x.com/a", via: .onOpenURL, at: .seconds(2))) == [
                "https://x.com/a"
            ]
        )
    }

    @Test func becomingActiveEndsWarmTwinCandidatesButKeepsLaunchAndConnectionSightings() {
        var inbox = LinkInbox()
        _ = inbox.setReady(true, at: .zero)
        _ = inbox.receive("app://a", via: .sceneConnectionURLContext, at: .zero)
        _ = inbox.receive("app://b", via: .launchOptionsURL, at: .zero)
        _ = inbox.receive("app://c", via: .sceneOpenURLContexts, at: .zero)
        _ = inbox.setActive(true, at: .milliseconds(10))
        // D, cold, phase active before the publish: SwiftUI's onOpenURL is the scene connection's twin.
        #expect(
            LinkInboxTests.dropped(inbox.receive("app://a", via: .onOpenURL, at: .milliseconds(300))) == [.duplicate]
        )
        #expect(
            LinkInboxTests.dropped(inbox.receive("app://b", via: .applicationOpenURL, at: .milliseconds(30))) == [
                .duplicate
            ]
        )
        // A warm sighting before the boundary and one after it are two taps.
        #expect(LinkInboxTests.handled(inbox.receive("app://c", via: .onOpenURL, at: .milliseconds(20))) == ["app://c"])
    }

    @Test func P8_onlyABrowsingWebActivityCarriesALink() {
        #expect(
            LinkInbox.link(activityType: "NSUserActivityTypeBrowsingWeb", webpageURL: "https://x.com/a")
                == "https://x.com/a"
        )
        #expect(LinkInbox.link(activityType: "com.example.app.handoff", webpageURL: "https://x.com/a") == nil)
        #expect(LinkInbox.link(activityType: "NSUserActivityTypeBrowsingWeb", webpageURL: nil) == nil)
    }
}

@Suite struct DeferredLinkTests {
    static let token = "AbCdEfGhIjKlMnOpQr-_12"

    @Test func theLandingPagesPasteboardTextGivesTheCodeAndToken() throws {
        let link = try #require(
            DeferredLink(
                pasteboard: "https://go.example.com/summer#deferred=\(Self.token)\n",
                linkDomains: ["Go.Example.com"]
            )
        )
        #expect(
            link
                == DeferredLink(
                    pasteboard: " https://GO.example.com/summer#deferred=\(Self.token)",
                    linkDomains: ["go.example.com"]
                )
        )
        #expect(link.host == "go.example.com" && link.code == "summer" && link.token == Self.token)
        #expect(DeferredLink.redeemPath == "/v1/deferred/redeem")
    }

    @Test(arguments: [
        "hello", "https://evil.example/summer#deferred=AbCdEfGhIjKlMnOpQr-_12",
        "http://go.example.com/summer#deferred=AbCdEfGhIjKlMnOpQr-_12",
        "https://go.example.com/a/b#deferred=AbCdEfGhIjKlMnOpQr-_12",
        "https://go.example.com/summer?x=1#deferred=AbCdEfGhIjKlMnOpQr-_12",
        "https://go.example.com/summer#deferred=short", "https://go.example.com/summer#deferred=AbCdEfGhIjKlMnOpQr+/12",
        "https://go.example.com/summer#other=AbCdEfGhIjKlMnOpQr-_12", "https://go.example.com/summer",
        "https://user@go.example.com/summer#deferred=AbCdEfGhIjKlMnOpQr-_12",
    ])
    func anythingElseOnThePasteboardIsNotADeferredLink(_ text: String) {
        #expect(DeferredLink(pasteboard: text, linkDomains: ["go.example.com"]) == nil)
    }

    @Test func aDeferredLinkHasNoTwinSoTheSameLinkTappedLaterStillCounts() {
        var inbox = LinkInbox()
        _ = inbox.setReady(true, at: .zero)
        #expect(
            LinkInboxTests.handled(inbox.receive("https://x.com/post/1", via: .deferred, at: .zero)) == [
                "https://x.com/post/1"
            ]
        )
        #expect(
            LinkInboxTests.handled(inbox.receive("https://x.com/post/1", via: .onOpenURL, at: .milliseconds(10))) == [
                "https://x.com/post/1"
            ]
        )
    }
}
