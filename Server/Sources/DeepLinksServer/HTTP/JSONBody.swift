import DeepLinksJSON
import Foundation
import Hummingbird
import NIOFoundationCompat

/// A request body read strictly (C6, R8): `application/json` or 415; one JSON object or 400; no duplicate
/// keys at any depth (which value would win differs between parsers); decoded as the route's body type
/// (``decode(_:)``), fields by type, never coerced.
struct JSONBody {
    let object: [String: JSONValue]

    /// The body decoded as `T` (each route declares the body it takes), with a readable reason when a field is
    /// missing or of the wrong type: `'email' must be a string, not a number`.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(JSONValue.object(object).compactJSON.utf8))
        } catch let DecodingError.typeMismatch(expected, context), let DecodingError.valueNotFound(expected, context) {
            let found = value(at: context.codingPath)?.typeName ?? "null"
            throw APIError.malformed("'\(Self.path(context.codingPath))' must be \(Self.kind(expected)), not \(found)")
        } catch let DecodingError.dataCorrupted(context) {
            throw APIError.malformed(
                "'\(Self.path(context.codingPath))': \(context.debugDescription)"
            )
        } catch let DecodingError.keyNotFound(key, context) {
            throw APIError.malformed(
                "'\(Self.path(context.codingPath + [key]))' is required"
            )
        } catch {
            throw APIError.malformed("the body does not describe a link")
        }
    }

    /// What a field of `type` must be, in the API's words.
    static func kind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is Double.Type: "a number"
        case is [Any].Type: "an array"
        default: "an object"
        }
    }

    /// The value at a coding path of the body, when there is one.
    func value(at path: [any CodingKey]) -> JSONValue? {
        path.reduce(JSONValue.object(object) as JSONValue?) { value, key in
            if let index = key.intValue { return value?.array.flatMap { $0.indices.contains(index) ? $0[index] : nil } }
            return value?.object?[key.stringValue]
        }
    }

    /// A coding path as the API's documents write it: `rules[0].when.platforms`.
    static func path(_ keys: [any CodingKey]) -> String {
        keys.reduce(into: "") { path, key in
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += (path.isEmpty ? "" : ".") + key.stringValue
            }
        }
    }

    static func read(_ request: Request, context: some RequestContext) async throws -> JSONBody {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
            .lowercased()
        guard type == "application/json" else {
            throw APIError(
                status: .unsupportedMediaType,
                code: .unsupportedMediaType,
                fields: ["reason": .string("send application/json")]
            )
        }
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        let data = Data(buffer: buffer)
        if let duplicate = Self.duplicateKey(in: data) {
            throw APIError.malformed("the key '\(duplicate.prefix(40))' appears twice in one object")
        }
        guard let value = try? JSONValue.parse(data) else { throw APIError.malformed("the body is not JSON") }
        guard case .object(let object) = value else { throw APIError.malformed("the body must be a JSON object") }
        return JSONBody(object: object)
    }

    /// The first key seen twice in the same object, scanning the raw bytes (strings decoded for comparison).
    static func duplicateKey(in data: Data) -> String? {
        var stack: [(isObject: Bool, keys: Set<String>, expectingKey: Bool)] = []
        var index = data.startIndex
        while index < data.endIndex {
            let byte = data[index]
            switch byte {
            case UInt8(ascii: "{"): stack.append((true, [], true))
            case UInt8(ascii: "["): stack.append((false, [], false))
            case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = stack.popLast()
            case UInt8(ascii: ","):
                if let last = stack.indices.last, stack[last].isObject { stack[last].expectingKey = true }
            case UInt8(ascii: "\""):
                var end = data.index(after: index)
                var escaped = false
                while end < data.endIndex {
                    if escaped {
                        escaped = false
                    } else if data[end] == UInt8(ascii: "\\") {
                        escaped = true
                    } else if data[end] == UInt8(ascii: "\"") {
                        break
                    }
                    end = data.index(after: end)
                }
                guard end < data.endIndex else { return nil }
                if let last = stack.indices.last, stack[last].isObject, stack[last].expectingKey {
                    let raw = data[index...end]
                    let key =
                        (try? JSONDecoder().decode(String.self, from: raw)) ?? String(decoding: raw, as: UTF8.self)
                    if !stack[last].keys.insert(key).inserted { return key }
                    stack[last].expectingKey = false
                }
                index = end
            default: break
            }
            index = data.index(after: index)
        }
        return nil
    }
}
