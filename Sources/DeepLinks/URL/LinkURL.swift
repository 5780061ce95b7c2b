/// A URL that passed the URL policy: every component checked and percent-decoded exactly once.
///
/// The policy (also in docs/app-side.md and the DocC catalog):
/// - RFC 3986 percent-decoding, exactly once, per component; `+` is a plus sign, never a space.
/// - Scheme and host are compared case-insensitively and stored lower-cased.
/// - Path segments are split on raw `/` before decoding, so `%2F` stays inside its segment. Empty segments
///   (`a//b`, a trailing `/`) are dropped.
/// - Query items keep their order; a repeated key is kept as a list (``values(of:)``).
/// - Refused with a ``URLDiagnostic``: control characters or NUL (raw or decoded), invalid percent escapes,
///   bytes that are not UTF-8 once decoded, userinfo, a port unless allowed, and anything over the ``URLLimits``.
public struct LinkURL: Sendable, Hashable {
    public var scheme: String
    /// The host, lower-cased; nil when the URL has no authority (`yourapp:post/10`), empty for `yourapp:///post`.
    public var host: String?
    public var port: Int?
    /// Decoded path segments, without empty ones.
    public var pathSegments: [String]
    /// Decoded query items, in order.
    public var queryItems: [QueryItem]
    /// The decoded fragment, nil when the URL has no `#`.
    public var fragment: String?
    /// The fragment read as `name=value&...` items (as a reset link's `#token=...`), decoded once.
    public var fragmentItems: [QueryItem]

    /// Whether this is an `http` or `https` URL (a universal-link candidate).
    public var isWebURL: Bool { scheme == "https" || scheme == "http" }

    /// The path a route table matches: for a custom scheme the host is the first segment
    /// (`yourapp://post/10` and `yourapp:///post/10` both give `["post", "10"]`).
    public var routeSegments: [String] {
        guard !isWebURL, let host, !host.isEmpty else { return pathSegments }
        return [host] + pathSegments
    }

    /// All values of a query key, in order (`nil` entries for `?key` without `=`).
    public func values(of name: String) -> [String?] {
        queryItems.lazy.filter { $0.name == name }.map(\.value)
    }

    public init(
        scheme: String,
        host: String?,
        port: Int? = nil,
        pathSegments: [String],
        queryItems: [QueryItem] = [],
        fragment: String? = nil,
        fragmentItems: [QueryItem] = []
    ) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.pathSegments = pathSegments
        self.queryItems = queryItems
        self.fragment = fragment
        self.fragmentItems = fragmentItems
    }

    /// The URL as text, every component percent-encoded outside RFC 3986's unreserved set (a `/` inside a
    /// segment as `%2F`): parsing it gives this URL back. A fragment is written as its items.
    public var string: String {
        let path = pathSegments.map(PercentEncoding.encode).joined(separator: "/")
        var text = scheme + ":"
        if let host {
            text +=
                "//" + PercentEncoding.encode(host) + (port.map { ":\($0)" } ?? "") + (path.isEmpty ? "" : "/" + path)
        } else {
            text += path  // yourapp:post/10
        }
        func items(_ items: [QueryItem]) -> String {
            items.map { PercentEncoding.encode($0.name) + ($0.value.map { "=" + PercentEncoding.encode($0) } ?? "") }
                .joined(separator: "&")
        }
        if !queryItems.isEmpty { text += "?" + items(queryItems) }
        if let fragment {
            text += "#" + (fragmentItems.isEmpty ? PercentEncoding.encode(fragment) : items(fragmentItems))
        }
        return text
    }

    /// Parses `string` under `limits`. Never traps, whatever the input.
    public init(parsing string: String, limits: URLLimits = .default) throws(URLDiagnostic) {
        var string = string
        do {
            self = try string.withUTF8 { bytes in try URLParser(bytes: bytes, limits: limits).parse() }
        } catch {
            // The parser throws nothing else; withUTF8 only rethrows untyped.
            throw error as! URLDiagnostic
        }
    }
}

/// One `name=value` pair of a query or fragment, decoded. `value` is nil for a bare `name`.
public struct QueryItem: Sendable, Hashable, Codable {
    public var name: String
    public var value: String?

    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}
