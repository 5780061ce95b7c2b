/// The compiled form of a route table's patterns: one node per path prefix, with its literal children, at most
/// one parameter child, and the routes ending there or in a catch-all. Matching tries a literal, then a
/// parameter, then a catch-all, and backtracks when a branch leads nowhere.
///
/// Everything lives in a few flat arrays, so a lookup touches a handful of cache lines whatever the table's
/// size:
/// - The nodes are 16-byte cells placed depth first, so a pattern's nodes follow one another, and a branch of
///   at most four cells within one cache line (the three nodes of `/s1/items/:id` and the text of `items` are
///   one line).
/// - A node with one literal child of at most 16 bytes is followed by the child's text, then by the child:
///   `/s1/items` costs one hash look-up, not two.
/// - The other literal children share one open-addressing table keyed by (node, segment bytes), each slot
///   holding the first 16 bytes of its text (the rest, rarely, in one byte pool).
/// - A node holds its first route (the others, rarely, in a range of one index array).
///
/// A class holding its arrays as raw buffers (immutable once built, freed with it), so a match retains
/// nothing.
final class RouteTrie: @unchecked Sendable {
    /// 16 bytes, a cell.
    struct Node: Sendable {
        var parameter: Int32 = -1
        /// `routeIndices[routeStart]` when a route ends here, or -1: saves a look-up in the usual case.
        var firstRoute: Int32 = -1
        /// `terminalCount` routes end here, then `catchAllCount` end in a catch-all here, from
        /// `routeIndices[routeStart]` on. The checker lets at most one route per shape and source through (two).
        var routeStart: Int32 = 0
        var terminalCount: UInt8 = 0
        var catchAllCount: UInt8 = 0
        var literals: Literals = .none
        /// With `literals == .inline`: the length of the only literal child's text, in the next cell.
        var onlyLength: UInt8 = 0
    }

    /// Where a node's literal children are.
    enum Literals: UInt8, Sendable {
        case none
        /// One child: the next cell holds its text (a ``Prefix``), the cell after is the child.
        case inline
        /// In the edge table.
        case table
    }

    /// One literal child: `child` is reached from `parent` by a segment of `length` bytes, whose first 16 are
    /// `prefix` and the others `text[textStart..<textStart + length - 16]`. 32 bytes: two a cache line.
    struct Edge: Sendable {
        var parent: Int32 = -1
        var child: Int32 = -1
        var length: Int32 = 0
        var textStart: Int32 = 0
        var prefix: Prefix = Prefix()
    }

    /// A text's first 16 bytes, zero-padded, in memory order. 16 bytes, a cell.
    struct Prefix: Sendable, Equatable {
        var low: UInt64 = 0
        var high: UInt64 = 0

        init() {}

        @inline(__always)
        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            withUnsafeMutableBytes(of: &self) { words in
                words.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes).prefix(16)))
            }
        }
    }

    /// The nodes and inline texts, 16 bytes each; the first on a cache line's start.
    private let cells: UnsafeMutableRawPointer
    private let routeIndices: UnsafeMutableBufferPointer<Int32>
    private let edges: UnsafeMutableBufferPointer<Edge>
    private let text: UnsafeMutableBufferPointer<UInt8>
    private let mask: Int

    init(_ patterns: [RoutePattern]) {
        // Build with dictionaries, then flatten.
        struct Building {
            var literals: [String: Int] = [:]
            var parameter = -1
            var terminal: [Int] = []
            var catchAll: [Int] = []
        }
        var building = [Building()]
        for (route, pattern) in patterns.enumerated() {
            var current = 0
            var isCatchAll = false
            for segment in pattern.segments {
                switch segment {
                case .literal(let text):
                    if let next = building[current].literals[text] {
                        current = next
                    } else {
                        building.append(Building())
                        building[current].literals[text] = building.count - 1
                        current = building.count - 1
                    }
                case .parameter:
                    if building[current].parameter < 0 {
                        building.append(Building())
                        building[current].parameter = building.count - 1
                    }
                    current = building[current].parameter
                case .catchAll:
                    isCatchAll = true
                }
                if isCatchAll { break }
            }
            if isCatchAll {
                building[current].catchAll.append(route)
            } else {
                building[current].terminal.append(route)
            }
        }

        // Place the nodes depth first, literal children (by text) before the parameter child: a node's first
        // literal child comes next, after its text when the node holds it. A branch of at most four cells starts
        // where it fits in one cache line (the cells skipped stay empty).
        func inlineText(_ node: Building) -> String? {
            guard node.literals.count == 1, let text = node.literals.keys.first, text.utf8.count <= 16 else {
                return nil
            }
            return text
        }
        func children(_ node: Building) -> [Int] {
            node.literals.sorted { $0.key < $1.key }.map(\.value) + (node.parameter >= 0 ? [node.parameter] : [])
        }
        var order: [Int] = []
        var pending = [0]
        while let node = pending.popLast() {
            order.append(node)
            pending += children(building[node]).reversed()
        }
        var size = [Int](repeating: 0, count: building.count)
        for node in order.reversed() {
            size[node] =
                (inlineText(building[node]) == nil ? 1 : 2) + children(building[node]).reduce(0) { $0 + size[$1] }
        }
        var cell = [Int](repeating: 0, count: building.count)
        var cellCount = 0
        var follows = Set<Int>()  // the children held inline, which come right after their text
        for node in order {
            if !follows.contains(node), size[node] <= 4, cellCount % 4 + size[node] > 4 {
                cellCount += 4 - cellCount % 4
            }
            if inlineText(building[node]) != nil { follows.insert(building[node].literals.values.first!) }
            cell[node] = cellCount
            cellCount += inlineText(building[node]) == nil ? 1 : 2
        }

        let cells = UnsafeMutableRawPointer.allocate(byteCount: cellCount * 16, alignment: 64)
        cells.initializeMemory(as: UInt8.self, repeating: 0, count: cellCount * 16)
        var routeIndices: [Int32] = []
        for old in order {
            let node = building[old]
            precondition(
                node.terminal.count <= UInt8.max && node.catchAll.count <= UInt8.max,
                "the checker lets at most two routes end at one node"
            )
            var compiled = Node(
                parameter: node.parameter < 0 ? -1 : Int32(cell[node.parameter]),
                firstRoute: Int32(node.terminal.first ?? -1),
                routeStart: Int32(routeIndices.count),
                terminalCount: UInt8(node.terminal.count),
                catchAllCount: UInt8(node.catchAll.count)
            )
            if let text = inlineText(node) {
                compiled.literals = .inline
                compiled.onlyLength = UInt8(text.utf8.count)
                (cells + (cell[old] + 1) * 16).initializeMemory(
                    as: Prefix.self,
                    to: Array(text.utf8).withUnsafeBufferPointer(Prefix.init)
                )
            } else if !node.literals.isEmpty {
                compiled.literals = .table
            }
            (cells + cell[old] * 16).initializeMemory(as: Node.self, to: compiled)
            routeIndices += (node.terminal + node.catchAll).map { Int32($0) }
        }

        // At most three slots in four taken: a miss ends within a slot or two.
        let tabled = order.filter { !building[$0].literals.isEmpty && inlineText(building[$0]) == nil }
        let edgeCount = tabled.reduce(0) { $0 + building[$1].literals.count }
        var capacity = 8
        while capacity * 3 < edgeCount * 4 { capacity *= 2 }
        var edges = [Edge](repeating: Edge(), count: capacity)
        var text: [UInt8] = []
        var pooled: [String: Int32] = [:]
        for old in tabled {
            let parent = cell[old]
            for (literal, child) in building[old].literals {
                let bytes = Array(literal.utf8)
                var start: Int32 = 0
                if bytes.count > 16 {
                    if let existing = pooled[literal] {
                        start = existing
                    } else {
                        start = Int32(text.count)
                        text += bytes[16...]
                        pooled[literal] = start
                    }
                }
                let prefix = bytes.withUnsafeBufferPointer(Prefix.init)
                var slot =
                    Int(truncatingIfNeeded: bytes.withUnsafeBufferPointer { Self.hash(parent: parent, $0) })
                    & (capacity - 1)
                while edges[slot].child >= 0 { slot = (slot + 1) & (capacity - 1) }
                edges[slot] = Edge(
                    parent: Int32(parent),
                    child: Int32(cell[child]),
                    length: Int32(bytes.count),
                    textStart: start,
                    prefix: prefix
                )
            }
        }
        self.cells = cells
        self.routeIndices = Self.copy(routeIndices)
        self.edges = Self.copy(edges)
        self.text = Self.copy(text)
        self.mask = capacity - 1
    }

    deinit {
        cells.deallocate()
        routeIndices.deallocate()
        edges.deallocate()
        text.deallocate()
    }

    private static func copy<Element>(_ array: [Element]) -> UnsafeMutableBufferPointer<Element> {
        let buffer = UnsafeMutableBufferPointer<Element>.allocate(capacity: max(array.count, 1))
        _ = buffer.initialize(from: array)
        return UnsafeMutableBufferPointer(rebasing: buffer[..<array.count])
    }

    /// An edge's slot hash: FNV-1a over the bytes seeded by the parent node, then mixed so that neighbouring
    /// slots stay apart.
    @inline(__always)
    private static func hash(parent: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ (UInt64(truncatingIfNeeded: parent) &* 0x9E37_79B9_7F4A_7C15)
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        hash ^= hash >> 29
        hash &*= 0xBF58_476D_1CE4_E5B9
        return hash ^ (hash >> 32)
    }

    /// The candidate routes for `segments`, most specific first. `frames` holds `4 * (segments.count + 1)`
    /// values and `captures` `segments.count + 1`: the caller's temporary memory.
    func candidates(
        _ segments: URLSegments,
        frames: UnsafeMutableBufferPointer<Int32>,
        captures: UnsafeMutableBufferPointer<Int32>
    ) -> Candidates {
        frames[0] = 0  // the root, at depth 0, nothing captured, stage 0
        frames[1] = 0
        frames[2] = 0
        frames[3] = 0
        return Candidates(trie: self, segments: segments, frames: frames, captures: captures)
    }

    /// Walks the trie depth first without recursion: each frame is (node, depth, captured, stage), where the
    /// stage counts what the node has tried (the literal child, the parameter child, then its routes).
    struct Candidates {
        /// The matcher holds the trie for as long as a match runs.
        unowned(unsafe) let trie: RouteTrie
        let segments: URLSegments
        let frames: UnsafeMutableBufferPointer<Int32>
        let captures: UnsafeMutableBufferPointer<Int32>
        private var top = 0

        init(
            trie: RouteTrie,
            segments: URLSegments,
            frames: UnsafeMutableBufferPointer<Int32>,
            captures: UnsafeMutableBufferPointer<Int32>
        ) {
            self.trie = trie
            self.segments = segments
            self.frames = frames
            self.captures = captures
        }

        /// The next candidate route and its captures: for each path parameter, the index of its segment; a
        /// catch-all's capture is `segments.count + i` for the segments from `i` to the end.
        mutating func next() -> (route: Int, captures: UnsafeBufferPointer<Int32>)? {
            while top >= 0 {
                let frame = top * 4
                let node = trie.cells.load(fromByteOffset: Int(frames[frame]) &* 16, as: Node.self)
                let depth = Int(frames[frame + 1])
                let captured = Int(frames[frame + 2])
                let stage = Int(frames[frame + 3])
                frames[frame + 3] += 1
                if depth == segments.count {
                    // The routes ending here, then back up.
                    if stage < node.terminalCount {
                        let route = stage == 0 ? node.firstRoute : trie.routeIndices[Int(node.routeStart) + stage]
                        return (Int(route), UnsafeBufferPointer(rebasing: captures[..<captured]))
                    }
                    top -= 1
                    continue
                }
                switch stage {
                case 0:
                    let segment = segments[depth]
                    switch node.literals {
                    case .none: break
                    case .inline:
                        let text = trie.cells.load(fromByteOffset: (Int(frames[frame]) &+ 1) &* 16, as: Prefix.self)
                        if Int(node.onlyLength) == segment.count, text == Prefix(segment) {
                            push(Int(frames[frame]) + 2, depth + 1, captured)
                        }
                    case .table:
                        if let child = trie.literal(Int(frames[frame]), segment) { push(child, depth + 1, captured) }
                    }
                case 1:
                    if node.parameter >= 0 {
                        captures[captured] = Int32(depth)
                        push(Int(node.parameter), depth + 1, captured + 1)
                    }
                default:
                    if stage - 2 < node.catchAllCount {
                        captures[captured] = Int32(segments.count + depth)
                        let index = Int(node.routeStart) + Int(node.terminalCount) + stage - 2
                        return (Int(trie.routeIndices[index]), UnsafeBufferPointer(rebasing: captures[...captured]))
                    }
                    top -= 1
                }
            }
            return nil
        }

        private mutating func push(_ node: Int, _ depth: Int, _ captured: Int) {
            top += 1
            let frame = top * 4
            frames[frame] = Int32(node)
            frames[frame + 1] = Int32(depth)
            frames[frame + 2] = Int32(captured)
            frames[frame + 3] = 0
        }
    }

    /// The literal child of `parent` named `segment`.
    @inline(__always)
    private func literal(_ parent: Int, _ segment: UnsafeBufferPointer<UInt8>) -> Int? {
        let prefix = Prefix(segment)
        var slot = Int(truncatingIfNeeded: Self.hash(parent: parent, segment)) & mask
        while true {
            let edge = edges[slot]
            if edge.child < 0 { return nil }
            if Int(edge.parent) == parent, Int(edge.length) == segment.count, edge.prefix == prefix,
                restEqual(Int(edge.textStart), segment)
            {
                return Int(edge.child)
            }
            slot = (slot + 1) & mask
        }
    }

    /// Whether the segment's bytes past the first 16 are `text[start...]`'s.
    @inline(__always)
    private func restEqual(_ start: Int, _ segment: UnsafeBufferPointer<UInt8>) -> Bool {
        var offset = 16
        while offset < segment.count {
            if text[start + offset - 16] != segment[offset] { return false }
            offset += 1
        }
        return true
    }
}

/// A URL's route segments as bytes: the custom scheme's host (when it is the first segment), then the path.
struct URLSegments {
    let bytes: UnsafeBufferPointer<UInt8>
    /// `count + 1` offsets into `bytes`: segment `i` is `bytes[bounds[i]..<bounds[i + 1]]`.
    let bounds: UnsafeBufferPointer<Int32>

    var count: Int { bounds.count - 1 }

    subscript(index: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[Int(bounds[index])..<Int(bounds[index + 1])])
    }
}
