import Combine  // ObservableObject and @Published: SwiftUI does not re-export Combine
import DeepLinksSwiftUI
import DemoAppRoutes
import SwiftUI

/// The reference app, on the front door: the library's app delegate gives every scene the library's scene
/// delegate (which keeps the cold-start link SwiftUI alone drops, FB17446617); `.deepLinks` starts the coordinator
/// on the demo table, hears `onOpenURL` and `onContinueUserActivity`, and releases links once the root view is
/// on screen; links behind sign-in wait for it. No delegate class of the app's own.
@main
struct ReferenceApp: App {
    @UIApplicationDelegateAdaptor(DeepLinksAppDelegate.self) private var appDelegate
    @StateObject private var model = AppModel()
    /// Tells the server each link the app opened (its route and channel, never a value): the funnel's opens.
    static let reporter = LinkReporter.urlSession(
        server: ServerAPI.configuredBaseURL.absoluteString,
        linkDomains: ServerAPI.configuredBaseURL.host.map { [$0] } ?? []
    )

    var body: some Scene {
        WindowGroup {
            RootView()
                .environmentObject(model)
                .environmentObject(model.navigation)
                .deepLinks(DemoRoute.table, requirements: { $0.requirements }, reporter: Self.reporter) {
                    [navigation = model.navigation] in
                    navigation.go(to: $0.navigationTarget)
                }
        }
    }
}

@MainActor
final class AppModel: ObservableObject {
    let navigation = NavigationModel<DemoScreen>(tab: DemoRoute.Tab.posts)
    let api = ServerAPI(baseURL: ServerAPI.configuredBaseURL)
    @Published private(set) var sessionToken: String?

    /// A link opened before the app was installed, left on the pasteboard by the landing page.
    func redeem(_ link: DeferredLink) async {
        guard let url = try? await api.redeem(link), !url.isEmpty else { return }
        LinkRelay.shared.receive(url, via: .deferred)
    }

    func signIn(email: String, password: String) async throws {
        sessionToken = try await api.signIn(email: email, password: password)
        LinkRelay.shared.setCondition(DemoRoute.signedIn, holds: true)
    }

    func signOut() {
        sessionToken = nil
        LinkRelay.shared.setCondition(DemoRoute.signedIn, holds: false)
    }
}
