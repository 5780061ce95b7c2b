/// Host names as settings and links name them.
package enum HostName {
    /// Why `value` is not a host name a link can name (scheme, path, port, wildcard, bad label), or nil.
    package static func problem(_ value: String) -> String? {
        if value.contains("://") { return "must be a host name without a scheme" }
        if value.contains("/") { return "must be a host name without a path" }
        if value.contains(":") { return "must be a host name without a port" }
        if value.hasPrefix("*.") { return "is a wildcard; list the exact host the server answers for" }
        let labels = value.split(separator: ".", omittingEmptySubsequences: false)
        guard value.count <= 253, labels.count >= 2 else { return "is not a fully qualified host name" }
        for label in labels {
            guard !label.isEmpty, label.count <= 63,
                label.unicodeScalars.allSatisfy({ $0.isASCIIAlphanumeric || $0 == "-" }),
                label.first != "-", label.last != "-"
            else { return "is not a valid host name" }
        }
        return nil
    }
}

extension Unicode.Scalar {
    package var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    package var isASCIIAlphanumeric: Bool { isASCIILetter || ("0"..."9").contains(self) }
}
