#if canImport(UIKit) && !os(watchOS)
import DeepLinks
import UIKit

// Type-checked on Apple platforms only (this file is empty on Linux). It holds no decision: each helper hands
// a callback's payload, untouched, to the coordinator (or the relay that feeds it), whose inbox (tested on Linux
// through the delivery simulator) decides which activity is a link, what is a duplicate and when a link may be
// handled.

extension LinkReceiver {
    // MARK: App delegate (a UIKit app without scenes)

    /// In `application(_:didFinishLaunchingWithOptions:)`: the URL or universal-link activity the app was
    /// launched with. `open`/`continue` may report the same link again; the inbox merges them (P3).
    @MainActor
    public func application(didFinishLaunchingWithOptions options: [UIApplication.LaunchOptionsKey: Any]?) {
        if let url = options?[.url] as? URL {
            receive(
                url.absoluteString,
                via: .launchOptionsURL,
                sourceApplication: options?[.sourceApplication] as? String
            )
        }
        // The activity sits in the user-activity dictionary under a key Apple does not document (P4).
        if let dictionary = options?[.userActivityDictionary] as? [AnyHashable: Any] {
            for case let activity as NSUserActivity in dictionary.values {
                receive(
                    activityType: activity.activityType,
                    webpageURL: activity.webpageURL?.absoluteString,
                    via: .launchOptionsUserActivity
                )
            }
        }
    }

    /// In `application(_:open:options:)`; the options name the sending app, which routes limited to some apps
    /// need (`Route.sourceApplications`).
    @MainActor
    public func application(open url: URL, options: [UIApplication.OpenURLOptionsKey: Any] = [:]) {
        receive(
            url.absoluteString,
            via: .applicationOpenURL,
            sourceApplication: options[.sourceApplication] as? String
        )
    }

    /// In `application(_:continue:restorationHandler:)`. Returns whether the activity was a link.
    @MainActor @discardableResult
    public func application(continue activity: NSUserActivity) -> Bool {
        let webpageURL = activity.webpageURL?.absoluteString
        receive(activityType: activity.activityType, webpageURL: webpageURL, via: .applicationContinueUserActivity)
        return LinkInbox.link(activityType: activity.activityType, webpageURL: webpageURL) != nil
    }

    // MARK: Scene delegate (UIKit with scenes, or a SwiftUI app's own scene delegate)

    /// In `scene(_:willConnectTo:options:)`, after applying `session.stateRestorationActivity` (P9): every
    /// URL context and every activity of the sets, not `.first` (P7, P8).
    @MainActor
    public func scene(willConnectWith options: UIScene.ConnectionOptions) {
        for context in options.urlContexts {
            receive(
                context.url.absoluteString,
                via: .sceneConnectionURLContext,
                sourceApplication: context.options.sourceApplication
            )
        }
        for activity in options.userActivities {
            receive(
                activityType: activity.activityType,
                webpageURL: activity.webpageURL?.absoluteString,
                via: .sceneConnectionUserActivity
            )
        }
    }

    /// In `scene(_:openURLContexts:)`.
    @MainActor
    public func scene(openURLContexts contexts: Set<UIOpenURLContext>) {
        for context in contexts {
            receive(
                context.url.absoluteString,
                via: .sceneOpenURLContexts,
                sourceApplication: context.options.sourceApplication
            )
        }
    }

    /// In `scene(_:continue:)`.
    @MainActor
    public func scene(continue activity: NSUserActivity) {
        receive(
            activityType: activity.activityType,
            webpageURL: activity.webpageURL?.absoluteString,
            via: .sceneContinueUserActivity
        )
    }

    // Activation: `setActive(true)` in `applicationDidBecomeActive` / `sceneDidBecomeActive`, `setActive(false)`
    // in `applicationDidEnterBackground` / `sceneDidEnterBackground` / `sceneDidDisconnect`.
}
#endif
