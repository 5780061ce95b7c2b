import DeepLinksJSON
import Foundation
import Hummingbird

/// A `multipart/form-data` body (RFC 7578), as a browser sends a form with a file: the console's import. Each part
/// by its name, with its file name if it has one and its bytes as sent. A body that does not follow its boundary, a
/// part without a name or one named twice, and too many parts are refused with a reason (400), and nothing is done.
enum MultipartForm {
    struct Part: Equatable {
        let filename: String?
        let value: [UInt8]

        /// The value as text, nil when it is not UTF-8.
        var text: String? { String(validating: value, as: UTF8.self) }
    }

    /// More parts than any of the console's forms has.
    static let maxParts = 16
    /// The most bytes of a part's header lines.
    static let maxHeaderBytes = 4_096

    /// The form of `request`, its body read up to `limit` bytes (413 beyond).
    static func read(_ request: Request, limit: Int) async throws -> [String: Part] {
        let boundary = try boundary(request.headers[.contentType])
        let buffer = try await request.body.collect(upTo: limit)
        return try parse(Array(buffer: buffer), boundary: boundary)
    }

    /// The `boundary` parameter of a `multipart/form-data` content type.
    static func boundary(_ contentType: String?) throws -> String {
        let items = parameters(Substring(contentType ?? ""))
        guard items.first?.name == "multipart/form-data" else {
            throw APIError(
                status: .unsupportedMediaType,
                code: .unsupportedMediaType,
                fields: ["reason": .string("send the form as multipart/form-data")]
            )
        }
        // RFC 2046: 1 to 70 characters.
        guard let value = items.first(where: { $0.name == "boundary" })?.value, (1...70).contains(value.utf8.count),
            !value.contains("\r"), !value.contains("\n")
        else { throw APIError.malformed("the multipart body has no valid boundary (1 to 70 characters)") }
        return value
    }

    static func parse(_ body: [UInt8], boundary: String) throws -> [String: Part] {
        let delimiter = Array("--\(boundary)".utf8)
        let crlf: [UInt8] = [13, 10]
        // A preamble before the first delimiter is allowed (and ignored).
        guard let first = body.firstRange(of: delimiter) else {
            throw APIError.malformed("the multipart body does not contain its boundary")
        }
        var parts: [String: Part] = [:]
        var position = first.upperBound
        while true {
            if body[position...].starts(with: [45, 45]) { return parts }  // "--": the closing delimiter.
            guard body[position...].starts(with: crlf) else {
                throw APIError.malformed("the multipart body has text after a boundary")
            }
            position += 2
            guard let headerEnd = body[position...].firstRange(of: crlf + crlf),
                headerEnd.lowerBound - position <= maxHeaderBytes
            else { throw APIError.malformed("a part of the multipart body has no end to its headers") }
            let (name, filename) = try disposition(body[position..<headerEnd.lowerBound])
            guard let end = body[headerEnd.upperBound...].firstRange(of: crlf + delimiter) else {
                throw APIError.malformed("the multipart body ends without its closing boundary")
            }
            guard parts[name] == nil else { throw APIError.malformed("the field '\(name.prefix(40))' appears twice") }
            guard parts.count < maxParts else { throw APIError.malformed("the form has more than \(maxParts) fields") }
            parts[name] = Part(filename: filename, value: Array(body[headerEnd.upperBound..<end.lowerBound]))
            position = end.upperBound
        }
    }

    /// The name and file name of a part's `Content-Disposition: form-data` header.
    private static func disposition(_ headers: ArraySlice<UInt8>) throws -> (name: String, filename: String?) {
        guard let text = String(validating: headers, as: UTF8.self) else {
            throw APIError.malformed("a part's headers are not UTF-8")
        }
        for line in text.split(separator: "\r\n") {
            let field = line.split(separator: ":", maxSplits: 1)
            guard field.count == 2, field[0].lowercased() == "content-disposition" else { continue }
            let items = parameters(field[1])
            guard items.first?.name == "form-data",
                let name = items.first(where: { $0.name == "name" })?.value,
                !name.isEmpty
            else { throw APIError.malformed("a part is not a named form-data field") }
            return (name, items.first { $0.name == "filename" }?.value)
        }
        throw APIError.malformed("a part has no Content-Disposition header")
    }

    /// `form-data; name="a"; filename="b;c.csv"` (or a content type and its parameters) as (name, value) items,
    /// names lower-cased, values unquoted. Browsers write a quote
    /// in a name or file name as `%22` (HTML's form submission), so a quoted value holds no quote.
    private static func parameters(_ text: Substring) -> [(name: String, value: String?)] {
        var pieces: [String] = []
        var current = ""
        var quoted = false
        for character in text {
            if character == "\"" { quoted.toggle() }
            if character == ";", !quoted {
                pieces.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        pieces.append(current)
        return pieces.compactMap { piece in
            let trimmed = piece.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { return nil }
            let pair = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { return (trimmed.lowercased(), nil) }
            let value =
                pair[1].count >= 2 && pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"")
                ? String(pair[1].dropFirst().dropLast()) : pair[1]
            return (pair[0].lowercased(), value)
        }
    }
}
