import DeepLinks
import Foundation

/// The query of a click on a short link, split once per request: what the server reads of it (`d=1`, the touch
/// check's `_platform`, the QR tag), what goes on to the destination, and what rules compare, all from one pass.
///
/// Bounded, because a click needs no key: a query of more than ``maxBytes`` bytes or ``maxItems`` items is refused
/// (414), and one over ``eventLoopBytes`` or ``eventLoopItems`` is never answered on the connection's event loop
/// (``CachedRedirects``), so a flood of long queries takes the pool's time, not every other client's redirect.
struct ClickQuery: Sendable {
    /// The query item a QR code's link carries: its scans are counted under the source "qr".
    static let qrTag = "qr=1"
    /// The longest query a click may carry: a campaign's `utm_*` items and ad click IDs fit many times over.
    static let maxBytes = 8192
    static let maxItems = 256
    /// The longest request target, and the most `&`-separated items, answered on the event loop.
    static let eventLoopBytes = 2048
    static let eventLoopItems = 64

    /// The items meant for the destination and the rules, raw (`name=value`, percent-encoded as sent), in order;
    /// without empty items and without this server's own (`_platform=...`, `qr=1`).
    private(set) var items: [Substring] = []
    /// The QR tag was there (`qr=1`): the click is counted as a scan.
    private(set) var isQR = false
    /// The touch check's answer (`_platform=ipad` or `mac`).
    private(set) var platformAnswer: Substring?
    /// `d=1`: the decisions page.
    private(set) var wantsDecisions = false
    /// The query as sent when nothing was removed from it (no copy), else nil.
    private let unchanged: String?

    /// nil when `raw` is past ``maxBytes`` or ``maxItems``.
    init?(_ raw: String) {
        guard raw.utf8.count <= Self.maxBytes else { return nil }
        var count = 0
        var removed = false
        for pair in raw[...].split(separator: "&", omittingEmptySubsequences: false) {
            count += 1
            guard count <= Self.maxItems else { return nil }
            if pair.isEmpty {
                removed = true
            } else if pair == ClickQuery.qrTag {
                (isQR, removed) = (true, true)
            } else if pair.hasPrefix("_platform=") || pair == "_platform" {
                (platformAnswer, removed) = (pair.dropFirst("_platform=".count), true)
            } else {
                if pair == "d=1" { wantsDecisions = true }
                items.append(pair)
            }
        }
        unchanged = removed ? nil : raw
    }

    /// The query without this server's items, for the destination and the touch check; nil when nothing is left.
    var forwarded: String? {
        if let unchanged { return unchanged.isEmpty ? nil : unchanged }
        return items.isEmpty ? nil : items.joined(separator: "&")
    }

    /// The decoded value of the first item named `name`; "" for an item without `=`; nil when absent.
    func value(_ name: String) -> String? {
        for pair in items {
            let equals = pair.firstIndex(of: "=")
            let key = equals.map { pair[..<$0] } ?? pair
            if Self.matches(key, name) { return equals.map { Self.decoded(pair[pair.index(after: $0)...]) } ?? "" }
        }
        return nil
    }

    /// Whether the raw item name `key` decodes to `name`; decoded only when it holds an escape or a `+`.
    private static func matches(_ key: Substring, _ name: String) -> Bool {
        key.utf8.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") } ? decoded(key) == name : key == name
    }

    /// A query component as a form writes it: `+` is a space, then percent-decoded (kept as sent if malformed).
    static func decoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return (try? PercentEncoding.decode(spaced)) ?? spaced
    }

    /// Whether a request target (`/code?query`) may be answered on the event loop: short, with few items.
    static func fitsEventLoop(_ target: String.UTF8View) -> Bool {
        target.count <= eventLoopBytes && target.lazy.filter { $0 == UInt8(ascii: "&") }.count < eventLoopItems
    }
}
