import Foundation
import Synchronization

/// Entries up to a budget of cost, in slots with an index by key, a reference bit per slot and a hand (the CLOCK
/// algorithm). A removed or evicted entry's slot is reused by the next insert. The slots and the index are reserved
/// at once and never grow under the lock that every redirect takes (a doubling copies them: measured 1.2 s for an
/// index of 6M keys and 1.6 s for 8.6M slots): the index is the largest power-of-two table that fits in the budget
/// beside as many of the smallest entries as it can index, its bytes counted from the start (its keys are hashed
/// all over it, so all of it is soon touched), and the entries are at most that many. Untouched slots take no
/// memory.
struct ClockCache<Value> {
    struct Slot {
        var key: String
        var value: Value
        var storedAt: Int64
        var cost: Int
        var referenced: Bool
    }

    let budget: Int
    /// The most entries: what the index holds without growing.
    let limit: Int
    /// The bytes taken: the index's, and the entries'.
    private(set) var cost: Int
    private let indexCost: Int
    private var slots: [Slot?] = []
    private var free: [Int] = []
    private var index: [String: Int]
    private var hand = 0
    private let smallestEntry: Int

    init(budget: Int, smallestEntry: Int) {
        precondition(budget > 0 && smallestEntry > 0, "a cache holds at least one entry")
        self.budget = budget
        self.smallestEntry = smallestEntry
        // Sized for no more than the machine's memory, whatever the budget says.
        let room = min(budget, Int(clamping: ProcessInfo.processInfo.physicalMemory))
        var buckets = 2
        while Self.indexBytes(buckets: buckets * 2) + buckets * 2 * 3 / 4 * smallestEntry <= room { buckets *= 2 }
        limit = max(1, buckets * 3 / 4)
        index = Dictionary(minimumCapacity: limit)
        slots.reserveCapacity(limit)
        indexCost = Self.indexBytes(buckets: buckets)
        cost = indexCost
    }

    /// A Swift dictionary's table: a key (16 bytes) and a slot number (8) per bucket, and a bit of its bitmap; it
    /// holds three quarters as many entries as buckets.
    static func indexBytes(buckets: Int) -> Int {
        buckets * (MemoryLayout<String>.stride + MemoryLayout<Int>.stride) + buckets / 8
    }

    /// An empty cache of the same budget.
    func emptied() -> ClockCache { ClockCache(budget: budget, smallestEntry: smallestEntry) }

    var count: Int { index.count }

    /// The value of `key` stored less than `ttl` ago, marked as used; nil otherwise.
    mutating func value(_ key: String, now: Int64, ttl: Int64) -> Value? {
        guard let position = index[key], let slot = slots[position] else { return nil }
        guard now - slot.storedAt < ttl else { return nil }
        slots[position]!.referenced = true
        return slot.value
    }

    /// Stores `value` under `key`, evicting entries until its `cost` fits and the index has room (an entry costing
    /// more than the budget beside the index is not kept).
    mutating func insert(_ key: String, _ value: Value, cost: Int, now: Int64) {
        remove(key)
        guard indexCost + cost <= budget else { return }
        while self.cost + cost > budget || index.count >= limit { evict() }
        let slot = Slot(key: key, value: value, storedAt: now, cost: cost, referenced: false)
        let position: Int
        if let reused = free.popLast() {
            position = reused
            slots[position] = slot
        } else {
            position = slots.count
            slots.append(slot)
        }
        index[key] = position
        self.cost += cost
    }

    mutating func remove(_ key: String) {
        guard let position = index.removeValue(forKey: key) else { return }
        cost -= slots[position]!.cost
        slots[position] = nil
        free.append(position)
    }

    /// Evicts the first unreferenced entry after the hand, clearing the bits it passes (some entry is stored).
    private mutating func evict() {
        while true {
            let position = hand
            hand = (hand + 1) % slots.count
            guard let slot = slots[position] else { continue }
            if slot.referenced {
                slots[position]!.referenced = false
            } else {
                remove(slot.key)
                return
            }
        }
    }
}
