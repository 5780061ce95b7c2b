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

/// The version tokens of agents, as the `os` rule and the analytics read them.
extension AgentText {
    static let safariVersion = Array("version/".utf8), iPhoneOS = Array("iphone os ".utf8)
    static let cpuOS = Array("cpu os ".utf8), android = Array("android ".utf8)
    /// Chrome's and Samsung Internet's reduced agent (`Linux; Android 10; K`), whatever the device and version.
    static let reducedAndroid = Array("android 10; k)".utf8)

    /// `major[sep minor]` right after `token` in the agent.
    static func version(after token: [UInt8], in agent: AgentText, separator: UInt8) -> OSVersion? {
        let bytes = agent.bytes
        guard token.count < bytes.count else { return nil }
        for start in 0...(bytes.count - token.count) where bytes[start..<start + token.count].elementsEqual(token) {
            var index = start + token.count
            func number() -> Int? {
                let begin = index
                while index < bytes.count, index - begin < 3, (48...57).contains(bytes[index]) { index += 1 }
                return index > begin ? Int(String(decoding: bytes[begin..<index], as: UTF8.self)) : nil
            }
            guard let major = number() else { continue }
            var minor = 0
            if index < bytes.count, bytes[index] == separator {
                index += 1
                minor = number() ?? 0
            }
            return OSVersion(major: major, minor: minor)
        }
        return nil
    }
}
