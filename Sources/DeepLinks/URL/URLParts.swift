/// A URL split into its components, each kept percent-encoded as written: for code that must keep a URL's own
/// encoding while it looks at or changes one part (a destination that gets the click's query added, a log
/// line whose secret values are redacted, a host compared with an allowlist).
///
/// The split is ``LinkURL``'s: the same scanner and the same policy (``URLLimits``, userinfo refused, every
/// escape checked), so a URL that splits here parses there, and the other way round. Only ``LinkURL`` decodes.
public struct URLParts: Sendable, Hashable {
    /// Lower-cased.
    public var scheme: String
    /// Lower-cased, a web host's trailing dot left out; nil when the URL has no authority (`yourapp:post/10`).
    public var host: String?
    public var port: Int?
    /// As written, from the end of the authority (or the scheme's `:`) to the `?` or `#`.
    public var path: String
    /// As written, without the `?`; nil when the URL has none.
    public var query: String?
    /// As written, without the `#`; nil when the URL has none.
    public var fragment: String?

    /// Whether this is an `http` or `https` URL.
    public var isWebURL: Bool { scheme == "https" || scheme == "http" }

    /// Splits `string`, checked as ``LinkURL/init(parsing:limits:)`` checks it. Never traps, whatever the input.
    public init(parsing string: String, limits: URLLimits = .default) throws(URLDiagnostic) {
        var string = string
        do {
            self = try string.withUTF8 { bytes in
                let parser = URLParser(bytes: bytes, limits: limits)
                let layout = try parser.scan()
                return URLParts(parser, layout)
            }
        } catch {
            throw error as! URLDiagnostic  // the scanner throws nothing else; withUTF8 only rethrows untyped
        }
    }

    private init(_ parser: URLParser, _ layout: URLParser.Layout) {
        scheme = parser.string(0, layout.schemeEnd, lowercased: true)
        host = layout.hasHost ? parser.string(layout.hostStart, layout.hostEnd, lowercased: true) : nil
        port = layout.port
        path = parser.string(layout.pathStart, layout.queryStart, lowercased: false)
        query =
            layout.queryStart < layout.end ? parser.string(layout.queryStart + 1, layout.end, lowercased: false) : nil
        fragment = layout.hash >= 0 ? parser.string(layout.hash + 1, parser.bytes.count, lowercased: false) : nil
    }

    /// The URL as text: the input again, with its scheme and host lower-cased.
    public var string: String {
        var text = scheme + ":"
        if let host { text += "//" + host + (port.map { ":\($0)" } ?? "") }
        text += path
        if let query { text += "?" + query }
        if let fragment { text += "#" + fragment }
        return text
    }

    /// `items` (a query or a fragment as written) with each `name=value` pair kept, replaced or dropped by
    /// `transform`, which gets the pair's name decoded (nil when it does not decode) and the pair as written.
    /// Empty pairs (`a=1&&b=2`) reach `transform` too, with the name `""`.
    public static func rewritingItems(
        _ items: some StringProtocol,
        _ transform: (_ name: String?, _ pair: Substring) -> String?
    ) -> String {
        var kept: [String] = []
        for pair in Substring(items).split(separator: "&", omittingEmptySubsequences: false) {
            let name = pair.firstIndex(of: "=").map { pair[..<$0] } ?? pair
            if let replaced = transform(try? PercentEncoding.decode(name), pair) { kept.append(replaced) }
        }
        return kept.joined(separator: "&")
    }
}
