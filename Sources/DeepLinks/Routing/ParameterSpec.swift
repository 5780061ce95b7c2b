/// One parameter of a route: where it lives, its kind, whether it is required, its constraints, and
/// whether it is sensitive (redacted in every description and log line).
public struct ParameterSpec: Sendable, Hashable, Codable {
    public enum Location: String, Sendable, Hashable, Codable {
        case path, query, fragment
    }

    public enum Presence: Sendable, Hashable {
        case required
        case optional
        /// Every occurrence of a repeated key, in order; none is an empty list.
        case list
        /// Used when the key is absent.
        case defaultValue(String)
    }

    public var name: String
    public var location: Location
    public var kind: ParameterKind
    public var presence: Presence
    public var isSensitive: Bool
    /// Length limits in characters, when set.
    public var minLength: Int?
    public var maxLength: Int?
    public var characters: CharacterRule

    public init(
        name: String,
        location: Location,
        kind: ParameterKind,
        presence: Presence = .required,
        isSensitive: Bool = false,
        length: ClosedRange<Int>? = nil,
        characters: CharacterRule = .any
    ) {
        self.name = name
        self.location = location
        self.kind = kind
        self.presence = presence
        self.isSensitive = isSensitive
        self.minLength = length?.lowerBound
        self.maxLength = length?.upperBound
        self.characters = characters
    }

    /// Why `value` breaks this parameter's constraints, or nil when it does not. Never quotes the value.
    func violation(_ value: String) -> String? {
        if !kind.accepts(value) { return "is not a valid \(kind)" }
        if minLength != nil || maxLength != nil {
            let count = value.count
            if let minLength, count < minLength { return "is shorter than \(minLength) characters" }
            if let maxLength, count > maxLength { return "is longer than \(maxLength) characters" }
        }
        if !characters.allows(value) { return "has characters outside \(characters)" }
        return nil
    }
}

extension ParameterSpec.Presence: Codable {
    /// Encoded as `required`, `optional`, `list` or `default:VALUE`.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        switch text {
        case "required": self = .required
        case "optional": self = .optional
        case "list": self = .list
        default:
            guard text.hasPrefix("default:") else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "unknown presence '\(text)'")
                )
            }
            self = .defaultValue(String(text.dropFirst(8)))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .required: try container.encode("required")
        case .optional: try container.encode("optional")
        case .list: try container.encode("list")
        case .defaultValue(let value): try container.encode("default:" + value)
        }
    }
}

/// Which characters a parameter may hold.
public enum CharacterRule: Sendable, Hashable, Codable, CustomStringConvertible {
    case any
    /// ASCII letters and digits.
    case alphanumeric
    /// ASCII letters, digits, `-` and `_` (base64url, slugs, most tokens).
    case base64URL
    /// Hexadecimal digits.
    case hexadecimal
    /// Exactly these characters.
    case only(String)

    public var description: String {
        switch self {
        case .any: "any"
        case .alphanumeric: "alphanumeric"
        case .base64URL: "base64url"
        case .hexadecimal: "hexadecimal"
        case .only(let set): "only:\(set)"
        }
    }

    /// Whether every character of `value` follows the rule.
    public func allows(_ value: String) -> Bool {
        switch self {
        case .any:
            return true
        case .alphanumeric:
            return value.utf8.allSatisfy { isAlphanumeric($0) }
        case .base64URL:
            return value.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
        case .hexadecimal:
            return value.utf8.allSatisfy {
                ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "f") || ($0 >= 48 && $0 <= 57)
            }
        case .only(let set):
            return value.allSatisfy { set.contains($0) }
        }
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        switch text {
        case "any": self = .any
        case "alphanumeric": self = .alphanumeric
        case "base64url": self = .base64URL
        case "hexadecimal": self = .hexadecimal
        default:
            guard text.hasPrefix("only:") else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "unknown character rule '\(text)'")
                )
            }
            self = .only(String(text.dropFirst(5)))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

@inline(__always)
private func isAlphanumeric(_ byte: UInt8) -> Bool {
    (byte >= 48 && byte <= 57) || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z"))
}

extension ParameterSpec {
    /// A path parameter, named `:name` in the pattern. Path parameters are always required.
    public static func path<T: RouteParameterValue>(
        _ name: String,
        _ type: T.Type = String.self,
        sensitive: Bool = false,
        length: ClosedRange<Int>? = nil,
        characters: CharacterRule = .any
    ) -> ParameterSpec {
        ParameterSpec(
            name: name,
            location: .path,
            kind: T.parameterKind,
            presence: .required,
            isSensitive: sensitive,
            length: length,
            characters: characters
        )
    }

    /// A query parameter (`?name=value`).
    public static func query<T: RouteParameterValue>(
        _ name: String,
        _ type: T.Type = String.self,
        _ presence: Presence = .required,
        sensitive: Bool = false,
        length: ClosedRange<Int>? = nil,
        characters: CharacterRule = .any
    ) -> ParameterSpec {
        ParameterSpec(
            name: name,
            location: .query,
            kind: T.parameterKind,
            presence: presence,
            isSensitive: sensitive,
            length: length,
            characters: characters
        )
    }

    /// A fragment parameter (`#name=value`): it never reaches a server, which suits a reset token.
    public static func fragment<T: RouteParameterValue>(
        _ name: String,
        _ type: T.Type = String.self,
        _ presence: Presence = .required,
        sensitive: Bool = false,
        length: ClosedRange<Int>? = nil,
        characters: CharacterRule = .any
    ) -> ParameterSpec {
        ParameterSpec(
            name: name,
            location: .fragment,
            kind: T.parameterKind,
            presence: presence,
            isSensitive: sensitive,
            length: length,
            characters: characters
        )
    }
}
