import Foundation
import Synchronization

/// Recently read links, by code, in two bounded CLOCK caches: one for known links and a smaller one for unknown
/// codes, so requests for made-up codes evict each other and never a real link. This server's edits remove an
/// entry at once; other servers' edits when ``LinkStore/syncChanges()`` reports them (about every second).
/// Entries are used only while the last sync is at most ``staleness`` old, so a server that cannot read the
/// change log serves no entry older than that; a late sync reads every change since the last one and applies it,
/// and only one after a gap longer than ``forgetAfter`` (the change log may be pruned past it) starts empty.
///
/// Each cache is bounded by memory: its index is reserved once and counted from the start, and an entry counts
/// the bytes its link and its slot take (``footprint(_:_:)``),
/// so a catalogue of short links holds more entries in the same bound than one with long previews. When a new
/// entry does not fit, the clock hand evicts entries one at a time, each the first whose reference bit is clear,
/// clearing the bits it passes (a second chance for entries read since the last sweep). Nothing is ever emptied
/// at once.
final class LinkCache: Sendable {
    /// How long an entry may be used at most: a last bound on staleness should a change ever be missed (the change
    /// log bounds it otherwise; memory is bounded by size).
    let ttl: Int64
    /// The most another server's edit may stay unseen: entries are not used when the last sync is older.
    let staleness: Int64
    /// A sync after a longer gap empties the cache: changes older than half the change log's retention may be gone.
    let forgetAfter: Int64 = LinkStore.changeLogRetention / 2
    private let known: Mutex<ClockCache<SmartLink>>
    private let unknown: Mutex<ClockCache<Void>>
    /// When the change log was last read (milliseconds); entries are used only while it is recent.
    private let syncedAt: Atomic<Int64>
    private static let never = Int64.min / 2
    /// Moves whenever a sync drops entries: a document read before must not be stored after.
    private let generations = Atomic<Int>(0)
    private let emptiedCount = Atomic<Int>(0)
    /// The last change applied; nil before the first sync.
    private let changePosition = Mutex<Int64?>(nil)
    /// The ids of the changes applied recently, with when: the change log's last window is read each time.
    private let recentChanges = Mutex<[Int64: Int64]>([:])

    /// The default bound of the known links (``ServerSettings/linkCacheBytes``): about 360,000 links of a route and
    /// one destination.
    static let defaultBytes = ServerSettings.defaultLinkCacheBytes

    /// - Parameters:
    ///   - bytes: the bound of the known links' entries.
    ///   - unknownBytes: the bound of the unknown codes' entries, beside; by default a tenth of `bytes`.
    init(
        ttl: Int64 = 3_600_000,
        staleness: Int64 = 5_000,
        bytes: Int = LinkCache.defaultBytes,
        unknownBytes: Int? = nil
    ) {
        self.ttl = ttl
        self.staleness = staleness
        syncedAt = Atomic(Self.never)
        known = Mutex(ClockCache(budget: bytes, smallestEntry: Self.footprint("", SmartLink(code: "", route: ""))))
        unknown = Mutex(ClockCache(budget: unknownBytes ?? bytes / 10, smallestEntry: Self.footprint("", nil)))
    }

    /// The bytes an entry takes beside the index: its slot and the heap storage of the link's strings (an estimate:
    /// what Swift allocates for each string longer than its 15 inline bytes, with the allocator's header), 336
    /// bytes for a link of a route and one destination.
    static func footprint(_ code: String, _ link: SmartLink?) -> Int {
        guard let link else { return MemoryLayout<ClockCache<Void>.Slot?>.stride + heapBytes(code) }
        let entry = MemoryLayout<ClockCache<SmartLink>.Slot?>.stride + heapBytes(code)
        let strings: [String?] = [
            link.app, link.route, link.destinations.ios, link.destinations.ipad, link.destinations.android,
            link.destinations.desktop, link.destinations.fallback, link.preview.title, link.preview.description,
            link.preview.image, link.expiredURL,
        ]
        return strings.reduce(entry) { $0 + ($1.map(heapBytes) ?? 0) } + heapBytes(link.rules)
    }

    /// A link's rules: the arrays' storage, their strings and their conditions' (the same estimate as a link's).
    private static func heapBytes(_ rules: [LinkRule]?) -> Int {
        guard let rules else { return 0 }
        func destination(_ target: LinkRule.Destination) -> Int { target.address.map(heapBytes) ?? 0 }
        return rules.reduce(MemoryEstimate.array(rules)) { total, rule in
            var bytes = heapBytes(rule.name) + rule.when.footprint
            switch rule.then {
            case .destination(let target): bytes += destination(target)
            case .split(let variants):
                bytes += variants.reduce(MemoryEstimate.array(variants)) {
                    $0 + heapBytes($1.name) + destination($1.destination)
                }
            }
            return total + bytes
        }
    }

    private static func heapBytes(_ string: String) -> Int { MemoryEstimate.string(string) }

    var generation: Int { generations.load(ordering: .acquiring) }
    var position: Int64? { changePosition.withLock { $0 } }
    /// When the change log was last read; nil before the first read.
    var lastSync: Int64? {
        let at = syncedAt.load(ordering: .relaxed)
        return at == Self.never ? nil : at
    }

    /// `.some(link)` for a fresh entry (`.some(nil)`: a code known not to exist), nil when the database must say.
    func lookup(_ code: String, now: Int64) -> SmartLink?? {
        guard now - syncedAt.load(ordering: .relaxed) <= staleness else { return nil }
        if let link = known.withLock({ $0.value(code, now: now, ttl: ttl) }) { return .some(link) }
        if unknown.withLock({ $0.value(code, now: now, ttl: ttl) }) != nil { return .some(nil) }
        return nil
    }

    /// Keeps what the database said about `code`, unless a sync dropped entries since `generation` was read
    /// (or none has run yet: the change log's position is not known).
    func store(_ code: String, _ link: SmartLink?, now: Int64, generation: Int) {
        guard syncedAt.load(ordering: .relaxed) != Self.never else { return }
        if let link {
            known.withLock { cache in
                if generations.load(ordering: .acquiring) == generation {
                    cache.insert(code, link, cost: Self.footprint(code, link), now: now)
                }
            }
        } else {
            unknown.withLock { cache in
                if generations.load(ordering: .acquiring) == generation {
                    cache.insert(code, (), cost: Self.footprint(code, nil), now: now)
                }
            }
        }
    }

    private func remove(_ code: String) {
        known.withLock { $0.remove(code) }
        unknown.withLock { $0.remove(code) }
    }

    /// Applies this server's own committed `changes` at once: drops their codes (a read begun before the commit
    /// stores nothing: the generation moves) and remembers their ids, so that the sync does not drop the codes a
    /// second time when it reads the same changes from the log.
    func appliedHere(_ changes: [LinkStore.Change], now: Int64) {
        guard !changes.isEmpty else { return }
        generations.add(1, ordering: .releasing)
        for change in changes { remove(change.code) }
        recentChanges.withLock { recent in
            for change in changes { recent[change.id] = now }
        }
    }

    /// Applies a read of the change log up to `position`: drops `codes`, or everything when `codes` is nil (the
    /// first read: nothing is stored before it) or the last sync is older than ``forgetAfter``.
    func synced(codes: [String]?, position: Int64, now: Int64) {
        // Nothing is stored before the first read (``store(_:_:now:generation:)``): only a gap has entries to drop.
        let gap = codes != nil && now - syncedAt.load(ordering: .relaxed) > forgetAfter
        if codes == nil || gap {
            generations.add(1, ordering: .releasing)
            if gap {
                emptiedCount.add(1, ordering: .relaxed)
                known.withLock { $0 = $0.emptied() }
                unknown.withLock { $0 = $0.emptied() }
            }
        } else if let codes, !codes.isEmpty {
            generations.add(1, ordering: .releasing)
            for code in codes { remove(code) }
        }
        changePosition.withLock { $0 = position }
        syncedAt.store(now, ordering: .relaxed)
    }

    /// The codes of `changes` not applied before, remembering them for `window` milliseconds.
    func unseen(_ changes: [(id: Int64, code: String)], now: Int64, window: Int64) -> [String] {
        recentChanges.withLock { recent in
            recent = recent.filter { now - $0.value <= window }
            return changes.compactMap { change in
                recent.updateValue(now, forKey: change.id) == nil ? change.code : nil
            }
        }
    }

    var counts: (known: Int, unknown: Int) { (known.withLock { $0.count }, unknown.withLock { $0.count }) }
    /// The bytes the known links' cache takes (its index and ``footprint(_:_:)`` of each entry), at most the bound.
    var bytes: Int { known.withLock { $0.cost } }
    /// How often a sync after a gap longer than ``forgetAfter`` emptied the cache.
    var emptied: Int { emptiedCount.load(ordering: .relaxed) }
}
