/// A `User-Agent` (or client hint) as the checks read it on every redirect: its first 1,024 bytes, ASCII
/// lower-cased once, searched for tokens byte by byte. Not `String.contains`, which builds a search table per
/// call: with it, the in-app browser check took a quarter of the server's CPU on a redirect (perf, one hot link).
struct AgentText {
    let bytes: [UInt8]

    init(_ text: String?) {
        bytes = (text ?? "").utf8.prefix(1024).map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }

    /// Whether `token` (lower-case bytes) occurs in the text.
    func has(_ token: [UInt8]) -> Bool {
        guard let head = token.first, token.count <= bytes.count else { return false }
        var start = 0
        while start <= bytes.count - token.count {
            if bytes[start] == head, bytes[start..<start + token.count].elementsEqual(token) { return true }
            start += 1
        }
        return false
    }
}
