import HTTPTypes

/// The headers of the server's HTML pages and assets: kept out of caches, indexes and frames, and allowed no script,
/// style or request but the server's own. One set per kind of page, all built from the first.
enum WebSecurityHeaders {
    case scripted, console, smartLink

    var fields: HTTPFields {
        switch self {
        case .scripted: Self.scriptedFields
        case .console: Self.consoleFields
        case .smartLink: Self.smartLinkFields
        }
    }

    /// The reset page (its one script) and the assets: no Referer, no cache, no index.
    private static let scriptedFields: HTTPFields = [
        .init("Referrer-Policy")!: "no-referrer",
        .cacheControl: "no-store",
        .contentSecurityPolicy:
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        .init("X-Robots-Tag")!: "noindex, nofollow",
        .xContentTypeOptions: "nosniff",
        .init("X-Frame-Options")!: "DENY",
    ]

    /// The console: no script at all; styles from the server's own sheet; QR codes and charts are inline SVG.
    private static let consoleFields: HTTPFields = {
        var headers = scriptedFields
        headers[.contentSecurityPolicy] =
            "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
        return headers
    }()

    /// Smart-link pages (landing, preview, `?d=1`, errors): preview fetchers must read the Open Graph tags, so no
    /// `X-Robots-Tag`; a destination sees the origin, never the path (the link's code).
    private static let smartLinkFields: HTTPFields = {
        var headers = scriptedFields
        headers[.init("Referrer-Policy")!] = "strict-origin-when-cross-origin"
        headers[.init("X-Robots-Tag")!] = nil
        return headers
    }()
}
