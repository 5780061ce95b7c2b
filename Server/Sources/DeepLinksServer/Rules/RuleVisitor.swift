import DeepLinks
import Foundation
import HTTPTypes
import NIOCore

/// What a link's rules read of one request, each fact worked out the first time a rule asks for it: a link
/// without rules, or rules that never ask, cost nothing more.
struct RuleVisitor {
    let platform: ClientPlatform
    let agent: AgentText
    let headers: HTTPFields
    let query: ClickQuery?
    let now: Int64
    /// The client's address (through trusted proxies), for a split.
    let client: () -> String
    /// Whether the TCP peer is a trusted proxy, for the country header.
    let viaTrustedProxy: () -> Bool
    /// The header a trusted proxy puts the visitor's country in.
    let countryHeader: HTTPField.Name?
    /// The offline place database (`--geoip-database`), read when no header gives the country; nil for none.
    var places: (any PlaceSource)? = nil

    private var memo = Memo()
    private struct Memo {
        var language: String??
        var version: OSVersion??
        var country: String??
        var client: String?
        var viaTrustedProxy: Bool?
        var inAppBrowser: InAppBrowser??
    }

    init(
        platform: ClientPlatform,
        agent: AgentText,
        headers: HTTPFields,
        query: ClickQuery?,
        now: Int64,
        countryHeader: HTTPField.Name?,
        client: @escaping () -> String,
        viaTrustedProxy: @escaping () -> Bool
    ) {
        (self.platform, self.agent, self.headers, self.query, self.now) = (platform, agent, headers, query, now)
        (self.countryHeader, self.client, self.viaTrustedProxy) = (countryHeader, client, viaTrustedProxy)
    }

    /// The language the visitor prefers most, lower-cased: the first of the highest quality in `Accept-Language`
    /// (`de-CH, de;q=0.9, en;q=0.5` gives `de-ch`); nil without one (or with `*` only).
    mutating func language() -> String? {
        if let known = memo.language { return known }
        let found = headers[.acceptLanguage].flatMap(Self.preferredLanguage)
        memo.language = .some(found)
        return found
    }

    /// Read byte by byte, on every redirect of a link with a language rule: the first 32 items of at most 1,024
    /// bytes; a tag of letters, digits and `-`; a quality as HTTP writes it (`0`, `0.5`, `1.000`), in thousandths.
    static func preferredLanguage(_ header: String) -> String? {
        var best: (tag: ArraySlice<UInt8>, quality: Int)?
        var bytes = Array(header.utf8.prefix(1024))
        for index in bytes.indices where (0x41...0x5A).contains(bytes[index]) { bytes[index] |= 0x20 }
        var items = 0
        var start = 0
        while start < bytes.count, items < 32 {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.count
            items += 1
            defer { start = end + 1 }
            var item = bytes[start..<end]
            trim(&item)
            let semicolon = item.firstIndex(of: UInt8(ascii: ";")) ?? item.endIndex
            var tag = item[..<semicolon]
            trim(&tag)
            guard !tag.isEmpty,
                tag.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D })
            else { continue }
            var quality = 1000
            if semicolon < item.endIndex {
                var parameter = item[(semicolon + 1)...]
                trim(&parameter)
                guard let parsed = Self.quality(parameter) else { continue }
                quality = parsed
            }
            if quality > 0, quality > best?.quality ?? 0 { best = (tag, quality) }
        }
        return best.map { String(decoding: $0.tag, as: UTF8.self) }
    }

    /// `part` without the spaces and tabs around it.
    private static func trim(_ part: inout ArraySlice<UInt8>) {
        while part.first == 0x20 || part.first == 0x09 { part.removeFirst() }
        while part.last == 0x20 || part.last == 0x09 { part.removeLast() }
    }

    /// `q=0.5` as 500; nil when it is not a quality.
    static func quality(_ parameter: ArraySlice<UInt8>) -> Int? {
        guard parameter.count >= 3, parameter.starts(with: Array("q=".utf8)) else { return nil }
        let value = parameter.dropFirst(2)
        guard let first = value.first, first == 0x30 || first == 0x31 else { return nil }
        var thousandths = first == 0x31 ? 1000 : 0
        let fraction = value.dropFirst()
        guard fraction.isEmpty || (fraction.first == 0x2E && fraction.count <= 4) else { return nil }
        var scale = 100
        for digit in fraction.dropFirst() {
            guard (0x30...0x39).contains(digit), first == 0x30 || digit == 0x30 else { return nil }
            thousandths += Int(digit - 0x30) * scale
            scale /= 10
        }
        return thousandths
    }

    /// The OS version the browser reports. On iOS, Safari's `Version/` token first: since iOS 26 Safari freezes
    /// the `iPhone OS` token at 18_x, while `Version/` is Safari's own version, which is the OS's (26.x on
    /// iOS 26). Other iOS browsers (Chrome, Firefox, in-app browsers) send no `Version/`; their `iPhone OS`
    /// token is read, frozen or not. On Android the `Sec-CH-UA-Platform-Version` client hint when sent (Chrome and
    /// Samsung Internet send it once the server asks: ``LinkRedirect/askForPlatformVersion(_:)``), else the
    /// `Android N` token, unless it is the reduced agent's `Android 10; K` (the same whatever the version): unknown.
    mutating func osVersion() -> OSVersion? {
        if let known = memo.version { return known }
        let found: OSVersion?
        switch platform {
        case .iPhone, .iPad:
            found =
                AgentText.version(after: AgentText.safariVersion, in: agent, separator: UInt8(ascii: "."))
                ?? AgentText.version(after: AgentText.iPhoneOS, in: agent, separator: UInt8(ascii: "_"))
                ?? AgentText.version(after: AgentText.cpuOS, in: agent, separator: UInt8(ascii: "_"))
        case .android:
            let hint = headers[Self.platformVersionHint]?.filter { $0 != "\"" }
            found =
                hint.flatMap { OSVersion($0) }
                ?? (agent.has(AgentText.reducedAndroid)
                    ? nil : AgentText.version(after: AgentText.android, in: agent, separator: UInt8(ascii: ".")))
        default:
            found = nil
        }
        memo.version = .some(found)
        return found
    }

    static let platformVersionHint = HTTPField.Name("Sec-CH-UA-Platform-Version")!

    /// The visitor's country, upper-cased, from the configured header, and only when the request came through a
    /// trusted proxy (anyone else could write the header); else from the offline place database by the client's
    /// address, as the analytics count it. `XX` and `T1` (unknown, Tor) are no country.
    mutating func country() -> String? {
        if let known = memo.country { return known }
        var found: String?
        if let countryHeader, let value = headers[countryHeader], trustedPeer() {
            found = Self.countryCode(value)
        } else if let places, let address = IPAddress(clientAddress()) {
            found = places.place(of: address)?.country
        }
        memo.country = .some(found)
        return found
    }

    /// A country header's value as a country code (`ch` gives `CH`); nil for anything else, and for `XX` and `T1`.
    static func countryCode(_ value: String) -> String? {
        let code = value.trimmingCharacters(in: .whitespaces).uppercased()
        guard code.count == 2, code.allSatisfy({ $0.isASCII && $0.isLetter }), code != "XX" else { return nil }
        return code
    }

    /// This visitor, told the in-app browser the caller already read from the same agent (not read twice).
    func knowing(inAppBrowser: InAppBrowser?) -> Self {
        var known = self
        known.memo.inAppBrowser = .some(inAppBrowser)
        return known
    }

    /// The app whose own browser the visitor is in, if any (``InAppBrowser``).
    mutating func inAppBrowser() -> InAppBrowser? {
        if let known = memo.inAppBrowser { return known }
        let found = InAppBrowser(agent: agent)
        memo.inAppBrowser = .some(found)
        return found
    }

    mutating func clientAddress() -> String {
        if let known = memo.client { return known }
        let found = client()
        memo.client = found
        return found
    }

    mutating func trustedPeer() -> Bool {
        if let known = memo.viaTrustedProxy { return known }
        let found = viaTrustedProxy()
        memo.viaTrustedProxy = found
        return found
    }

    /// The decoded value of the first query item named `name`; "" for an item without `=`; nil when absent.
    func queryValue(_ name: String) -> String? { query?.value(name) }

    /// A number from 0 to 99, the same for the same visitor (client address and browser) on the same rule of
    /// the same link, on every server: FNV-1a over them, then a 64-bit finalizer. Nothing is stored or sent.
    mutating func bucket(code: String, rule: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix<S: Sequence<UInt8>>(_ bytes: S) {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
            hash ^= 0xff
            hash = hash &* 0x0000_0100_0000_01b3
        }
        mix(code.utf8)
        mix(rule.utf8)
        mix(clientAddress().utf8)
        mix(agent.bytes)
        hash ^= hash >> 33
        hash = hash &* 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        hash = hash &* 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        return Int(hash % 100)
    }
}

/// Which rule of a link a visitor reaches.
struct RuleHit: Equatable {
    let index: Int
    let rule: String
    let variant: String?
    let destination: LinkRule.Destination
}

extension SmartLink {
    /// The first rule `visitor` meets: a hit; `.needsPlatform` first when an earlier rule cannot tell without
    /// knowing whether a Mac agent is an iPad; nil when none matches. The one evaluation of a link's rules: the
    /// redirect, `/resolve`, `?d=1` and the console read it (through ``LinkPolicy/ruled(_:platform:inAppBrowser:now:visitor:)``).
    /// - Parameter missed: told each rule passed over and the condition it failed on (`?d=1`'s trace).
    func ruleOutcome(
        _ visitor: inout RuleVisitor,
        missed: ((_ rule: Int, _ condition: any RuleCondition, _ visitor: inout RuleVisitor) -> Void)? = nil
    ) -> RuleOutcome {
        for (index, rule) in (rules ?? []).enumerated() {
            switch rule.when.check(&visitor) {
            case (.fails, let failed):
                missed?(index, rule.when.items[failed], &visitor)
                continue
            case (.needsPlatform, _): return .needsPlatform(index: index)
            case (.holds, _):
                switch rule.then {
                case .destination(let destination):
                    return .hit(RuleHit(index: index, rule: rule.name, variant: nil, destination: destination))
                case .split(let variants):
                    var bucket = visitor.bucket(code: code, rule: rule.name)
                    let chosen =
                        variants.first { variant in
                            bucket -= variant.weight
                            return bucket < 0
                        } ?? variants[variants.count - 1]
                    return .hit(
                        RuleHit(index: index, rule: rule.name, variant: chosen.name, destination: chosen.destination)
                    )
                }
            }
        }
        return .none
    }

    /// Whether a rule compares the Android version (an `os` range for android): the redirect then asks Chromium
    /// browsers for it.
    var readsAndroidVersion: Bool {
        rules?.contains {
            $0.when[OSVersionCondition.self] != nil
                && $0.when[PlatformsCondition.self]?.platforms.contains(.android) == true
        } ?? false
    }

    /// Whether the link has ended: it has no destination of its own, and every rule's window has closed.
    func hasEnded(at now: Int64) -> Bool {
        guard route == nil, destinations.fallback == nil, let rules, !rules.isEmpty else { return false }
        return rules.allSatisfy { rule in rule.when[TimeWindowCondition.self]?.until.map { now >= $0 } ?? false }
    }
}

enum RuleOutcome: Equatable {
    case hit(RuleHit)
    /// The rule at `index` cannot tell without knowing whether a Mac agent is an iPad.
    case needsPlatform(index: Int)
    case none
}
