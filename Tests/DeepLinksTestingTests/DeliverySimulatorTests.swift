import DeepLinks
@testable import DeepLinksTesting
import Testing

@Suite struct DeliverySimulatorTests {
    @Test(arguments: DeliveryScenario.allCells)
    func everyCellOfTheDeliveryTableHandsTheLibraryEachLinkOnce(_ scenario: DeliveryScenario) {
        let outcome = DeliverySimulator(scenario).run(.library)
        #expect(outcome.violations.isEmpty, "\(scenario): \(outcome.violations)")
        #expect(!outcome.handled.isEmpty, "\(scenario): nothing handled")
    }

    @Test func theTraceOfA1DeliversTheURLTwiceAndTheLibraryHandlesItOnce() {
        let scenario = DeliveryScenario(lifecycle: .appDelegate, state: .notRunning, kind: .customScheme)
        let outcome = DeliverySimulator(scenario).run(.library)
        #expect(outcome.trace.count == 4)
        #expect(outcome.handled == ["demoapp://post/10?tag=a&tag=b&q=a+b%2Bc#frag"])
    }

    @Test func theSeedProblemNaiveWiringsLoseTheLinkWhereTheLibraryDoesNot() {
        // A scene-based app that only implements application(_:open:options:): the app opens, the link is gone.
        let coldScene = DeliveryScenario(lifecycle: .sceneDelegate, state: .notRunning, kind: .customScheme)
        var readyFirst = coldScene
        readyFirst.readyAt = .beforeFirstEvent
        #expect(
            DeliverySimulator(readyFirst).run(.naiveApplicationDelegateOnly).violations.contains {
                $0.hasPrefix("lost:")
            }
        )
        // Only openURLContexts, without the connection options: lost at cold start.
        #expect(
            DeliverySimulator(readyFirst).run(.naiveWarmSceneCallbacksOnly).violations.contains {
                $0.hasPrefix("lost:")
            }
        )
        // The same app wired through the inbox.
        #expect(DeliverySimulator(readyFirst).run(.library).violations.isEmpty)
        #expect(DeliverySimulator(coldScene).run(.library).violations.isEmpty)
    }

    @Test func aNaiveAppThatRoutesBeforeItIsReadyLosesTheLink() {
        var scenario = DeliveryScenario(lifecycle: .appDelegate, state: .notRunning, kind: .universalLink)
        scenario.readyAt = .afterLastEvent
        #expect(
            DeliverySimulator(scenario).run(.naiveApplicationDelegateOnly).violations.contains { $0.hasPrefix("lost:") }
        )
        #expect(DeliverySimulator(scenario).run(.library).violations.isEmpty)
    }

    @Test func takingTheFirstContextOfASetLosesTheOthers() {
        var scenario = DeliveryScenario(lifecycle: .sceneDelegate, state: .background, kind: .customScheme)
        scenario.setSize = 2
        scenario.readyAt = .beforeFirstEvent
        #expect(
            DeliverySimulator(scenario).run(.naiveWarmSceneCallbacksOnly).violations.contains { $0.hasPrefix("lost:") }
        )
        #expect(DeliverySimulator(scenario).run(.library).violations.isEmpty)
    }

    @Test func D3_onOpenURLAndTheAppsSceneDelegateBothSeeTheLinkWhichIsHandledOnce() {
        var scenario = DeliveryScenario(lifecycle: .swiftUIWithAdaptor, state: .background, kind: .customScheme)
        scenario.readyAt = .beforeFirstEvent
        let outcome = DeliverySimulator(scenario).run(.library)
        #expect(outcome.violations.isEmpty)
        #expect(
            outcome.handled.count == 1,
            "D3: onOpenURL and the app's scene delegate both see the link; handled once"
        )
    }

    @Test func theOracleReportsLostDuplicatedEarlyAndAlteredLinks() {
        let link = DeviceEvent.Link(url: "app://a?q=a+b", deliveryID: 0)
        let trace: [DeviceEvent] = [.appOpenURL(link), .tick]
        #expect(DeliverySimulator.check(trace, [], readyAt: 0) == ["lost: app://a?q=a+b handled 0 of 1 times"])
        #expect(
            DeliverySimulator.check(trace, [("app://a?q=a+b", 0), ("app://a?q=a+b", 1)], readyAt: 0) == [
                "duplicated: app://a?q=a+b handled 2 times for 1 deliveries"
            ]
        )
        #expect(
            DeliverySimulator.check(trace, [("app://a?q=a+b", 0)], readyAt: 1) == [
                "early: app://a?q=a+b handled before the app was ready"
            ]
        )
        #expect(
            DeliverySimulator.check(trace, [("app://a?q=a%20b", 0)], readyAt: 0).contains(
                "altered or invented: app://a?q=a%20b was never delivered"
            )
        )
        #expect(DeliverySimulator.check(trace, [("app://a?q=a+b", 0)], readyAt: 0).isEmpty)
    }

    @Test func theSweepOfEveryCellAndKnobLosesDuplicatesDelaysOrAltersNothing() {
        let grid = DeliveryScenario.grid(seed: 1)
        var failures = 0
        var knownLimit = 0
        var cells = Set<String>()
        for scenario in grid {
            cells.insert(scenario.cell)
            if scenario.isKnownLimit {
                knownLimit += 1
                continue
            }
            let outcome = DeliverySimulator(scenario).run(.library)
            if !outcome.violations.isEmpty {
                failures += 1
                if failures <= 5 { Issue.record("\(scenario): \(outcome.violations)") }
            }
        }
        print(
            "delivery simulator: \(grid.count) scenarios over \(cells.count) cells (grid seed 1), library wiring, \(failures) with a violation, \(knownLimit) of the known limit apart"
        )
        #expect(cells.count == DeliveryScenario.allCells.count)
        #expect(grid.count > 10_000)
        #expect(failures == 0)
    }
}

extension DeliverySimulatorTests {
    @Test func theKnownLimitLosesOnlyARepeatInsideTheWindow() {
        var scenario = DeliveryScenario(lifecycle: .swiftUIWithAdaptor, state: .notRunning, kind: .universalLink)
        scenario.dropsColdSwiftUIPublish = true
        scenario.repeatLink = true
        let outcome = DeliverySimulator(scenario).run(.library)
        #expect(outcome.violations.count == 1 && outcome.violations[0].hasPrefix("lost:"), "\(outcome.violations)")
        #expect(outcome.handled.count == 1)
        // Without the repeat, the dropped publish loses nothing: the app's scene delegate had the link.
        scenario.repeatLink = false
        #expect(DeliverySimulator(scenario).run(.library).violations.isEmpty)
        // In C (no scene delegate of the app's own), iOS hands the app nothing: lost by the platform, not the library.
        var swiftUIOnly = scenario
        swiftUIOnly.lifecycle = .swiftUI
        let platformLoss = DeliverySimulator(swiftUIOnly).run(.library)
        #expect(platformLoss.handled.isEmpty && platformLoss.violations.isEmpty)
        #expect(platformLoss.undelivered == ["https://links.example.com/post/10?tag=a&tag=b&q=a+b%2Bc#frag"])
    }
}

@Suite struct DeliverySequenceTests {
    @Test func aSeededSweepOfRandomSequencesLosesDuplicatesOrReordersNothing() {
        var failures = 0
        let count = 10_000
        for seed in 0..<UInt64(count) {
            let sequence = DeliverySequence.random(seed: seed)
            let outcome = sequence.run(.library)
            if !outcome.violations.isEmpty {
                failures += 1
                if failures <= 5 { Issue.record("seed \(seed): \(sequence): \(outcome.violations)") }
            }
        }
        print(
            "delivery simulator: \(count) random sequences of 2-5 actions (seeds 0..<\(count)), \(failures) with a violation"
        )
        #expect(failures == 0)
    }

    @Test func naiveWiringsFailTheSameSweep() {
        var failing = 0
        for seed in 0..<UInt64(300)
        where !DeliverySequence.random(seed: seed).run(.naiveApplicationDelegateOnly).violations.isEmpty {
            failing += 1
        }
        #expect(
            failing > 200,
            "the app-delegate-only wiring should lose links in most sequences, lost in \(failing) of 300"
        )
    }
}

/// One test per knob of specs/ios-delivery.md §5.5, with the naive wiring that the knob catches where there is one.
@Suite struct DeliveryKnobTests {
    typealias Scenario = DeliveryScenario

    static func scenario(
        _ lifecycle: Scenario.Lifecycle,
        _ state: Scenario.AppState,
        _ kind: Scenario.LinkKind,
        _ change: (inout Scenario) -> Void = { _ in }
    ) -> Scenario {
        var scenario = Scenario(lifecycle: lifecycle, state: state, kind: kind)
        scenario.readyAt = .beforeFirstEvent
        change(&scenario)
        #expect(scenario.isValid, "\(scenario)")
        return scenario
    }

    @Test func P7_everyOrderOfASetOfThreeIsHandledWhole() {
        for order in 0..<6 {
            let scenario = Self.scenario(.sceneDelegate, .background, .customScheme) {
                $0.setSize = 3; $0.setOrder = order
            }
            let outcome = DeliverySimulator(scenario).run(.library)
            #expect(outcome.violations.isEmpty)
            #expect(outcome.handled.sorted() == DeliverySimulator(scenario).urls().sorted())
            #expect(
                DeliverySimulator(scenario).run(.naiveWarmSceneCallbacksOnly).violations.contains {
                    $0.hasPrefix("lost:")
                }
            )
        }
        let orders = Set(
            (0..<6).map { order in
                Self.scenario(.sceneDelegate, .background, .customScheme) {
                    $0.setSize = 3; $0.setOrder = order
                }.ordered([1, 2, 3])
            }
        )
        #expect(orders.count == 6)
    }

    @Test func P8_anActivityThatIsNotALinkIsNeverHandled() {
        for lifecycle in [Scenario.Lifecycle.sceneDelegate, .swiftUIWithAdaptor] {
            let scenario = Self.scenario(lifecycle, .notRunning, .universalLink) { $0.otherActivity = true }
            let naive = DeliverySimulator(scenario).run(.naiveFirstOfEachSet)
            #expect(
                naive.violations.contains("altered or invented: https://links.example.com/post/99 was never delivered")
            )
            #expect(DeliverySimulator(scenario).run(.library).violations.isEmpty)
        }
    }

    @Test func P5_aLaunchMethodReturningFalseLeavesOnlyTheLaunchOptions() {
        for kind in Scenario.LinkKind.allCases {
            let scenario = Self.scenario(.appDelegate, .notRunning, kind) { $0.launchReturnsFalse = true }
            #expect(
                !DeliverySimulator(scenario).run(.library).trace.contains {
                    if case .appOpenURL = $0 { true } else if case .appContinueUserActivity = $0 { true } else { false }
                }
            )
            #expect(DeliverySimulator(scenario).run(.library).handled.count == 1)
            #expect(
                DeliverySimulator(scenario).run(.naiveApplicationDelegateOnly).violations.contains {
                    $0.hasPrefix("lost:")
                }
            )
        }
    }

    @Test func P9_restoredStateDoesNotHideTheLink() {
        var count = 0
        for lifecycle in Scenario.Lifecycle.allCases {
            for state in [Scenario.AppState.notRunning, .backgroundDetached] {
                for kind in Scenario.LinkKind.allCases {
                    var scenario = Scenario(lifecycle: lifecycle, state: state, kind: kind)
                    scenario.restoration = true
                    guard scenario.isValid else { continue }
                    let outcome = DeliverySimulator(scenario).run(.library)
                    #expect(
                        outcome.trace.contains(
                            .stateRestoration(scene: lifecycle == .appDelegate ? nil : 1, screen: "restored")
                        )
                    )
                    #expect(outcome.violations.isEmpty, "\(scenario): \(outcome.violations)")
                    #expect(outcome.navigation.isShowing(DeliverySimulator.screenPerLink(outcome.handled.last!)!))
                    count += 1
                }
            }
        }
        #expect(count == 14)
    }

    @Test func theScreenOracleCatchesRestorationAppliedAfterTheLink() {
        let url = "demoapp://post/1"
        var app = AppUnderTest(wiring: .library, route: DeliverySimulator.screenPerLink)
        _ = app.becomeReady(at: 0)
        #expect(
            app.receive(
                .sceneWillConnect(scene: 1, urlContexts: [.init(url: url, deliveryID: 0)], userActivities: []),
                at: 1
            ) == [url]
        )
        #expect(app.navigationViolations(handled: [url]).isEmpty)
        _ = app.receive(.stateRestoration(scene: 1, screen: "restored"), at: 2)
        #expect(app.navigationViolations(handled: [url]).count == 1)
    }

    @Test func P13_aLinkThatOpensANewWindowOrReachesAnotherIsHandledOnce() {
        for lifecycle in [Scenario.Lifecycle.sceneDelegate, .swiftUI, .swiftUIWithAdaptor] {
            for kind in Scenario.LinkKind.allCases {
                for target in Scenario.TargetScene.allCases {
                    let scenario = Self.scenario(lifecycle, .foreground, kind) {
                        $0.targetScene = target; $0.activeBeforeLink = true
                    }
                    let outcome = DeliverySimulator(scenario).run(.library)
                    #expect(
                        outcome.violations.isEmpty && outcome.handled.count == 1,
                        "\(scenario): \(outcome.violations)"
                    )
                    #expect(
                        outcome.trace.contains {
                            $0 == .sceneDidBecomeActive(scene: target.id) || $0 == .swiftUIPhaseActive(scene: target.id)
                        } == (target == .new)
                    )
                }
            }
        }
    }

    @Test func P10_aHandlerMountedAfterThePublishOrRemountedStillGetsTheLinkOnce() {
        for lifecycle in [Scenario.Lifecycle.swiftUI, .swiftUIWithAdaptor] {
            for mount in Scenario.HandlerMount.allCases {
                let scenario = Self.scenario(lifecycle, .notRunning, .customScheme) { $0.handlerMount = mount }
                let outcome = DeliverySimulator(scenario).run(.library)
                #expect(outcome.violations.isEmpty && outcome.handled.count == 1, "\(scenario): \(outcome.violations)")
            }
        }
    }

    @Test func interleave_activationBeforeOrAfterTheLinkChangesNothing() {
        for cell in Scenario.allCells {
            for activeFirst in [false, true] {
                var scenario = cell
                scenario.activeBeforeLink = activeFirst
                scenario.repeatLink = true
                let outcome = DeliverySimulator(scenario).run(.library)
                #expect(outcome.violations.isEmpty && outcome.handled.count == 2, "\(scenario): \(outcome.violations)")
            }
        }
    }

    @Test func P15_aLinkIOSSendsToTheBrowserProducesNothing() {
        var browser = 0
        for opening in LinkOpening.allCases {
            let scenario = Self.scenario(.sceneDelegate, .background, .universalLink) { $0.opening = opening }
            let outcome = DeliverySimulator(scenario).run(.library)
            #expect(outcome.violations.isEmpty)
            if RoutingPolicy.delivers(.universalLink, opening: opening) {
                #expect(outcome.handled.count == 1)
            } else {
                browser += 1
                #expect(outcome.trace.isEmpty && outcome.handled.isEmpty && outcome.undelivered.count == 1)
            }
        }
        #expect(browser == 5)
        #expect(!RoutingPolicy.delivers(.universalLink, opening: .tapInAnotherApp, associationCached: false))
        #expect(!RoutingPolicy.delivers(.universalLink, opening: .tapInAnotherApp, userChoseBrowser: true))
        #expect(RoutingPolicy.delivers(.customScheme, opening: .typedInTheAddressBar))
    }

    @Test func P16_theSenderChangesNothing() {
        for cell in Scenario.allCells {
            var fromOtherTeam = cell
            fromOtherTeam.readyAt = .beforeFirstEvent
            var fromSameTeam = fromOtherTeam
            fromSameTeam.sourceApplication = "com.example.demo.widget"
            #expect(
                DeliverySimulator(fromOtherTeam).run(.library).handled
                    == DeliverySimulator(fromSameTeam).run(.library).handled
            )
        }
    }

    @Test func goal4_aLongURLArrivesByteForByte() {
        for cell in Scenario.allCells {
            var scenario = cell
            scenario.urlShape = 2
            let outcome = DeliverySimulator(scenario).run(.library)
            #expect(outcome.handled == DeliverySimulator(scenario).urls() && outcome.handled[0].utf8.count > 3000)
        }
    }
}

extension DeliveryKnobTests {
    @Test func P11_everyUniversalLinkChannelAndSwiftUIDelayGivesOneHandling() {
        for lifecycle in [Scenario.Lifecycle.swiftUI, .swiftUIWithAdaptor] {
            for state in Scenario.AppState.allCases {
                for channel in Scenario.UniversalLinkChannel.allCases {
                    for delay in 0...3 {
                        let scenario = Self.scenario(lifecycle, state, .universalLink) {
                            $0.universalLinkChannel = channel; $0.swiftUIDelay = delay
                        }
                        let outcome = DeliverySimulator(scenario).run(.library)
                        #expect(
                            outcome.violations.isEmpty && outcome.handled.count == 1,
                            "\(scenario): \(outcome.violations)"
                        )
                    }
                }
            }
        }
        // Listening to onOpenURL only loses the Camera app's links (C4): they come as an activity.
        let camera = Self.scenario(.swiftUI, .background, .universalLink) {
            $0.universalLinkChannel = .continueUserActivity
        }
        #expect(DeliverySimulator(camera).run(.naiveFirstOfEachSet).violations.contains { $0.hasPrefix("lost:") })
    }

    @Test func P6_aLinkWaitsForReadinessWhereverItComesInTheTrace() {
        for cell in Scenario.allCells {
            let length = DeliverySimulator(cell).run(.library).trace.count
            for ready in [Scenario.ReadyAt.beforeFirstEvent, .afterLastEvent]
                + (0...length).map(Scenario.ReadyAt.afterEvents)
            {
                var scenario = cell
                scenario.readyAt = ready
                let outcome = DeliverySimulator(scenario).run(.library)
                #expect(outcome.violations.isEmpty && outcome.handled.count == 1, "\(scenario): \(outcome.violations)")
            }
        }
    }

    @Test func goal5_theSameLinkOpenedTwiceIsHandledTwice() {
        for cell in Scenario.allCells where !cell.isKnownLimit {
            var scenario = cell
            scenario.repeatLink = true
            scenario.readyAt = .beforeFirstEvent
            let outcome = DeliverySimulator(scenario).run(.library)
            #expect(outcome.handled.count == 2 && Set(outcome.handled).count == 1, "\(scenario): \(outcome.handled)")
        }
    }

    /// The window oracle is not vacuous: a link handled by another window's coordinator, or twice, is reported.
    @Test func aLinkHandledInAnotherWindowIsReported() {
        let link = DeviceEvent.Link(url: "demoapp://post/1", deliveryID: 0)
        let trace: [DeviceEvent] = [.sceneOpenURLContexts(scene: 2, [link]), .sceneDidBecomeActive(scene: 2)]
        let key: (Int?) -> Int = { $0 ?? 0 }
        #expect(DeliverySimulator.windowViolations(trace, [(link.url, 1, 2)], key: key).isEmpty)
        #expect(
            DeliverySimulator.windowViolations(trace, [(link.url, 1, 1)], key: key) == [
                "wrong window: demoapp://post/1 handled 0 times in scene 2, handed to it 1 times",
                "wrong window: demoapp://post/1 handled 1 times in scene 1, handed to it 0 times",
            ]
        )
    }

    /// The coordinator run's knobs say which timings iOS produces: an active app's twins come in one turn.
    @Test func lateTwinsAreValidOnlyInsideTheInboxsWindows() {
        let cold = DeliveryScenario(lifecycle: .swiftUIWithAdaptor, state: .notRunning, kind: .customScheme)
        let warm = DeliveryScenario(lifecycle: .swiftUIWithAdaptor, state: .foreground, kind: .customScheme)
        #expect(DeliverySimulator.CoordinatorKnobs(lateTwin: .milliseconds(1_500)).isValid(for: cold))
        #expect(!DeliverySimulator.CoordinatorKnobs(lateTwin: .milliseconds(1_950)).isValid(for: cold))
        #expect(!DeliverySimulator.CoordinatorKnobs(lateTwin: .milliseconds(100)).isValid(for: warm))
        #expect(DeliverySimulator.CoordinatorKnobs(lateTwin: .milliseconds(30)).isValid(for: warm))
    }
}
