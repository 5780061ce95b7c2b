#if canImport(SwiftUI)
@_exported import DeepLinks
import SwiftUI

#if canImport(UIKit)
@_exported import DeepLinksUIKit
#endif

// Type-checked on Apple platforms only (this file is empty on Linux). It holds no decision: the modifiers hand
// each event to the coordinator (or the relay that feeds it) untouched, and the model applies plans computed by
// the core.

extension View {
    /// The front door: starts the app's coordinator on `table` (once, in `LinkRelay.shared`), listens
    /// to `onOpenURL`, `onContinueUserActivity` and the scene phase, and says the UI is ready when this view
    /// appears. Put it on the root view of the `WindowGroup`, which is always on screen. With
    /// `@UIApplicationDelegateAdaptor(DeepLinksAppDelegate.self)` on the `App`, the library's scene delegate also
    /// hears the connection options, which keeps the cold-start link SwiftUI alone drops (FB17446617).
    ///
    /// ```swift
    /// RootView()
    ///     .deepLinks(AppRoute.table) { route in navigation.go(to: route.target) }
    /// ```
    /// - Parameters:
    ///   - table: the app's routes.
    ///   - requirements: the conditions a destination needs (`["signedIn"]`); say when one holds with
    ///     `LinkRelay.shared.setCondition("signedIn", holds: true)`.
    ///   - onUnhandled: a link not carried out, with why. Default: a universal link no route takes opens in
    ///     Safari (it is a page of your site the app has no screen for); nothing else.
    ///   - reporter: tells the deeplinks server what the app opened (`LinkReporter`, opt-in; DeepLinksUIKit's
    ///     `LinkReporter.urlSession(server:linkDomains:)` on iOS); nil, the default, tells no one.
    ///   - deliver: shows the destination (on the main actor).
    public func deepLinks<Destination: Sendable>(
        _ table: RouteTable<Destination>,
        requirements: @escaping @Sendable (Destination) -> Set<String> = { _ in [] },
        onUnhandled: @escaping @Sendable (_ url: String, LinkCoordinator<Destination>.Unhandled) async -> Void =
            openRejectedUniversalLinks,
        reporter: LinkReporter? = nil,
        deliver: @escaping @MainActor @Sendable (Destination) -> Void
    ) -> some View {
        modifier(DeepLinksModifier(receiver: LinkRelay.shared))
            .onAppear {
                LinkRelay.shared.start(
                    table,
                    requirements: requirements,
                    onUnhandled: onUnhandled,
                    reporter: reporter
                ) { destination in
                    await deliver(destination)
                }
                LinkRelay.shared.setReady(true)
            }
    }

    /// Wires `onOpenURL`, `onContinueUserActivity(NSUserActivityTypeBrowsingWeb)` and the scene phase to a
    /// coordinator the app made itself (one per window, say); the app calls its `setReady(true)`. Put it on the root
    /// view of the `WindowGroup`, which is always on screen, not on a splash or a sign-in gate that goes away (P10);
    /// listen to both channels, as universal links come through either (P11); the inbox merges them, and merges
    /// them with your scene delegate's (P12).
    public func deepLinks(_ receiver: any LinkReceiver) -> some View {
        modifier(DeepLinksModifier(receiver: receiver))
    }
}

#if !canImport(UIKit)
/// The front door's default `onUnhandled` where there is no UIKit (macOS): nothing (on iOS, tvOS and visionOS,
/// DeepLinksUIKit's opens a rejected universal link in Safari).
public func openRejectedUniversalLinks<Destination>(
    _ url: String,
    _ reason: LinkCoordinator<Destination>.Unhandled
) async {}
#endif

struct DeepLinksModifier: ViewModifier {
    let receiver: any LinkReceiver
    @Environment(\.scenePhase) private var scenePhase

    func body(content: Content) -> some View {
        content
            .onOpenURL { url in
                receiver.receive(url.absoluteString, via: .onOpenURL, sourceApplication: nil)
            }
            .onContinueUserActivity(NSUserActivityTypeBrowsingWeb) { activity in
                receiver.receive(
                    activityType: activity.activityType,
                    webpageURL: activity.webpageURL?.absoluteString,
                    via: .onContinueUserActivity
                )
            }
            // When the view appears (a scene already active says so here) and at every change of the phase: one
            // call on every platform, where `onChange(of:perform:)` is deprecated from iOS 17 and on visionOS 1.
            // `.inactive` is not a boundary (Control Center, a call banner): only active and background are.
            .task(id: scenePhase) {
                switch scenePhase {
                case .active: receiver.setActive(true)
                case .background: receiver.setActive(false)
                default: break
                }
            }
    }
}
#endif
