/// Prints a route's URL from the values its `print` closure gave. It holds what printing needs of the table and
/// of each route, and nothing of `Destination`: its code is not generic, so a print looks up no generic metadata,
/// and it writes the URL as bytes into one buffer, since appending `String`s costs more than all the rest
/// (measured with callgrind: about 3,300 of the 10,000 instructions of a print went to `String.append`).
@usableFromInline
struct URLPrinter: Sendable {
    /// What printing needs of one route.
    @usableFromInline
    struct Shape: Sendable {
        let name: String
        let parameters: [ParameterSpec]
        @usableFromInline let sources: RouteSources
        /// The path as the printer walks it, in one buffer (one cache line or two, where an array per segment
        /// would cost a cache miss each at 10,000 routes): per segment an opcode, then for a literal its length
        /// (two bytes) and its bytes, percent-encoded once, here; for a parameter its index in `parameters`.
        let path: [UInt8]
        /// The first segment is a literal that survives lower-casing: a custom-scheme URL may put it in the host
        /// position, which is case-insensitive.
        let printsHostPosition: Bool

        static let literal: UInt8 = 0
        static let parameter: UInt8 = 1
        static let catchAll: UInt8 = 2

        init(name: String, pattern: RoutePattern, parameters: [ParameterSpec], sources: RouteSources) {
            self.name = name
            self.parameters = parameters
            self.sources = sources
            func index(_ name: String) -> UInt8 {
                UInt8(parameters.firstIndex { $0.name == name && $0.location == .path } ?? 0)
            }
            var path: [UInt8] = []
            for segment in pattern.segments {
                switch segment {
                case .literal(let text):
                    let encoded = Array(PercentEncoding.encode(text).utf8)
                    path += [Self.literal, UInt8(encoded.count >> 8), UInt8(encoded.count & 0xFF)] + encoded
                case .parameter(let name): path += [Self.parameter, index(name)]
                case .catchAll(let name): path += [Self.catchAll, index(name)]
                }
            }
            self.path = path
            if case .literal(let first) = pattern.segments.first {
                printsHostPosition = first == first.lowercased()
            } else {
                printsHostPosition = false
            }
        }
    }

    /// Where a printed URL's items go, in order.
    static let itemSections: [(ParameterSpec.Location, UInt8)] = [
        (.query, UInt8(ascii: "?")), (.fragment, UInt8(ascii: "#")),
    ]

    let schemes: [String]
    let hosts: [String]
    let maxURLLength: Int
    @usableFromInline let shapes: [Shape]

    /// The URL of route `index` with `values`, in `form`. Every value is checked against its parameter's
    /// constraints and percent-encoded (everything outside RFC 3986's unreserved set).
    @usableFromInline
    func url(route index: Int, _ values: RouteValues, form: LinkForm) throws(PrintError) -> String {
        let shape = shapes[index]
        func checked(_ spec: ParameterSpec) throws(PrintError) -> RouteValues.Texts {
            let given = values.texts(of: spec.name)
            if given.count == 0 {
                if spec.presence == .required {
                    throw PrintError(reason: "route '\(shape.name)': parameter '\(spec.name)' is missing")
                }
                return given
            }
            if given.count > 1, spec.presence != .list {
                throw PrintError(
                    reason: "route '\(shape.name)': parameter '\(spec.name)' takes one value, got \(given.count)"
                )
            }
            for position in 0..<given.count {
                if let violation = spec.violation(given[position]) {
                    throw PrintError(reason: "route '\(shape.name)': parameter '\(spec.name)' \(violation)")
                }
            }
            return given
        }
        var url: [UInt8] = []
        url.reserveCapacity(128)
        switch form {
        case .customScheme(let scheme):
            guard let scheme = (scheme?.lowercased() ?? schemes.first), schemes.contains(scheme) else {
                throw PrintError(reason: "the table has no custom scheme \(scheme.map { "'\($0)'" } ?? "")")
            }
            url += scheme.utf8
            url += (shape.path.isEmpty || shape.printsHostPosition ? "://" : ":///").utf8
        case .universalLink(let host):
            guard let host = (host?.lowercased() ?? hosts.first), hosts.contains(host) else {
                throw PrintError(reason: "the table has no universal-link host \(host.map { "'\($0)'" } ?? "")")
            }
            url += "https://".utf8
            url += host.utf8
            url.append(UInt8(ascii: "/"))
        }
        var at = 0
        while at < shape.path.count {
            if at > 0 { url.append(UInt8(ascii: "/")) }
            let opcode = shape.path[at]
            if opcode == Shape.literal {
                let count = Int(shape.path[at + 1]) << 8 | Int(shape.path[at + 2])
                url += shape.path[(at + 3)..<(at + 3 + count)]
                at += 3 + count
                continue
            }
            let spec = shape.parameters[Int(shape.path[at + 1])]
            at += 2
            let value = try checked(spec)[0]
            if opcode == Shape.parameter {
                guard !value.isEmpty else {
                    throw PrintError(reason: "route '\(shape.name)': path parameter '\(spec.name)' is empty")
                }
                PercentEncoding.append(value, to: &url)
            } else {
                let pieces = value.split(separator: "/", omittingEmptySubsequences: false)
                guard !pieces.contains(where: \.isEmpty) else {
                    throw PrintError(reason: "route '\(shape.name)': catch-all '\(spec.name)' has an empty segment")
                }
                for (position, piece) in pieces.enumerated() {
                    if position > 0 { url.append(UInt8(ascii: "/")) }
                    PercentEncoding.append(piece, to: &url)
                }
            }
        }
        for (location, separator) in Self.itemSections {
            var first = true
            for spec in shape.parameters where spec.location == location {
                let given = try checked(spec)
                for position in 0..<given.count {
                    url.append(first ? separator : UInt8(ascii: "&"))
                    first = false
                    PercentEncoding.append(spec.name, to: &url)
                    url.append(UInt8(ascii: "="))
                    PercentEncoding.append(given[position], to: &url)
                }
            }
        }
        guard url.count <= maxURLLength else {
            throw PrintError(
                reason:
                    "route '\(shape.name)': the URL would be \(url.count) bytes, over the limit of \(maxURLLength)"
            )
        }
        return String(decoding: url, as: UTF8.self)
    }
}
