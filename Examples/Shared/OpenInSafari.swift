#if canImport(UIKit)
import DeepLinks
import UIKit

/// The reference apps' `onUnhandled`: a universal link of ours that the app has no screen for (an older app, a
/// web-only page) belongs on the web, so it opens in Safari (the app's own `open(_:)` of its own domain goes to
/// Safari, not back to the app). Custom-scheme links and the other reasons are left alone.
func openUnroutableLinkInSafari<Destination>(_ url: String, _ reason: LinkCoordinator<Destination>.Unhandled) async {
    guard case .rejected = reason, let link = URL(string: url), link.scheme == "https" else { return }
    await UIApplication.shared.open(link)
}
#endif
