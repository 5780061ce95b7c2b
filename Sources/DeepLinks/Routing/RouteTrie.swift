/// The compiled form of a route table's patterns: one node per path prefix, with literal children in a
/// dictionary, at most one parameter child and the routes ending in a catch-all. Matching costs one
/// dictionary lookup per segment, whatever the number of routes; it tries a literal, then a parameter,
/// then a catch-all, and backtracks when a branch leads nowhere.
struct RouteTrie: Sendable {
    struct Node: Sendable {
        var literals: [String: Int] = [:]
        var parameter: Int = -1
        var catchAll: [Int] = []
        var terminal: [Int] = []
    }

    private(set) var nodes: [Node] = [Node()]

    mutating func insert(_ pattern: RoutePattern, route: Int) {
        var current = 0
        for segment in pattern.segments {
            switch segment {
            case .literal(let text):
                if let next = nodes[current].literals[text] {
                    current = next
                } else {
                    nodes.append(Node())
                    nodes[current].literals[text] = nodes.count - 1
                    current = nodes.count - 1
                }
            case .parameter:
                if nodes[current].parameter < 0 {
                    nodes.append(Node())
                    nodes[current].parameter = nodes.count - 1
                }
                current = nodes[current].parameter
            case .catchAll:
                nodes[current].catchAll.append(route)
                return
            }
        }
        nodes[current].terminal.append(route)
    }

    /// Calls `visit` with each candidate route and its captured path values (catch-alls joined with `/`),
    /// most specific first, until `visit` returns true.
    func match(_ segments: [String], visit: (Int, [String]) -> Bool) {
        var captures: [String] = []
        captures.reserveCapacity(4)
        // Walk the nodes in place: copying a node would retain its dictionary and arrays at every level.
        nodes.withUnsafeBufferPointer { nodes in
            _ = Self.walk(nodes, 0, segments, 0, &captures, visit)
        }
    }

    private static func walk(
        _ nodes: UnsafeBufferPointer<Node>, _ node: Int, _ segments: [String], _ depth: Int,
        _ captures: inout [String], _ visit: (Int, [String]) -> Bool
    ) -> Bool {
        if depth == segments.count {
            for route in nodes[node].terminal where visit(route, captures) { return true }
        } else {
            if let next = nodes[node].literals[segments[depth]], walk(nodes, next, segments, depth + 1, &captures, visit) {
                return true
            }
            let parameter = nodes[node].parameter
            if parameter >= 0 {
                captures.append(segments[depth])
                if walk(nodes, parameter, segments, depth + 1, &captures, visit) { return true }
                captures.removeLast()
            }
        }
        if !nodes[node].catchAll.isEmpty, depth < segments.count {
            captures.append(segments[depth...].joined(separator: "/"))
            for route in nodes[node].catchAll where visit(route, captures) { return true }
            captures.removeLast()
        }
        return false
    }
}
