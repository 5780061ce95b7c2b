/// Who follows a link, from its `User-Agent` (and client hints): what decides where it goes.
public enum ClientPlatform: String, Sendable, CaseIterable, Codable {
    case iPhone = "iphone", iPad = "ipad", android, desktop
    /// A Mac user agent without a client hint: a Mac, or an iPad (iPadOS 13+ Safari sends a Mac agent by
    /// default). A small page asks the browser for touch support, then comes back as one or the other.
    case macOrIPad = "mac-or-ipad"
    /// A link-preview fetcher: gets Open Graph HTML and is never counted as a click.
    case previewBot = "bot"

    /// Preview fetchers by user-agent token. iMessage claims to be Safari *and* facebookexternalhit and
    /// Twitterbot at once, so the bot check comes before any device check.
    static let botTokens = [
        "facebookexternalhit", "facebot", "twitterbot", "slackbot", "whatsapp", "linkedinbot", "discordbot",
        "telegrambot", "skypeuripreview", "pinterest", "redditbot", "embedly", "applebot", "googlebot", "bingbot",
        "mastodon", "iframely", "vkshare", "snapchat", "viber", "bot/", "crawler", "spider", "preview",
    ]

    static let botTokenBytes = botTokens.map { Array($0.utf8) }
    static let ipadToken = Array("ipad".utf8), iphoneToken = Array("iphone".utf8), ipodToken = Array("ipod".utf8)
    static let androidToken = Array("android".utf8), macintoshToken = Array("macintosh".utf8)
    static let ipadosToken = Array("ipados".utf8)

    public init(userAgent: String?, platformHint: String? = nil) {
        self.init(agent: AgentText(userAgent), platformHint: platformHint)
    }

    init(agent: AgentText, platformHint: String?) {
        if agent.bytes.isEmpty || Self.botTokenBytes.contains(where: agent.has) {
            self = .previewBot
        } else if agent.has(Self.ipadToken) {
            self = .iPad
        } else if agent.has(Self.iphoneToken) || agent.has(Self.ipodToken) {
            self = .iPhone
        } else if agent.has(Self.androidToken) {
            self = .android
        } else if agent.has(Self.macintoshToken), let hint = platformHint {
            // iPadOS 13+ sends a Mac user agent; a client hint tells (Chromium-based browsers send one) ...
            self = AgentText(hint).has(Self.ipadosToken) ? .iPad : .desktop
        } else if agent.has(Self.macintoshToken) {
            // ... Safari sends none: the page's touch check will.
            self = .macOrIPad
        } else {
            self = .desktop
        }
    }
}

/// A `User-Agent` (or client hint) as the checks read it on every redirect: its first 1,024 bytes, ASCII
/// lower-cased once, searched for tokens byte by byte. Not `String.contains`, which builds a search table per
/// call: with it, the in-app browser check took a quarter of the server's CPU on a redirect (perf, one hot link).
struct AgentText {
    let bytes: [UInt8]

    init(_ text: String?) {
        bytes = (text ?? "").utf8.prefix(1024).map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }

    /// Whether `token` (lower-case bytes) occurs in the text.
    func has(_ token: [UInt8]) -> Bool {
        guard let head = token.first, token.count <= bytes.count else { return false }
        var start = 0
        while start <= bytes.count - token.count {
            if bytes[start] == head, bytes[start..<start + token.count].elementsEqual(token) { return true }
            start += 1
        }
        return false
    }
}

/// The social apps whose own in-app browser shows a link: iOS does not hand a universal link tapped there to
/// the app it belongs to, so the landing page says how to reach Safari: in-app browsers do not hand universal links to apps.
public enum InAppBrowser: String, Sendable, CaseIterable {
    case facebook = "Facebook", instagram = "Instagram", linkedIn = "LinkedIn", tikTok = "TikTok", weChat = "WeChat",
        line = "LINE"

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
    public init?(userAgent: String?) {
        self.init(agent: AgentText(userAgent))
    }

    init?(agent: AgentText) {
        guard let found = Self.tokenBytes.first(where: { $0.1.contains(where: agent.has) }) else { return nil }
        self = found.0
    }
}
