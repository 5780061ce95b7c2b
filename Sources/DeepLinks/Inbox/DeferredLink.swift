/// A deferred deep link, as the server's landing page leaves it on the pasteboard when someone without the
/// app taps "Get the app": `https://LINK_DOMAIN/CODE#deferred=TOKEN`.
///
/// At the app's first launch, show a `UIPasteControl` (a tap on it reads the pasteboard without iOS asking),
/// read the text with this type, `POST {"token": TOKEN}` to `https://HOST/v1/deferred/redeem`, and hand the
/// answer's `url` to the coordinator with ``LinkChannel/deferred``. The token works once, for an hour; no
/// fingerprint, IP address or time window is matched.
public struct DeferredLink: Sendable, Hashable {
    /// The link domain that issued it: where to redeem the token.
    public let host: String
    /// The short link's code.
    public let code: String
    /// The one-time token (a secret: never log it).
    public let token: String

    /// The path to `POST {"token": ...}` to, on ``host``.
    public static let redeemPath = "/v1/deferred/redeem"

    /// Reads pasteboard text strictly: an https URL on one of `linkDomains`, one path segment (the code), and a
    /// `deferred` fragment item of 22 base64url characters. Anything else (any other text the user copied) is nil.
    public init?(pasteboard text: String, linkDomains: [String]) {
        guard text.utf8.count <= 512, let url = try? LinkURL(parsing: text.trimmingSpaces),
            url.scheme == "https", let host = url.host, linkDomains.contains(where: { $0.lowercased() == host }),
            url.pathSegments.count == 1, url.queryItems.isEmpty,
            url.fragmentItems.count == 1, url.fragmentItems[0].name == "deferred",
            let token = url.fragmentItems[0].value,
            token.utf8.count == 22, CharacterRule.base64URL.allows(token)
        else { return nil }
        self.host = host
        code = url.pathSegments[0]
        self.token = token
    }
}

extension String {
    /// Without leading and trailing spaces and line breaks (what a copy may add).
    fileprivate var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
