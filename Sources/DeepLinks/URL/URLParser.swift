/// The byte-level parser behind ``LinkURL/init(parsing:limits:)``. One pass to find the components, then
/// each is checked and decoded once. Positions in diagnostics are byte offsets into the input.
struct URLParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let limits: URLLimits

    func parse() throws(URLDiagnostic) -> LinkURL {
        let count = bytes.count
        guard count > 0 else { throw URLDiagnostic(.empty, .url, at: 0, "the URL is empty") }
        guard count <= limits.maxURLLength else {
            throw URLDiagnostic(.tooLong, .url, at: limits.maxURLLength, "the URL is \(count) bytes, over the limit of \(limits.maxURLLength)")
        }
        // Raw characters: never a control character, NUL, space or one RFC 3986 never allows.
        var hash = -1
        for index in 0..<count {
            let byte = bytes[index]
            if byte < 0x20 || byte == 0x7F {
                throw URLDiagnostic(.controlCharacter, component(at: index), at: index, "control character \(hex(byte))")
            }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"),
                UInt8(ascii: "^"), UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
                throw URLDiagnostic(.invalidCharacter, component(at: index), at: index, "'\(Character(Unicode.Scalar(byte)))' must be percent-encoded")
            case UInt8(ascii: "#"):
                if hash >= 0 {
                    throw URLDiagnostic(.invalidCharacter, .fragment, at: index, "a second '#' must be percent-encoded")
                }
                hash = index
            default: break
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
            let isOther = (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard isLetter || (index > 0 && isOther) else {
                throw URLDiagnostic(.invalidScheme, .scheme, at: index, "a scheme is a letter followed by letters, digits, '+', '-' or '.'")
            }
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { hasUpperCase = true }
        }
        let scheme = string(0, colon, lowercased: hasUpperCase)
        let isWeb = scheme == "https" || scheme == "http"

        let end = hash >= 0 ? hash : count
        var cursor = colon + 1
        var host: String?
        var port: Int?
        if cursor + 1 < end, bytes[cursor] == UInt8(ascii: "/"), bytes[cursor + 1] == UInt8(ascii: "/") {
            let start = cursor + 2
            var stop = start
            while stop < end, bytes[stop] != UInt8(ascii: "/"), bytes[stop] != UInt8(ascii: "?") { stop += 1 }
            (host, port) = try authority(start, stop, isWeb: isWeb)
            cursor = stop
        } else if isWeb {
            throw URLDiagnostic(.invalidHost, .host, at: cursor, "an \(scheme) URL needs '//' and a host")
        }

        var queryStart = end
        for index in cursor..<end where bytes[index] == UInt8(ascii: "?") {
            queryStart = index
            break
        }
        var segments: [String] = []
        var slashes = 1
        for index in cursor..<queryStart where bytes[index] == UInt8(ascii: "/") { slashes += 1 }
        segments.reserveCapacity(slashes)
        var segmentStart = cursor
        for index in cursor...queryStart {
            if index == queryStart || bytes[index] == UInt8(ascii: "/") {
                if index > segmentStart {
                    segments.append(try decode(segmentStart, index, .path))
                }
                segmentStart = index + 1
            }
        }
        var items: [QueryItem] = []
        if queryStart < end {
            items = try queryItems(queryStart + 1, end, .query, existing: 0)
        }
        var fragment: String?
        var fragmentItems: [QueryItem] = []
        if hash >= 0 {
            fragment = try decode(hash + 1, count, .fragment)
            if bytes[(hash + 1)..<count].contains(UInt8(ascii: "=")) {
                fragmentItems = try queryItems(hash + 1, count, .fragment, existing: items.count)
            }
        }
        return LinkURL(
            scheme: scheme,
            host: host,
            port: port,
            pathSegments: segments,
            queryItems: items,
            fragment: fragment,
            fragmentItems: fragmentItems
        )
    }

    private func authority(_ start: Int, _ stop: Int, isWeb: Bool) throws(URLDiagnostic) -> (String, Int?) {
        var hostEnd = stop
        var port: Int?
        var inBrackets = false
        for index in start..<stop {
            switch bytes[index] {
            case UInt8(ascii: "@"):
                throw URLDiagnostic(.userinfoNotAllowed, .userinfo, at: start, "user information before '@' is not allowed in a link")
            case UInt8(ascii: "["): inBrackets = true
            case UInt8(ascii: "]"): inBrackets = false
            case UInt8(ascii: ":") where !inBrackets && hostEnd == stop: hostEnd = index
            default: break
            }
        }
        if hostEnd < stop {
            let digits = bytes[(hostEnd + 1)..<stop]
            if !digits.isEmpty {
                var value = 0
                for (offset, byte) in digits.enumerated() {
                    guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), value <= 65535 else {
                        throw URLDiagnostic(.invalidPort, .port, at: hostEnd + 1 + offset, "the port is not a number from 0 to 65535")
                    }
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                }
                guard value <= 65535 else {
                    throw URLDiagnostic(.invalidPort, .port, at: hostEnd + 1, "the port is not a number from 0 to 65535")
                }
                guard limits.allowsPort else {
                    throw URLDiagnostic(.portNotAllowed, .port, at: hostEnd + 1, "a port is not allowed in a link")
                }
                port = value
            }
        }
        if !isWeb {
            // A custom scheme's host is the first route segment: decoded like one, compared case-insensitively.
            return (try decode(start, hostEnd, .host).lowercased(), port)
        }
        guard hostEnd > start else {
            throw URLDiagnostic(.invalidHost, .host, at: start, "the host is empty")
        }
        let isLiteral = bytes[start] == UInt8(ascii: "[")
        var hasUpperCase = false
        for index in start..<hostEnd {
            let byte = bytes[index]
            let lower = byte | 0x20
            let allowed = (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                || (isLiteral && (byte == UInt8(ascii: ":") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")))
            guard allowed else {
                throw URLDiagnostic(.invalidHost, .host, at: index, "a host holds only letters, digits, '-' and '.'")
            }
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { hasUpperCase = true }
        }
        let trailingDot = hostEnd - start > 1 && bytes[hostEnd - 1] == UInt8(ascii: ".")
        let host = string(start, trailingDot ? hostEnd - 1 : hostEnd, lowercased: hasUpperCase)
        return (host, port)
    }

    private func queryItems(_ start: Int, _ stop: Int, _ component: URLDiagnostic.Component, existing: Int) throws(URLDiagnostic) -> [QueryItem] {
        var items: [QueryItem] = []
        var pairStart = start
        var index = start
        while index <= stop {
            if index == stop || bytes[index] == UInt8(ascii: "&") {
                if index > pairStart {
                    guard existing + items.count < limits.maxQueryItems else {
                        throw URLDiagnostic(.tooManyQueryItems, component, at: pairStart, "more than \(limits.maxQueryItems) query items")
                    }
                    var equals = index
                    for probe in pairStart..<index where bytes[probe] == UInt8(ascii: "=") {
                        equals = probe
                        break
                    }
                    let name = try decode(pairStart, equals, component)
                    let value = equals < index ? try decode(equals + 1, index, component) : nil
                    items.append(QueryItem(name: name, value: value))
                }
                pairStart = index + 1
            }
            index += 1
        }
        return items
    }

    /// Percent-decodes `bytes[start..<stop]` exactly once and checks the result.
    private func decode(_ start: Int, _ stop: Int, _ component: URLDiagnostic.Component) throws(URLDiagnostic) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<stop])
        if !slice.contains(UInt8(ascii: "%")) {
            guard slice.count <= limits.maxValueLength else {
                throw URLDiagnostic(.valueTooLong, component, at: start, "a value is \(slice.count) bytes, over the limit of \(limits.maxValueLength)")
            }
            return String(decoding: slice, as: UTF8.self)  // the input is a String: already valid UTF-8
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(slice.count)
        var index = 0
        while index < slice.count {
            let byte = slice[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < slice.count, let high = hexValue(slice[index + 1]), let low = hexValue(slice[index + 2])
                else {
                    throw URLDiagnostic(.invalidPercentEncoding, component, at: start + index, "'%' is not followed by two hexadecimal digits")
                }
                let value = high << 4 | low
                if value < 0x20 || value == 0x7F {
                    throw URLDiagnostic(.controlCharacter, component, at: start + index, "encoded control character \(hex(value))")
                }
                decoded.append(value)
                index += 3
            } else {
                decoded.append(byte)
                index += 1
            }
        }
        guard decoded.count <= limits.maxValueLength else {
            throw URLDiagnostic(.valueTooLong, component, at: start, "a value is \(decoded.count) bytes, over the limit of \(limits.maxValueLength)")
        }
        guard let string = String(validating: decoded, as: UTF8.self) else {
            throw URLDiagnostic(.invalidUTF8, component, at: start, "the decoded bytes are not UTF-8")
        }
        return string
    }

    /// The bytes as a String (ASCII-lower-cased when asked): one copy, no per-character appends.
    private func string(_ start: Int, _ stop: Int, lowercased: Bool) -> String {
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
