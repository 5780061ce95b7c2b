import Foundation

/// The columns of this server's CSV, each declared once: its name, how a link's field is written into it and how a
/// cell is read back. ``LinkExport`` writes them in this order, ``LinkImport``'s `csv` format reads them (by name,
/// in any order), and docs/smart-links.md's and the DocC article's header lists are checked against it (`LinkImportTests`).
struct LinkColumn: Sendable {
    let name: String
    /// Other header names read as this column (`url` for `fallback`).
    var aliases: [String] = []
    let write: @Sendable (SmartLink) -> String?
    /// Sets the link's field from a non-empty cell; throws the problem (`passQuery: true or false`).
    let read: @Sendable (inout SmartLink, String) throws(LinkColumnProblem) -> Void

    static let all: [LinkColumn] = [
        LinkColumn(name: "code", write: { $0.code }) { link, text in link.code = text },
        text("app", \.app),
        text("route", \.route),
        text("ios", \.destinations.ios),
        text("ipad", \.destinations.ipad),
        text("android", \.destinations.android),
        text("desktop", \.destinations.desktop),
        text("fallback", \.destinations.fallback, aliases: ["url"]),
        text("title", \.preview.title),
        text("description", \.preview.description),
        text("image", \.preview.image),
        LinkColumn(name: "passQuery", write: { $0.passQuery ? "true" : "false" }) {
            link,
            text throws(LinkColumnProblem) in
            guard let flag = ["true": true, "false": false][text.lowercased()] else {
                throw LinkColumnProblem(description: "passQuery: true or false")
            }
            link.passQuery = flag
        },
        LinkColumn(name: "expiresAt", write: { $0.expiresAt.map(String.init) }) {
            link,
            text throws(LinkColumnProblem) in
            guard let expiry = Int64(text) else {
                throw LinkColumnProblem(description: "expiresAt: milliseconds since 1970")
            }
            link.expiresAt = expiry
        },
        text("expiredURL", \.expiredURL),
        text("campaign", \.campaign),
        LinkColumn(name: "rules", write: { $0.rules.map(LinkRule.json) }) {
            link,
            text throws(LinkColumnProblem) in
            do {
                let rules = try JSONDecoder().decode([LinkRule].self, from: Data(text.utf8))
                link.rules = rules.isEmpty ? nil : rules
            } catch {
                let reason =
                    if case DecodingError.dataCorrupted(let context) = error {
                        "'\(JSONBody.path(context.codingPath))': \(context.debugDescription)"
                    } else {
                        "not the API's JSON array of rules"
                    }
                throw LinkColumnProblem(description: "rules: \(reason)")
            }
        },
    ]

    /// A column of text, written and read as it is.
    private static func text(
        _ name: String,
        _ field: any WritableKeyPath<SmartLink, String?> & Sendable,
        aliases: [String] = []
    ) -> LinkColumn {
        LinkColumn(name: name, aliases: aliases, write: { $0[keyPath: field] }) { link, text in
            link[keyPath: field] = text
        }
    }
}

/// Why a cell of this server's CSV cannot be read.
struct LinkColumnProblem: Error, CustomStringConvertible {
    let description: String
}
