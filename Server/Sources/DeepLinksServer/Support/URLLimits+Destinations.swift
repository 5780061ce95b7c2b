import DeepLinks

extension URLLimits {
    /// A web address the server sends visitors to or stores (a link's destination, an app's website or store):
    /// at most 2048 bytes and 256 query items, a port allowed.
    static let webDestination = URLLimits(maxURLLength: 2048, maxQueryItems: 256, allowsPort: true)
}
