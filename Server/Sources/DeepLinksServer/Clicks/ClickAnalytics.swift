import Crypto
import DeepLinksStorage
import Foundation
import HTTPTypes
import NIOCore
import Synchronization

/// What the analytics keep of a click beside its link, day and platform: the class of who clicked, a visitor
/// hash for the day, the place and the device. Nothing that identifies anyone: the hash is keyed with a salt that
/// is deleted when its day is over, and the place and device are a few dozen values each.
struct ClickFacts: Sendable {
    let visitorClass: VisitorClass
    /// The day's keyed hash of the client's address and agent (and the link), base64; nil when the day's salt is
    /// not known yet (the database unreachable at midnight): the click is counted, its visitor is not.
    let visitor: String?
    let place: Place?
    let device: Device
}

/// Makes the ``ClickFacts`` of the clicks the redirect recorded, in the flush job, off the request's path (all in
/// memory: the salt is fetched a day ahead, the place databases are loaded at start), and holds the day's salts,
/// shared by every replica through the database.
final class ClickAnalytics: Sendable {
    let database: Database
    let proxies: TrustedProxies
    /// The header a trusted proxy or CDN puts the visitor's country in (as the `countries` rule condition reads it).
    let countryHeader: HTTPField.Name?
    /// `--geoip-database`: an MMDB file, `none`, or nil for Debian's `tor-geoipdb` where installed.
    let placeSetting: String?
    let scanners: ScannerList
    let clock: WallClock
    private let salts = Mutex<[String: SymmetricKey]>([:])

    init(
        database: Database,
        proxies: TrustedProxies,
        countryHeader: HTTPField.Name?,
        placeSetting: String?,
        clock: WallClock,
        scanners: ScannerList = .builtIn
    ) {
        self.clock = clock
        (self.database, self.proxies, self.countryHeader) = (database, proxies, countryHeader)
        (self.placeSetting, self.scanners) = (placeSetting, scanners)
    }

    /// What a batch of clicks reads once: each agent's bytes, device and scanner, each address's place and
    /// scanner, each day's key.
    struct Cache {
        var agents: [String: (text: AgentText, device: [ClientPlatform: Device], scanner: Bool)] = [:]
        var addresses: [String: (address: IPAddress?, place: Place?, scanner: Bool)] = [:]
        var keys: [String: SymmetricKey?] = [:]
        /// Each visitor's hash by link, day, address and agent.
        var visitors: [String: String] = [:]
    }

    /// The facts of a recorded click (``ClickCounter/RawClick``), off the request's path.
    func facts(of click: ClickCounter.RawClick, cache: inout Cache) -> ClickFacts {
        let agentString = click.headers[.userAgent] ?? ""
        var agent = cache.agents[agentString] ?? (AgentText(agentString), [:], false)
        if cache.agents[agentString] == nil {
            agent.scanner = scanners.scanner(agent: agent.text) != nil
        }
        let device = agent.device[click.platform] ?? Device(platform: click.platform, agent: agent.text)
        agent.device[click.platform] = device
        cache.agents[agentString] = agent
        let client = proxies.clientAddress(peer: click.peer, headers: click.headers)
        let known =
            cache.addresses[client]
            ?? {
                let address = IPAddress(client)
                let place = address.flatMap { Places.source(placeSetting)?.place(of: $0) }
                let scanner = address.map { scanners.scanner(address: $0) != nil } ?? false
                return (address, place, scanner)
            }()
        cache.addresses[client] = known
        let visitorClass: VisitorClass =
            agent.scanner || known.scanner ? .scanners : click.platform == .previewBot ? .previews : .people
        var place = known.place
        if let countryHeader, let value = click.headers[countryHeader], proxies.trusts(peer: click.peer) {
            place = RuleVisitor.countryCode(value).map { Place(country: $0) }
        }
        let day = ClickCounter.day(click.milliseconds)
        let key = cache.keys[day] ?? salts.withLock { $0[day] }
        cache.keys[day] = .some(key)
        var visitor: String?
        if let key {
            let seen = "\(click.code)\u{0}\(day)\u{0}\(client)\u{0}\(agentString)"
            visitor =
                cache.visitors[seen] ?? Self.visitor(code: click.code, client: client, agent: agent.text, key: key)
            cache.visitors[seen] = visitor
        }
        return ClickFacts(visitorClass: visitorClass, visitor: visitor, place: place, device: device)
    }

    /// HMAC-SHA256 of the link, the client's address and its agent under the day's key, its first 12 bytes in
    /// base64: 96 bits, so two visitors of one link on one day share a hash with odds below one in 10^14 even at
    /// ten million visitors.
    static func visitor(code: String, client: String, agent: AgentText, key: SymmetricKey) -> String {
        var hmac = HMAC<SHA256>(key: key)
        hmac.update(data: Array(code.utf8) + [0] + Array(client.utf8) + [0])
        hmac.update(data: agent.bytes)
        return Data(Array(hmac.finalize()).prefix(12)).base64EncodedString()
    }

    /// Whether today's and tomorrow's salts are known here.
    func knowsSalts(now: Int64) -> Bool {
        let days = [ClickCounter.day(now), ClickCounter.day(now + 86_400_000)]
        return salts.withLock { known in days.allSatisfy { known[$0] != nil } }
    }

    /// Fetches today's and tomorrow's salts (made by whichever server asks first), unless known; then forgets
    /// the salts and visitor hashes of the days before today, everywhere. Called by the click flush, so a day's
    /// salt is known a day ahead and midnight needs no database.
    func refreshSalts() async throws {
        let now = clock.milliseconds()
        guard !knowsSalts(now: now) else { return }
        let today = ClickCounter.day(now)
        let days = [today, ClickCounter.day(now + 86_400_000)]
        var fresh: [String: String] = [:]
        for day in days {
            fresh[day] = Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }).base64EncodedString()
        }
        let stored = try await AnalyticsStore.salts(for: days, fresh: fresh, database: database)
        let yesterday = ClickCounter.day(now - 86_400_000)
        salts.withLock { known in
            // Yesterday's key stays in memory (never stored again) for clicks recorded before midnight and
            // counted after it.
            known = known.filter { $0.key >= yesterday }
            for (day, salt) in stored { known[day] = Data(base64Encoded: salt).map { SymmetricKey(data: $0) } }
        }
        try await AnalyticsStore.forgetVisitors(before: today, database: database)
    }
}
