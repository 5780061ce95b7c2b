/// An estimate of the heap bytes Swift values take (what the link cache bounds).
enum MemoryEstimate {
    /// A native string's object (a 32-byte header and the UTF-8 bytes), rounded to 16 bytes, and 16 for malloc;
    /// nothing for a string of at most 15 bytes, kept inline.
    static func string(_ string: String) -> Int {
        let count = string.utf8.count
        return count <= 15 ? 0 : 16 + (32 + count + 15) & ~15
    }

    /// An array's storage: a 32-byte header and its elements, rounded to 16 bytes, and 16 for malloc.
    static func array<Element>(_ array: [Element]?) -> Int {
        array.map { 16 + (32 + $0.count * MemoryLayout<Element>.stride + 15) & ~15 } ?? 0
    }

    /// An array of strings: its storage and each string's.
    static func strings(_ items: [String]?) -> Int { array(items) + (items ?? []).reduce(0) { $0 + string($1) } }

    /// The box an existential allocates for a value of `type` too large for its three-word inline buffer.
    static func existentialBox<T>(_ type: T.Type) -> Int {
        MemoryLayout<T>.size <= 3 * MemoryLayout<Int>.size ? 0 : 16 + (16 + MemoryLayout<T>.size + 15) & ~15
    }
}
