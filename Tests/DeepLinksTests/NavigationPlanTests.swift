import DeepLinks
import DeepLinksTesting
import Testing

@Suite struct NavigationPlanTests {
    @Test func deepInAnotherTabWithASheetPresented() {
        let state = NavigationState(
            selectedTab: "settings",
            stacks: ["settings": ["account", "privacy"], "feed": ["post:1"]],
            presented: ["compose"]
        )
        let target = NavigationTarget(tab: "feed", path: ["post:7", "comments:7"])
        let plan = NavigationPlan(from: state, to: target)
        #expect(plan.steps == [.dismissAll, .selectTab("feed"), .popToRoot, .push(["post:7", "comments:7"])])
        let after = plan.applied(to: state)
        #expect(after.selectedTab == "feed")
        #expect(after.stacks["feed"] == ["post:7", "comments:7"])
        #expect(after.stacks["settings"] == ["account", "privacy"])
        #expect(after.presented.isEmpty)
    }

    @Test func alreadyOnTheDestinationNeedsNoStep() {
        let state = NavigationState(selectedTab: "feed", stacks: ["feed": ["post:7"]])
        #expect(NavigationPlan(from: state, to: NavigationTarget(tab: "feed", path: ["post:7"])).steps.isEmpty)
        let presented = NavigationState(selectedTab: "feed", stacks: ["feed": []], presented: ["reset"])
        #expect(NavigationPlan(from: presented, to: NavigationTarget(tab: "feed", present: "reset")).steps.isEmpty)
    }

    @Test func aSharedPrefixIsKeptAndOnlyTheRestIsPushed() {
        let state = NavigationState(selectedTab: "feed", stacks: ["feed": ["post:7", "likes:7"]])
        let plan = NavigationPlan(from: state, to: NavigationTarget(tab: "feed", path: ["post:7", "comments:7"]))
        #expect(plan.steps == [.pop(toCount: 1), .push(["comments:7"])])
    }

    @Test func aModalIsPresentedLastOverTheRightStack() {
        let state = NavigationState(selectedTab: "feed", stacks: ["feed": ["post:1"]], presented: ["compose"])
        let plan = NavigationPlan(
            from: state,
            to: NavigationTarget(tab: "settings", path: [], present: "reset-password")
        )
        #expect(plan.steps == [.dismissAll, .selectTab("settings"), .present("reset-password")])
        #expect(plan.applied(to: state).presented == ["reset-password"])
    }

    @Test func aModalOverWhateverIsShownTouchesNeitherTabNorStack() {
        let state = NavigationState(selectedTab: "search", stacks: ["search": ["results:café"], "feed": ["post:1"]])
        let reset = NavigationTarget.over(present: "reset-password")
        let plan = NavigationPlan(from: state, to: reset)
        #expect(plan.steps == [.present("reset-password")])
        let after = plan.applied(to: state)
        #expect(after.selectedTab == "search" && after.stacks == state.stacks && after.presented == ["reset-password"])
        #expect(after.isShowing(reset))
        #expect(NavigationPlan(from: after, to: reset).steps.isEmpty, "already shown: nothing to do")
        // Another modal is replaced, the place kept.
        var composing = state
        composing.presented = ["new-post"]
        #expect(NavigationPlan(from: composing, to: reset).steps == [.dismissAll, .present("reset-password")])
    }

    @Test func anAppWithoutTabsUsesItsOneStack() {
        let state = NavigationState(stacks: ["": ["home", "post:1"]])
        let plan = NavigationPlan(from: state, to: NavigationTarget(path: ["home", "post:2"]))
        #expect(plan.steps == [.pop(toCount: 1), .push(["post:2"])])
        #expect(plan.applied(to: state).stacks[""] == ["home", "post:2"])
    }

    @Test(arguments: 0..<200)
    func theAppliedPlanAlwaysReachesTheTarget(_ seed: Int) {
        var generator = SplitMix64(seed: UInt64(seed))
        let tabs = ["a", "b", "c"]
        let screens = ["x", "y", "z"]
        func stack() -> [String] { (0..<Int(generator.next() % 4)).map { _ in screens[Int(generator.next() % 3)] } }
        let state = NavigationState(
            selectedTab: tabs[Int(generator.next() % 3)],
            stacks: Dictionary(uniqueKeysWithValues: tabs.map { ($0, stack()) }),
            presented: generator.next() % 2 == 0 ? [] : ["m"]
        )
        let target = NavigationTarget(
            tab: tabs[Int(generator.next() % 3)],
            path: stack(),
            present: generator.next() % 3 == 0 ? "m" : nil
        )
        let after = NavigationPlan(from: state, to: target).applied(to: state)
        #expect(after.selectedTab == target.tab)
        #expect(after.stacks[target.tab!] ?? [] == target.path)
        #expect(after.presented == (target.present.map { [$0] } ?? []))
    }
}
