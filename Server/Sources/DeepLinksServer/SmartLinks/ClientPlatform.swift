/// Who follows a link, from its `User-Agent` (and client hints): what decides where it goes.
public enum ClientPlatform: String, Sendable, CaseIterable, Codable {
    case iPhone = "iphone", iPad = "ipad", android, desktop
    /// A link-preview fetcher: gets Open Graph HTML and is never counted as a click.
    case previewBot = "bot"

    /// Preview fetchers by user-agent token. iMessage claims to be Safari *and* facebookexternalhit and
    /// Twitterbot at once, so the bot check comes before any device check.
    static let botTokens = [
        "facebookexternalhit", "facebot", "twitterbot", "slackbot", "whatsapp", "linkedinbot", "discordbot",
        "telegrambot", "skypeuripreview", "pinterest", "redditbot", "embedly", "applebot", "googlebot", "bingbot",
        "mastodon", "iframely", "vkshare", "snapchat", "viber", "bot/", "crawler", "spider", "preview",
    ]

    public init(userAgent: String?, platformHint: String? = nil) {
        let agent = (userAgent ?? "").lowercased()
        if agent.isEmpty || Self.botTokens.contains(where: agent.contains) {
            self = .previewBot
        } else if agent.contains("ipad") {
            self = .iPad
        } else if agent.contains("iphone") || agent.contains("ipod") {
            self = .iPhone
        } else if agent.contains("android") {
            self = .android
        } else if agent.contains("macintosh"), platformHint?.lowercased().contains("ipados") == true {
            // iPadOS 13+ sends a Mac user agent; a client hint (or the page's own touch check) tells.
            self = .iPad
        } else {
            self = .desktop
        }
    }
}
