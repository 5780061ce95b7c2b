/// An app's `com.apple.developer.associated-domains` entitlement, and which site's file governs a URL host
/// (<doc:HowIOSReadsAssociationFiles>, E1–E8).
public struct AssociatedDomains: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public var service: String
        /// The host, lower-cased, without `*.`.
        public var domain: String
        public var isWildcard: Bool
        /// The alternate mode of H10 (`developer`, `managed`, `developer+managed`), if any.
        public var mode: String?
    }

    public var entries: [Entry]

    /// Parses entries such as `applinks:example.com`, `applinks:*.example.com`, `applinks:example.com?mode=developer`.
    /// Entries that are not `service:host` (a path, a port, an empty host) are refused with the reason.
    public init(_ strings: [String]) throws(EntitlementError) {
        var entries: [Entry] = []
        for string in strings {
            guard let colon = string.firstIndex(of: ":") else {
                throw EntitlementError(entry: string, reason: "is not service:domain")
            }
            let service = String(string[..<colon])
            guard ["applinks", "webcredentials", "activitycontinuation", "appclips"].contains(service) else {
                throw EntitlementError(
                    entry: string,
                    reason: "'\(service)' is not a service (applinks, webcredentials, activitycontinuation, appclips)"
                )
            }
            var host = Substring(string[string.index(after: colon)...])
            var mode: String?
            if let question = host.firstIndex(of: "?") {
                let query = host[host.index(after: question)...]
                guard query.hasPrefix("mode="),
                    ["developer", "managed", "developer+managed"].contains(String(query.dropFirst(5)))
                else {
                    throw EntitlementError(
                        entry: string,
                        reason: "the only query allowed is ?mode=developer, managed or developer+managed (H10)"
                    )
                }
                mode = String(query.dropFirst(5))
                host = host[..<question]
            }
            let isWildcard = host.hasPrefix("*.")
            if isWildcard { host = host.dropFirst(2) }
            // E2: only the host; E5: no port.
            guard !host.isEmpty, !host.contains(where: { "/:#@ *".contains($0) }) else {
                throw EntitlementError(
                    entry: string,
                    reason: "the entry holds only a host: no scheme, path, port or trailing slash (E2, E5)"
                )
            }
            if isWildcard, service == "appclips" {
                throw EntitlementError(entry: string, reason: "appclips entries cannot use a wildcard (E3)")
            }
            entries.append(Entry(service: service, domain: host.lowercased(), isWildcard: isWildcard, mode: mode))
        }
        self.entries = entries
    }

    /// The domain whose apple-app-site-association file decides universal links for `host`, or nil when
    /// no `applinks` entry covers it. An exact entry covers its host; `*.d` covers every subdomain of `d`
    /// (not `d` itself) with the root file of `d` (E4); the longest matching entry wins (E3).
    public func fileDomain(forHost host: String) -> String? {
        let host = host.lowercased()
        var best: (length: Int, domain: String)?
        for entry in entries where entry.service == "applinks" {
            let covers = entry.isWildcard ? host.hasSuffix("." + entry.domain) : host == entry.domain
            guard covers else { continue }
            // An exact entry is as long as the host itself, so it beats any wildcard.
            let length = entry.isWildcard ? entry.domain.count + 2 : entry.domain.count + 3
            if best == nil || length > best!.length { best = (length, entry.domain) }
        }
        return best?.domain
    }
}

/// An entitlement entry that cannot be used, and why.
public struct EntitlementError: Error, Sendable, Hashable, CustomStringConvertible {
    public var entry: String
    public var reason: String
    public var description: String { "'\(entry)' \(reason)" }
}
