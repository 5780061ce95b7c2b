import DeepLinksJSON
import Foundation
import Hummingbird

/// A form posted by a browser without the page's script: `application/x-www-form-urlencoded` (415 otherwise), at
/// most 64 KiB, `+` read as a space and `%XX` decoded once, as HTML forms encode them. A repeated or undecodable
/// field is refused (400), never guessed.
enum FormBody {
    static func read(_ request: Request, context: some RequestContext) async throws -> [String: String] {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
            .lowercased()
        guard type == "application/x-www-form-urlencoded" else {
            throw APIError(
                status: .unsupportedMediaType,
                code: .unsupportedMediaType,
                fields: ["reason": .string("send a form")]
            )
        }
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        return try parse(String(buffer: buffer))
    }

    static func parse(_ text: String) throws -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ part: Substring) throws -> String {
                guard let value = part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding else {
                    throw APIError.malformed("a form field is not percent-encoded UTF-8")
                }
                return value
            }
            let name = try decoded(parts[0])
            guard fields[name] == nil else { throw APIError.malformed("the field '\(name.prefix(40))' appears twice") }
            fields[name] = try parts.count > 1 ? decoded(parts[1]) : ""
        }
        return fields
    }
}
