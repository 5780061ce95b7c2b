/// How the user opens a link: the simulator's first stage: whether a universal link reaches the app at all (pitfall P15 of the DocC article "How iOS delivers a link to an app" (DeepLinks)).
public enum LinkOpening: String, Sendable, Hashable, CaseIterable {
    /// A tap in Mail, Messages, Notes or another app.
    case tapInAnotherApp
    case tapInSafariOnAnotherDomain
    /// A tap on a page of the link's own domain: Safari keeps it (hence a link domain apart from the site's).
    case tapInSafariOnTheSameDomain
    case typedInTheAddressBar
    /// The app calls `UIApplication.open` or SwiftUI `openURL` on a link to its own site.
    case openedByTheAppItself
    /// A universal link loaded programmatically into an SFSafariViewController or WKWebView.
    case loadedInAWebView
    /// The user taps a universal link inside an embedded web view.
    case tappedInAWebView
    /// A JavaScript redirect or navigation without a user gesture.
    case javaScriptRedirect
}

/// Whether iOS hands a link to the app at all (§2.8). When it does not, no callback fires and the link opens
/// in the browser: the app must not act on anything (oracle 7).
public enum RoutingPolicy {
    /// - Parameters:
    ///   - kind: a custom-scheme link or a universal link.
    ///   - opening: how the person opened it (a tap in another app, Safari's address bar, ...).
    ///   - associationCached: whether iOS has fetched the association file (just installed, CDN lag: not yet).
    ///   - userChoseBrowser: the user once picked "Open in Safari" for this domain.
    public static func delivers(
        _ kind: DeliveryScenario.LinkKind,
        opening: LinkOpening,
        associationCached: Bool = true,
        userChoseBrowser: Bool = false
    ) -> Bool {
        // A custom scheme goes to the app that registered it, however it is opened.
        guard kind == .universalLink else { return true }
        guard associationCached, !userChoseBrowser else { return false }
        switch opening {
        case .tapInAnotherApp, .tapInSafariOnAnotherDomain, .tappedInAWebView: return true
        case .tapInSafariOnTheSameDomain, .typedInTheAddressBar, .openedByTheAppItself, .loadedInAWebView,
            .javaScriptRedirect:
            return false
        }
    }
}
