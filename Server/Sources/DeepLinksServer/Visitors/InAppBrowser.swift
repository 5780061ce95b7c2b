/// The social apps whose own in-app browser shows a link: iOS does not hand a universal link tapped there to
/// the app it belongs to, so the landing page says how to reach Safari: in-app browsers do not hand universal links to apps.
package enum InAppBrowser: String, Sendable, CaseIterable {
    case facebook = "Facebook", instagram = "Instagram", linkedIn = "LinkedIn", tikTok = "TikTok", weChat = "WeChat",
        line = "LINE"

    /// How a rule names it (``InAppBrowsersCondition``): `facebook`, `tiktok`.
    var key: String { rawValue.lowercased() }

    /// User-agent tokens, lower-cased: the apps append them to the system web view's agent.
    var tokens: [String] {
        switch self {
        case .facebook: ["fban/", "fbav/", "fb_iab/"]
        case .instagram: ["instagram "]
        case .linkedIn: ["linkedinapp"]
        case .tikTok: ["musical_ly", "bytedancewebview", "trill_"]
        case .weChat: ["micromessenger/"]
        case .line: [" line/"]
        }
    }

    /// Each browser's tokens as bytes, built once.
    static let tokenBytes = allCases.map { browser in (browser, browser.tokens.map { Array($0.utf8) }) }

    /// The in-app browser `userAgent` comes from, if any.
    package init?(userAgent: String?) {
        self.init(agent: AgentText(userAgent))
    }

    init?(agent: AgentText) {
        guard let found = Self.tokenBytes.first(where: { $0.1.contains(where: agent.has) }) else { return nil }
        self = found.0
    }
}
