#if canImport(SwiftUI)
import DeepLinks
import SwiftUI

// Type-checked on Apple platforms only (this file is empty on Linux). It holds no decision: the modifier hands
// each event to the coordinator untouched, and the model applies plans computed by the core.

extension View {
    /// Wires `onOpenURL`, `onContinueUserActivity(NSUserActivityTypeBrowsingWeb)` and the scene phase to
    /// `coordinator`. Put it on the root view of the `WindowGroup`, which is always on screen, not on a splash
    /// or a sign-in gate that goes away (P10); listen to both channels, as universal links come through either
    /// (P11); the inbox merges them, and merges them with your own scene delegate's if you have one (P12).
    public func deepLinks<Destination: Sendable>(_ coordinator: LinkCoordinator<Destination>) -> some View {
        modifier(DeepLinksModifier(coordinator: coordinator))
    }
}

struct DeepLinksModifier<Destination: Sendable>: ViewModifier {
    let coordinator: LinkCoordinator<Destination>
    @Environment(\.scenePhase) private var scenePhase

    func body(content: Content) -> some View {
        content
            .onOpenURL { url in
                coordinator.receive(url.absoluteString, via: .onOpenURL)
            }
            .onContinueUserActivity(NSUserActivityTypeBrowsingWeb) { activity in
                coordinator.receive(
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
                case .active: coordinator.setActive(true)
                case .background: coordinator.setActive(false)
                default: break
                }
            }
    }
}
#endif
