import Foundation

/// Every link in this server's CSV format (`GET /v1/links/export`, `deeplinks links export`, the console's
/// "Export links"): each field of a link in a column (``LinkColumn/all``), so that the file imports back unchanged (``LinkImport``'s
/// `csv` format reads the same header). A team can leave as easily as it came.
enum LinkExport {
    static let header = LinkColumn.all.map(\.name)

    /// The header row and one row per link, LF-ended.
    static func csv(_ links: [SmartLink]) -> String {
        var text = header.joined(separator: ",") + "\n"
        for link in links {
            text += LinkColumn.all.map { cell($0.write(link) ?? "") }.joined(separator: ",") + "\n"
        }
        return text
    }

    /// What a spreadsheet reads as the start of a formula (`=`, `+`, `-`, `@`, a tab, a carriage return), and the
    /// guard's own `'` (so a text that starts with one comes back as it was).
    static let guarded: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r", "'"]

    /// A cell as RFC 4180 writes it, quoted when it must be; a text whose first scalar a spreadsheet would run as a
    /// formula gets a `'` before it, which the import takes off again. The first scalar, not the first character:
    /// `=` followed by a zero-width joiner or a combining mark is one character, and still a formula to LibreOffice.
    static func cell(_ text: String) -> String {
        var text = text
        if let first = text.unicodeScalars.first, guarded.contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
