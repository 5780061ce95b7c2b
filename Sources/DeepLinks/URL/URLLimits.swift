/// The limits the URL policy enforces before any route sees a URL.
public struct URLLimits: Sendable, Hashable, Codable {
    /// Longest accepted URL, in UTF-8 bytes. Default 8 KiB.
    public var maxURLLength: Int
    /// Most query items (and fragment parameters) accepted. Default 64.
    public var maxQueryItems: Int
    /// Longest decoded query value, fragment or path segment, in UTF-8 bytes. Default 2 KiB.
    public var maxValueLength: Int
    /// Whether an explicit port (`https://example.com:8443/`) is accepted. Default false: universal
    /// links never carry one, and a custom-scheme link has no use for one.
    public var allowsPort: Bool

    public init(maxURLLength: Int = 8192, maxQueryItems: Int = 64, maxValueLength: Int = 2048, allowsPort: Bool = false)
    {
        self.maxURLLength = maxURLLength
        self.maxQueryItems = maxQueryItems
        self.maxValueLength = maxValueLength
        self.allowsPort = allowsPort
    }

    public static let `default` = URLLimits()
}
