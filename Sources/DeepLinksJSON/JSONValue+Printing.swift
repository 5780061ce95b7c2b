extension JSONValue {
    /// Stable, readable JSON: keys sorted, two-space indentation, `/` not escaped. Generated files and their
    /// golden copies use it, so a diff shows only real changes.
    public func prettyPrinted(indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value): return Self.number(value)
        case .string(let value): return Self.quote(value)
        case .array(let items):
            guard !items.isEmpty else { return "[]" }
            return "[\n" + items.map { inner + $0.prettyPrinted(indent: inner) }.joined(separator: ",\n") + "\n"
                + indent + "]"
        case .object(let members):
            guard !members.isEmpty else { return "{}" }
            return "{\n"
                + members.keys.sorted().map {
                    inner + Self.quote($0) + ": " + members[$0]!.prettyPrinted(indent: inner)
                }.joined(separator: ",\n") + "\n" + indent + "}"
        }
    }

    /// Compact JSON, keys sorted: the same value always gives the same bytes (the server's HTTP bodies).
    public var compactJSON: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .number(let value): Self.number(value)
        case .string(let value): Self.quote(value)
        case .array(let values): "[" + values.map(\.compactJSON).joined(separator: ",") + "]"
        case .object(let members):
            "{" + members.keys.sorted().map { Self.quote($0) + ":" + members[$0]!.compactJSON }.joined(separator: ",")
                + "}"
        }
    }

    /// A whole number without a fraction (`3`, not `3.0`), anything else as Swift prints a `Double`.
    static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    static func quote(_ text: String) -> String {
        // Most text needs no escape: one copy instead of a scalar at a time.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            return "\"" + text + "\""
        }
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                output +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}
