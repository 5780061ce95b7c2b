/// The byte-level parser behind ``LinkURL/init(parsing:limits:)`` and ``RouteTable/match(_:)``. ``scan()``
/// checks every component in one pass and returns where they are, without building a string; ``parse()``
/// then decodes them into a ``LinkURL``. Positions in diagnostics are byte offsets into the input.
struct URLParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let limits: URLLimits

    /// Where the components of a checked URL lie in its bytes.
    struct Layout {
        /// `bytes[0..<schemeEnd]`; `schemeHasUpperCase` when it must be lower-cased.
        var schemeEnd: Int
        var schemeHasUpperCase: Bool
        var isWeb: Bool
        /// `bytes[hostStart..<hostEnd]` when the URL has an authority (`//`); a web host's trailing dot is left out.
        var hostStart = -1
        var hostEnd = -1
        var hostHasUpperCase = false
        var port: Int?
        /// The path is `bytes[pathStart..<queryStart]`; the query, when there is one, runs to `end`.
        var pathStart = 0
        var queryStart = 0
        var end = 0
        /// The `#`, or -1.
        var hash = -1

        var hasHost: Bool { hostStart >= 0 }
    }

    func parse() throws(URLDiagnostic) -> LinkURL {
        let layout = try scan()
        let scheme = string(0, layout.schemeEnd, lowercased: layout.schemeHasUpperCase)
        var host: String?
        if layout.hasHost {
            host =
                layout.isWeb
                ? string(layout.hostStart, layout.hostEnd, lowercased: layout.hostHasUpperCase)
                : try decode(layout.hostStart, layout.hostEnd, .host).lowercased()
        }
        var segments: [String] = []
        segments.reserveCapacity(slashes(layout) + 1)
        for (start, stop) in self.segments(layout) { segments.append(try decode(start, stop, .path)) }
        var items: [QueryItem] = []
        if layout.queryStart < layout.end {
            try queryItems(layout.queryStart + 1, layout.end, .query, existing: 0) { items.append($0) }
        }
        var fragment: String?
        var fragmentItems: [QueryItem] = []
        if layout.hash >= 0 {
            fragment = try decode(layout.hash + 1, bytes.count, .fragment)
            if hasFragmentItems(layout) {
                try queryItems(layout.hash + 1, bytes.count, .fragment, existing: items.count) {
                    fragmentItems.append($0)
                }
            }
        }
        return LinkURL(
            scheme: scheme,
            host: host,
            port: layout.port,
            pathSegments: segments,
            queryItems: items,
            fragment: fragment,
            fragmentItems: fragmentItems
        )
    }

    /// The decoded query and fragment items of a scanned URL.
    func items(_ layout: Layout) -> (query: [QueryItem], fragment: [QueryItem]) {
        var query: [QueryItem] = []
        var fragment: [QueryItem] = []
        // Scanned already: nothing here throws.
        if layout.queryStart < layout.end {
            try? queryItems(layout.queryStart + 1, layout.end, .query, existing: 0) { query.append($0) }
        }
        if hasFragmentItems(layout) {
            try? queryItems(layout.hash + 1, bytes.count, .fragment, existing: query.count) { fragment.append($0) }
        }
        return (query, fragment)
    }

    /// Checks the whole URL against the policy without decoding it into strings.
    func scan() throws(URLDiagnostic) -> Layout {
        let count = bytes.count
        guard count > 0 else { throw URLDiagnostic(.empty, .url, at: 0, "the URL is empty") }
        guard count <= limits.maxURLLength else {
            throw URLDiagnostic(
                .tooLong,
                .url,
                at: limits.maxURLLength,
                "the URL is \(count) bytes, over the limit of \(limits.maxURLLength)"
            )
        }
        // Raw characters: never a control character, NUL, space or one RFC 3986 never allows. One pass, most
        // bytes one table look-up; it also notes the '#', the first '?' before it, and whether any '%' is there.
        var hash = -1
        var question = -1
        var hasPercent = false
        for index in 0..<count {
            let byte = bytes[index]
            guard Self.isNotable(byte) else { continue }
            if byte < 0x20 || byte == 0x7F {
                throw URLDiagnostic(
                    .controlCharacter,
                    component(at: index),
                    at: index,
                    "control character \(hex(byte))"
                )
            }
            switch byte {
            case UInt8(ascii: "%"): hasPercent = true
            case UInt8(ascii: "?"): if question < 0, hash < 0 { question = index }
            case UInt8(ascii: "#"):
                if hash >= 0 {
                    throw URLDiagnostic(.invalidCharacter, .fragment, at: index, "a second '#' must be percent-encoded")
                }
                hash = index
            default:
                throw URLDiagnostic(
                    .invalidCharacter,
                    component(at: index),
                    at: index,
                    "'\(Character(Unicode.Scalar(byte)))' must be percent-encoded"
                )
            }
        }

        // scheme ":"
        var colon = -1
        for index in 0..<count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ":") { colon = index; break }
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
        }
        guard colon > 0 else {
            throw URLDiagnostic(.missingScheme, .scheme, at: 0, "the URL has no scheme (as in yourapp:// or https://)")
        }
        var hasUpperCase = false
        for index in 0..<colon {
            let byte = bytes[index]
            let isLetter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            let isOther =
                (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard isLetter || (index > 0 && isOther) else {
                throw URLDiagnostic(
                    .invalidScheme,
                    .scheme,
                    at: index,
                    "a scheme is a letter followed by letters, digits, '+', '-' or '.'"
                )
            }
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { hasUpperCase = true }
        }
        let isWeb =
            (colon == 4 || (colon == 5 && bytes[4] | 0x20 == UInt8(ascii: "s")))
            && bytes[0] | 0x20 == UInt8(ascii: "h") && bytes[1] | 0x20 == UInt8(ascii: "t")
            && bytes[2] | 0x20 == UInt8(ascii: "t") && bytes[3] | 0x20 == UInt8(ascii: "p")
        var layout = Layout(schemeEnd: colon, schemeHasUpperCase: hasUpperCase, isWeb: isWeb)

        let end = hash >= 0 ? hash : count
        var cursor = colon + 1
        if cursor + 1 < end, bytes[cursor] == UInt8(ascii: "/"), bytes[cursor + 1] == UInt8(ascii: "/") {
            let start = cursor + 2
            var stop = start
            while stop < end, bytes[stop] != UInt8(ascii: "/"), bytes[stop] != UInt8(ascii: "?") { stop += 1 }
            try authority(start, stop, into: &layout)
            cursor = stop
        } else if isWeb {
            let scheme = string(0, colon, lowercased: hasUpperCase)
            throw URLDiagnostic(.invalidHost, .host, at: cursor, "an \(scheme) URL needs '//' and a host")
        }

        // The first '?' (never before the path: the scheme and the authority end at one).
        let queryStart = question >= 0 ? question : end
        layout.pathStart = cursor
        layout.queryStart = queryStart
        layout.end = end
        layout.hash = hash
        if hasPercent || queryStart - cursor > limits.maxValueLength {
            for (start, stop) in segments(layout) { try check(start, stop, .path) }
        }
        var itemCount = 0
        if queryStart < end {
            try queryItems(queryStart + 1, end, .query, existing: 0, decoding: false) { _ in itemCount += 1 }
        }
        if hash >= 0 {
            try check(hash + 1, count, .fragment)
            if hasFragmentItems(layout) {
                try queryItems(hash + 1, count, .fragment, existing: itemCount, decoding: false) { _ in }
            }
        }
        return layout
    }

    /// Bytes the first pass of ``scan()`` looks at closely: controls, DEL, space, the characters RFC 3986 never
    /// allows raw (`"<>\\^`{|}`), and `#`, `%`, `?`. One bit per byte from 0x00 to 0x7F.
    /// (0x00-0x1F, then 0x20 0x22 0x23 0x25 0x3C 0x3E 0x3F; 0x5C 0x5E 0x60 0x7B 0x7C 0x7D 0x7F.)
    private static var notableLow: UInt64 { 0xD000_002D_FFFF_FFFF }
    private static var notableHigh: UInt64 { 0xB800_0001_5000_0000 }

    @inline(__always)
    private static func isNotable(_ byte: UInt8) -> Bool {
        if byte < 0x40 { return notableLow &>> UInt64(byte) & 1 != 0 }
        if byte < 0x80 { return notableHigh &>> UInt64(byte & 0x3F) & 1 != 0 }
        return false
    }

    /// The number of '/' in the path: its segments are at most one more.
    func slashes(_ layout: Layout) -> Int {
        var count = 0
        for index in layout.pathStart..<layout.queryStart where bytes[index] == UInt8(ascii: "/") { count += 1 }
        return count
    }

    /// The bounds of each non-empty path segment, in order.
    func segments(_ layout: Layout) -> Segments {
        Segments(bytes: bytes, position: layout.pathStart, end: layout.queryStart)
    }

    struct Segments: Sequence, IteratorProtocol {
        let bytes: UnsafeBufferPointer<UInt8>
        var position: Int
        let end: Int

        mutating func next() -> (start: Int, stop: Int)? {
            while position < end {
                let start = position
                var stop = start
                while stop < end, bytes[stop] != UInt8(ascii: "/") { stop += 1 }
                position = stop + 1
                if stop > start { return (start, stop) }
            }
            return nil
        }
    }

    private func hasFragmentItems(_ layout: Layout) -> Bool {
        layout.hash >= 0 && bytes[(layout.hash + 1)...].contains(UInt8(ascii: "="))
    }

    /// Whether `bytes[start..<stop]`, ASCII-lower-cased, is `text`.
    func asciiEqualsLowercased(_ start: Int, _ stop: Int, _ text: [UInt8]) -> Bool {
        guard stop - start == text.count else { return false }
        for offset in 0..<text.count where asciiLowercased(bytes[start + offset]) != text[offset] { return false }
        return true
    }

    /// One pass over the authority: the userinfo, the host's end (its port's ':'), and, for a web host, its
    /// first byte a host may not hold and whether it has capitals. Reported in that order.
    private func authority(_ start: Int, _ stop: Int, into layout: inout Layout) throws(URLDiagnostic) {
        var hostEnd = stop
        var inBrackets = false
        let isLiteral = start < stop && bytes[start] == UInt8(ascii: "[")
        var firstInvalid = -1
        var hasUpperCase = false
        for index in start..<stop {
            let byte = bytes[index]
            let inHost = hostEnd == stop
            // Lower-case letters, digits, '-' and '.': the usual host bytes, nothing to note.
            if inHost,
                byte &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: ".")
            {
                continue
            }
            switch byte {
            case UInt8(ascii: "@"):
                throw URLDiagnostic(
                    .userinfoNotAllowed,
                    .userinfo,
                    at: start,
                    "user information before '@' is not allowed in a link"
                )
            case UInt8(ascii: "["): inBrackets = true
            case UInt8(ascii: "]"): inBrackets = false
            case UInt8(ascii: ":") where !inBrackets && inHost:
                hostEnd = index
                continue
            default: break
            }
            guard inHost else { continue }
            if byte &- UInt8(ascii: "A") < 26 {
                hasUpperCase = true
            } else if firstInvalid < 0,
                !(isLiteral && (byte == UInt8(ascii: ":") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")))
            {
                firstInvalid = index
            }
        }
        var port: Int?
        if hostEnd < stop {
            let digits = bytes[(hostEnd + 1)..<stop]
            if !digits.isEmpty {
                var value = 0
                for (offset, byte) in digits.enumerated() {
                    guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), value <= 65535 else {
                        throw URLDiagnostic(
                            .invalidPort,
                            .port,
                            at: hostEnd + 1 + offset,
                            "the port is not a number from 0 to 65535"
                        )
                    }
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                }
                guard value <= 65535 else {
                    throw URLDiagnostic(
                        .invalidPort,
                        .port,
                        at: hostEnd + 1,
                        "the port is not a number from 0 to 65535"
                    )
                }
                guard limits.allowsPort else {
                    throw URLDiagnostic(.portNotAllowed, .port, at: hostEnd + 1, "a port is not allowed in a link")
                }
                port = value
            }
        }
        layout.port = port
        layout.hostStart = start
        layout.hostEnd = hostEnd
        if !layout.isWeb {
            // A custom scheme's host is the first route segment: decoded like one, compared case-insensitively.
            try check(start, hostEnd, .host)
            return
        }
        guard hostEnd > start else {
            throw URLDiagnostic(.invalidHost, .host, at: start, "the host is empty")
        }
        if firstInvalid >= 0 {
            throw URLDiagnostic(.invalidHost, .host, at: firstInvalid, "a host holds only letters, digits, '-' and '.'")
        }
        let trailingDot = hostEnd - start > 1 && bytes[hostEnd - 1] == UInt8(ascii: ".")
        layout.hostEnd = trailingDot ? hostEnd - 1 : hostEnd
        layout.hostHasUpperCase = hasUpperCase
    }

    /// Splits `bytes[start..<stop]` into `name=value` items and checks each; `body` gets them decoded, or
    /// empty when `decoding` is false.
    private func queryItems(
        _ start: Int,
        _ stop: Int,
        _ component: URLDiagnostic.Component,
        existing: Int,
        decoding: Bool = true,
        _ body: (QueryItem) -> Void
    ) throws(URLDiagnostic) {
        var count = 0
        var pairStart = start
        var index = start
        while index <= stop {
            if index == stop || bytes[index] == UInt8(ascii: "&") {
                if index > pairStart {
                    guard existing + count < limits.maxQueryItems else {
                        throw URLDiagnostic(
                            .tooManyQueryItems,
                            component,
                            at: pairStart,
                            "more than \(limits.maxQueryItems) query items"
                        )
                    }
                    var equals = index
                    for probe in pairStart..<index where bytes[probe] == UInt8(ascii: "=") {
                        equals = probe
                        break
                    }
                    if decoding {
                        let name = try decode(pairStart, equals, component)
                        let value = equals < index ? try decode(equals + 1, index, component) : nil
                        body(QueryItem(name: name, value: value))
                    } else {
                        try check(pairStart, equals, component)
                        if equals < index { try check(equals + 1, index, component) }
                        body(QueryItem(name: "", value: nil))
                    }
                    count += 1
                }
                pairStart = index + 1
            }
            index += 1
        }
    }

    /// Checks what ``decode(_:_:_:)`` checks, building a string only when the bytes hold an escape.
    func check(_ start: Int, _ stop: Int, _ component: URLDiagnostic.Component) throws(URLDiagnostic) {
        var index = start
        while index < stop, bytes[index] != UInt8(ascii: "%") { index += 1 }
        if index == stop {
            guard stop - start <= limits.maxValueLength else {
                throw URLDiagnostic(
                    .valueTooLong,
                    component,
                    at: start,
                    "a value is \(stop - start) bytes, over the limit of \(limits.maxValueLength)"
                )
            }
        } else {
            _ = try decode(start, stop, component)
        }
    }

    /// Percent-decodes `bytes[start..<stop]` exactly once and checks the result.
    func decode(_ start: Int, _ stop: Int, _ component: URLDiagnostic.Component) throws(URLDiagnostic) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<stop])
        if !slice.contains(UInt8(ascii: "%")) {
            guard slice.count <= limits.maxValueLength else {
                throw URLDiagnostic(
                    .valueTooLong,
                    component,
                    at: start,
                    "a value is \(slice.count) bytes, over the limit of \(limits.maxValueLength)"
                )
            }
            return String(decoding: slice, as: UTF8.self)  // the input is a String: already valid UTF-8
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(slice.count)
        var index = 0
        while index < slice.count {
            let byte = slice[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < slice.count, let high = hexValue(slice[index + 1]),
                    let low = hexValue(slice[index + 2])
                else {
                    throw URLDiagnostic(
                        .invalidPercentEncoding,
                        component,
                        at: start + index,
                        "'%' is not followed by two hexadecimal digits"
                    )
                }
                let value = high << 4 | low
                if value < 0x20 || value == 0x7F {
                    throw URLDiagnostic(
                        .controlCharacter,
                        component,
                        at: start + index,
                        "encoded control character \(hex(value))"
                    )
                }
                decoded.append(value)
                index += 3
            } else {
                decoded.append(byte)
                index += 1
            }
        }
        guard decoded.count <= limits.maxValueLength else {
            throw URLDiagnostic(
                .valueTooLong,
                component,
                at: start,
                "a value is \(decoded.count) bytes, over the limit of \(limits.maxValueLength)"
            )
        }
        // `String(decoding:as:)` repairs invalid UTF-8 with U+FFFD, so the bytes come back unchanged only when they
        // were valid. (`String(validating:as:)` says the same in one call, but only from iOS 18 and macOS 15.)
        let string = String(decoding: decoded, as: UTF8.self)
        guard string.utf8.elementsEqual(decoded) else {
            throw URLDiagnostic(.invalidUTF8, component, at: start, "the decoded bytes are not UTF-8")
        }
        return string
    }

    /// The bytes as a String (ASCII-lower-cased when asked): one copy, no per-character appends.
    func string(_ start: Int, _ stop: Int, lowercased: Bool) -> String {
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<stop]), as: UTF8.self)
        return lowercased ? text.lowercased() : text
    }

    private func component(at index: Int) -> URLDiagnostic.Component {
        var seenColon = false
        for probe in 0..<index {
            switch bytes[probe] {
            case UInt8(ascii: "#"): return .fragment
            case UInt8(ascii: "?"): if seenColon { return .query }
            case UInt8(ascii: ":"): seenColon = true
            default: break
            }
        }
        return seenColon ? .path : .scheme
    }
}

@inline(__always)
func asciiLowercased(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
}

@inline(__always)
private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

private func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
}
