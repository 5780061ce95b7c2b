// Matching internals.
//
// One match path: `RouteTable.match(_: String)` hands the string to `RouteMatcher`, which scans its bytes once
// (`URLParser`, in `URL/`, applies the URL policy without building a `LinkURL`), walks `RouteTrie` for candidate
// routes, most specific first (a literal, then a parameter, then a catch-all, backtracking), and extracts each
// candidate's parameters until the table's generic `parse` accepts one. `match(_: LinkURL)` matches the URL's
// text, so there is nothing to keep in step. The table is compiled once into flat raw buffers so that a match
// touches a handful of cache lines and retains nothing; each type's comment says how its memory is laid out.
//
// Change a rule here and run `MatchPathsTests` (the string and the parsed URL agree on every mutated input),
// `RouteTableTests`, and the routing benchmark (`Benchmarks/`, the goal: at most 1 µs per URL at 1,000 routes and
// at least 4× routing-kit in the same run).

/// The non-generic heart of a ``RouteTable``: source checks, the trie walk and parameter extraction.
/// Kept free of the table's `Destination` type so it runs as specialized code from any module; only the
/// route's own `parse` closure is called through the generic table. `@unchecked Sendable`: its raw buffers
/// are written only while it is built, then only read.
@usableFromInline
final class RouteMatcher: @unchecked Sendable {
    /// A route as matching reports it (a ``RouteMatch``'s name, pattern and sensitive names, the reasons of
    /// rejections), with the specs extraction falls back on for defaults and constraints.
    final class Entry: Sendable {
        let name: String
        let pattern: String
        let parameters: [ParameterSpec]
        let sensitiveNames: Set<String>
        let requiresConfirmation: Bool
        let sourceApplications: Set<String>?

        init<Destination>(_ route: Route<Destination>) {
            name = route.name
            pattern = route.pattern.description
            parameters = route.parameters
            sensitiveNames = route.sensitiveNames
            requiresConfirmation = route.requiresConfirmation
            sourceApplications = route.sourceApplications
        }
    }

    let schemes: [String]
    let hosts: [String]
    /// `schemes` and `hosts` as bytes, to compare with a URL's.
    private let schemeBytes: [[UInt8]]
    private let hostBytes: [[UInt8]]
    let entries: [Entry]
    let trie: RouteTrie
    /// What extraction reads, one slot per parameter, so that a match touches few cache lines: route i's
    /// sources and first slot in `routeSlots[i]` (16 bytes: most routes have one or two parameters), its other
    /// slots in `slots`. Plain values in raw buffers (immutable once built, freed with the matcher), so reading
    /// them retains nothing.
    private let routeSlots: UnsafeMutableBufferPointer<RouteSlots>
    private let slots: UnsafeMutableBufferPointer<Slot>
    /// The parameter names of every route, each once (a slot holds an index here): a table's routes share a
    /// few names, so this stays in the cache.
    private let names: [String]

    private struct RouteSlots {
        /// Parameter 0, when `count > 0`.
        var first: Slot
        /// Parameters 1 and on: `slots[rest..<rest + count - 1]`.
        var rest: Int32
        var count: UInt16
        var sources: UInt8
    }

    /// 8 bytes.
    private struct Slot {
        /// The index of the parameter's name in `names`.
        var name: UInt16
        /// For a path parameter, the index of its captured value; -1 otherwise.
        var capture: Int16
        var location: ParameterSpec.Location
        /// The value check extraction makes itself (the spec's kind; a string or custom kind needs none).
        var kind: Kind
        /// Whether the spec sets a length or characters, checked by ``ParameterSpec/violation(_:)``.
        var constrained: Bool

        enum Kind: UInt8 {
            case text, int, bool, uuid

            init(_ kind: ParameterKind) {
                switch kind {
                case .string, .custom: self = .text
                case .int: self = .int
                case .bool: self = .bool
                case .uuid: self = .uuid
                }
            }

            func accepts(_ value: String) -> Bool {
                switch self {
                case .text: true
                case .int: ParameterKind.int.accepts(value)
                case .bool: ParameterKind.bool.accepts(value)
                case .uuid: ParameterKind.uuid.accepts(value)
                }
            }
        }
    }

    /// Built once from a table's routes (generic only here: matching never sees their `Destination`).
    init<Destination>(schemes: [String], hosts: [String], routes: [Route<Destination>]) {
        self.schemes = schemes
        self.hosts = hosts
        schemeBytes = schemes.map { Array($0.utf8) }
        hostBytes = hosts.map { Array($0.utf8) }
        entries = routes.map(Entry.init)
        trie = RouteTrie(routes.map(\.pattern))
        var routeSlots: [RouteSlots] = []
        var slots: [Slot] = []
        var names: [String] = []
        var nameIndices: [String: Int] = [:]
        for route in routes {
            precondition(
                route.parameters.count <= UInt16.max && route.capturePositions.allSatisfy { $0 <= Int16.max },
                "route '\(route.name)' has too many parameters"
            )
            let all = zip(route.parameters, route.capturePositions).map { spec, capture in
                let name = nameIndices[spec.name] ?? names.count
                if name == names.count {
                    names.append(spec.name)
                    nameIndices[spec.name] = name
                }
                precondition(name <= UInt16.max, "a table's routes have at most 65,535 parameter names")
                return Slot(
                    name: UInt16(name),
                    capture: Int16(capture),
                    location: spec.location,
                    kind: Slot.Kind(spec.kind),
                    constrained: spec.minLength != nil || spec.maxLength != nil || spec.characters != .any
                )
            }
            let first = all.first ?? Slot(name: 0, capture: -1, location: .path, kind: .text, constrained: false)
            routeSlots.append(
                RouteSlots(
                    first: first,
                    rest: Int32(slots.count),
                    count: UInt16(all.count),
                    sources: UInt8(route.sources.rawValue)
                )
            )
            slots += all.dropFirst()
        }
        self.names = names
        self.routeSlots = .allocate(capacity: routeSlots.count)
        _ = self.routeSlots.initialize(from: routeSlots)
        self.slots = .allocate(capacity: slots.count)
        _ = self.slots.initialize(from: slots)
    }

    deinit {
        routeSlots.deallocate()
        slots.deallocate()
    }

    /// Offered each candidate: the route's index, the URL's source (see ``source(_:)``) and the parameters.
    @usableFromInline typealias Accept = (Int, Int32, RouteParameters) -> LinkRejection?

    /// Why route `index`'s `parse` refused its parameters: a ``ParameterError`` says which and why; another
    /// error is named by its type alone (its description may hold a value).
    @usableFromInline
    func refusal(_ index: Int, _ error: any Error) -> LinkRejection {
        if let error = error as? ParameterError {
            return LinkRejection(.invalidParameter, "route '\(entries[index].name)': \(error)")
        }
        return LinkRejection(
            .invalidParameter,
            "route '\(entries[index].name)' refused its parameters (\(type(of: error)))"
        )
    }

    /// The source a match reports: `id` is twice the index of the URL's scheme in `schemes`, or twice the
    /// index of its host in `hosts` plus one. Kept as a number in a match, so a match stays small.
    @usableFromInline
    func source(_ id: Int32) -> LinkSource {
        id & 1 == 1 ? .universalLink(host: hosts[Int(id >> 1)]) : .customScheme(schemes[Int(id >> 1)])
    }

    /// The URL policy and the match in one pass over the bytes of `string`: no string is built but the
    /// parameters of the candidate routes. Walks the candidates, most specific first, and offers each one whose
    /// parameters are valid to `accept`, which returns nil to take it or a rejection to go on. Returns nil once a
    /// route is taken, otherwise the most useful rejection.
    @usableFromInline
    func match(_ string: String, limits: URLLimits, accept: Accept) -> LinkRejection? {
        var string = string
        return string.withUTF8 { bytes in
            let parser = URLParser(bytes: bytes, limits: limits)
            let layout: URLParser.Layout
            do throws(URLDiagnostic) {
                layout = try parser.scan()
            } catch {
                return LinkRejection(error)
            }
            let source: Int32
            do throws(LinkRejection) {
                source = try self.source(
                    isWeb: layout.isWeb,
                    isHTTPS: layout.schemeEnd == 5,
                    scheme: { parser.string(0, layout.schemeEnd, lowercased: true) },
                    schemeIs: { parser.asciiEqualsLowercased(0, layout.schemeEnd, schemeBytes[$0]) },
                    hostIs: {
                        layout.hasHost && parser.asciiEqualsLowercased(layout.hostStart, layout.hostEnd, hostBytes[$0])
                    }
                )
            } catch {
                return error
            }
            // A custom scheme's host is the first route segment, decoded and lower-cased like its string.
            var host: String?
            var hostIsASCII = false
            if !layout.isWeb, layout.hostEnd > layout.hostStart {
                hostIsASCII = bytes[layout.hostStart..<layout.hostEnd].allSatisfy {
                    $0 < 0x80 && $0 != UInt8(ascii: "%")
                }
                if !hostIsASCII { host = (try? parser.decode(layout.hostStart, layout.hostEnd, .host))?.lowercased() }
            }
            let items =
                layout.queryStart < layout.end || layout.hash >= 0 ? parser.items(layout) : (query: [], fragment: [])
            return withScratch(segments: parser.slashes(layout) + 2, bytes: bytes.count + (host?.utf8.count ?? 0)) {
                buffer,
                bounds,
                frames,
                captures in
                var count = 0
                var offset = 0
                if hostIsASCII {
                    for index in layout.hostStart..<layout.hostEnd {
                        buffer[offset] = asciiLowercased(bytes[index])
                        offset += 1
                    }
                    count += 1
                    bounds[count] = Int32(offset)
                } else if let host {
                    offset = UnsafeMutableBufferPointer(rebasing: buffer[offset...]).initialize(from: host.utf8).1
                    count += 1
                    bounds[count] = Int32(offset)
                }
                for (start, stop) in parser.segments(layout) {
                    if bytes[start..<stop].contains(UInt8(ascii: "%")) {
                        // Scanned already: the escape decodes.
                        let decoded = (try? parser.decode(start, stop, .path)) ?? ""
                        offset +=
                            UnsafeMutableBufferPointer(rebasing: buffer[offset...]).initialize(from: decoded.utf8).1
                    } else {
                        _ = UnsafeMutableBufferPointer(rebasing: buffer[offset..<(offset + stop - start)])
                            .update(fromContentsOf: UnsafeBufferPointer(rebasing: bytes[start..<stop]))
                        offset += stop - start
                    }
                    count += 1
                    bounds[count] = Int32(offset)
                }
                let segments = URLSegments(
                    bytes: UnsafeBufferPointer(buffer),
                    bounds: UnsafeBufferPointer(rebasing: bounds[...count])
                )
                return match(
                    segments,
                    frames: frames,
                    captures: captures,
                    source: source,
                    queryItems: items.query,
                    fragmentItems: items.fragment,
                    accept: accept
                )
            }
        }
    }

    /// Where a URL comes from (as ``source(_:)`` reads it), if the table accepts it: `schemeIs(i)` and
    /// `hostIs(i)` compare the URL's (lower-cased) scheme and host with the table's i-th.
    private func source(
        isWeb: Bool,
        isHTTPS: Bool,
        scheme: () -> String,
        schemeIs: (Int) -> Bool,
        hostIs: (Int) -> Bool
    ) throws(LinkRejection) -> Int32 {
        if isWeb {
            guard isHTTPS else {
                throw LinkRejection(.schemeNotAccepted, "universal links use https, not \(scheme())")
            }
            guard let host = hosts.indices.first(where: hostIs) else {
                throw LinkRejection(
                    .hostNotAccepted,
                    "the host is not one of this app's universal-link hosts (\(hosts.joined(separator: ", ")))"
                )
            }
            return Int32(host) * 2 + 1
        }
        guard let match = schemes.indices.first(where: schemeIs) else {
            throw LinkRejection(
                .schemeNotAccepted,
                "the scheme '\(scheme())' is not one of this app's (\(schemes.joined(separator: ", ")))"
            )
        }
        return Int32(match) * 2
    }

    /// Temporary memory for a match over at most `segments` segments of at most `bytes` bytes in all: the
    /// segments' bytes, their bounds (the first set to 0), the trie's frames and the captures.
    private func withScratch<Result>(
        segments: Int,
        bytes: Int,
        _ body: (
            UnsafeMutableBufferPointer<UInt8>, UnsafeMutableBufferPointer<Int32>, UnsafeMutableBufferPointer<Int32>,
            UnsafeMutableBufferPointer<Int32>
        ) -> Result
    ) -> Result {
        // One allocation: the Int32 values first (aligned), then the bytes.
        let values = 6 * (segments + 1)
        return withUnsafeTemporaryAllocation(byteCount: values * 4 + max(bytes, 1), alignment: 4) { raw in
            let scratch = UnsafeMutableRawBufferPointer(rebasing: raw[..<(values * 4)]).bindMemory(to: Int32.self)
            let buffer = UnsafeMutableRawBufferPointer(rebasing: raw[(values * 4)...]).bindMemory(to: UInt8.self)
            let bounds = UnsafeMutableBufferPointer(rebasing: scratch[0...segments])
            let frames = UnsafeMutableBufferPointer(rebasing: scratch[(segments + 1)..<(5 * (segments + 1))])
            let captures = UnsafeMutableBufferPointer(rebasing: scratch[(5 * (segments + 1))...])
            bounds[0] = 0
            return body(buffer, bounds, frames, captures)
        }
    }

    /// Offers each candidate route for `segments`, most specific first, to `accept`.
    private func match(
        _ segments: URLSegments,
        frames: UnsafeMutableBufferPointer<Int32>,
        captures: UnsafeMutableBufferPointer<Int32>,
        source: Int32,
        queryItems: [QueryItem],
        fragmentItems: [QueryItem],
        accept: Accept
    ) -> LinkRejection? {
        var candidates = trie.candidates(segments, frames: frames, captures: captures)
        var firstRejection: LinkRejection?
        while let (index, captures) = candidates.next() {
            let rejection: LinkRejection?
            do throws(LinkRejection) {
                let parameters = try extract(
                    index,
                    captures: captures,
                    segments: segments,
                    queryItems: queryItems,
                    fragmentItems: fragmentItems,
                    source: source & 1 == 1 ? .universalLink : .customScheme
                )
                rejection = accept(index, source, parameters)
            } catch {
                rejection = error
            }
            guard let rejection else { return nil }
            // A route that accepts this source explains better than one that does not.
            if firstRejection == nil
                || (firstRejection?.code == .sourceNotAccepted && rejection.code != .sourceNotAccepted)
            {
                firstRejection = rejection
            }
        }
        // The path is not repeated: it may hold a sensitive value.
        return firstRejection ?? LinkRejection(.noRoute, "no route has this path")
    }

    /// The value of a capture: a segment, or the segments from one to the end joined by `/` (a catch-all).
    private static func value(_ capture: Int32, _ segments: URLSegments) -> String {
        let capture = Int(capture)
        if capture < segments.count { return String(decoding: segments[capture], as: UTF8.self) }
        return (capture - segments.count..<segments.count)
            .map { String(decoding: segments[$0], as: UTF8.self) }
            .joined(separator: "/")
    }

    /// Takes the parameters of route `index` from the URL and checks them. Reads `routeSlots` and `slots`; a
    /// route's ``ParameterSpec``s only for a default value, a constraint or a refusal.
    private func extract(
        _ index: Int,
        captures: UnsafeBufferPointer<Int32>,
        segments: URLSegments,
        queryItems: [QueryItem],
        fragmentItems: [QueryItem],
        source: RouteSources
    ) throws(LinkRejection) -> RouteParameters {
        let route = routeSlots[index]
        guard RouteSources(rawValue: Int(route.sources)).contains(source) else {
            throw LinkRejection(
                .sourceNotAccepted,
                "route '\(entries[index].name)' does not accept \(source == .customScheme ? "custom-scheme links" : "universal links")"
            )
        }
        var values: [RouteParameters.Entry] = []
        values.reserveCapacity(Int(route.count))
        for position in 0..<Int(route.count) {
            let slot = position == 0 ? route.first : slots[Int(route.rest) + position - 1]
            let name = names[Int(slot.name)]
            let start = values.count
            switch slot.location {
            case .path:
                guard slot.capture >= 0, Int(slot.capture) < captures.count else { continue }
                values.append(.init(name: name, value: Self.value(captures[Int(slot.capture)], segments)))
            case .query:
                for item in queryItems where item.name == name {
                    values.append(.init(name: name, value: item.value ?? ""))
                }
            case .fragment:
                for item in fragmentItems where item.name == name {
                    values.append(.init(name: name, value: item.value ?? ""))
                }
            }
            let found = values.count - start
            if found == 1, !slot.constrained, slot.kind.accepts(values[start].value) { continue }
            // Missing, repeated, constrained or of the wrong kind: the spec says what to do.
            let entry = entries[index]
            let spec = entry.parameters[position]
            if found == 0 {
                switch spec.presence {
                case .required:
                    throw LinkRejection(
                        .missingParameter,
                        "route '\(entry.name)' needs the \(spec.location) parameter '\(name)'"
                    )
                case .optional, .list: continue
                case .defaultValue(let value): values.append(.init(name: name, value: value))
                }
            } else if found > 1, spec.presence != .list {
                throw LinkRejection(
                    .invalidParameter,
                    "route '\(entry.name)': parameter '\(name)' appears \(found) times but takes one value"
                )
            }
            for taken in start..<values.count {
                if let violation = spec.violation(values[taken].value) {
                    throw LinkRejection(.invalidParameter, "route '\(entry.name)': parameter '\(name)' \(violation)")
                }
            }
        }
        return RouteParameters(entries: values)
    }
}
