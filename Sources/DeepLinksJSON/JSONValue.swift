import Foundation

/// A JSON value as written, so the validator can report wrong types and the matcher can read a file the
/// way iOS does (ignoring what it does not understand).
public indirect enum JSONValue: Sendable, Hashable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Parses JSON bytes; a leading UTF-8 byte-order mark is skipped.
    public static func parse(_ data: Data) throws -> JSONValue {
        var data = data
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { data.removeFirst(3) }
        if hasTrailingComma(data) {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "a trailing comma is not JSON"))
        }
        return try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// Foundation's decoder accepts `[1,]` and `{"a":1,}`; RFC 8259 (and so this parser) does not.
    private static func hasTrailingComma(_ data: Data) -> Bool {
        var inString = false
        var escaped = false
        var pendingComma = false
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true; pendingComma = false
            case UInt8(ascii: ","): pendingComma = true
            case UInt8(ascii: "]"), UInt8(ascii: "}"): if pendingComma { return true }
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): break
            default: pendingComma = false
            }
        }
        return false
    }

    public var string: String? { if case .string(let value) = self { value } else { nil } }
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    public var object: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }

    /// The JSON type's name, for messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
