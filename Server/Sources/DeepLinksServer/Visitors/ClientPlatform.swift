/// Who follows a link, from its `User-Agent` (and client hints): what decides where it goes.
package enum ClientPlatform: String, Sendable, CaseIterable, Codable {
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

    package init(userAgent: String?, platformHint: String? = nil) {
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
