import DeepLinks
import Foundation

/// Links from another system's export (`POST /v1/links/import`): each CSV row becomes a smart link that keeps its
/// code, checked like an API create, and the report says, per row, what became of it.
///
/// The formats, as their exporters write them (header names compared without case, spaces, `_`, `-`, `?` or
/// parentheses; a label ending in a parenthesised parameter, `Deep link (link)`, is that parameter; `columns`
/// overrides a field's column by name). `auto` tells the format from the header row.
/// - `csv`: this server's own (`GET /v1/links/export` writes it): `code`, `app`, `route`, `ios`, `ipad`,
///   `android`, `desktop`, `fallback` (or `url`), `title`, `description`, `image`, `passQuery`, `expiresAt`,
///   `expiredURL`, `campaign`, `rules` (the rules as the API's JSON array). A row without a route is a web link.
/// - `fdl`: Firebase Dynamic Links from Google Takeout: `short_link` and one column per long-link parameter (`link`,
///   `ibi`, `isi`, `apn`, `ifl`, `ipfl`, `afl`, `ofl`, `st`, `sd`, `si`, ..., `archived`), or the guide's labels
///   (`Short link`, `Deep link (link)`, ...); an older export with a long-link column is read too. A row means what
///   the same parameters mean in a long link opened here (``FirebaseParameters``).
/// - `dub`: `Short link` (the code is its path), `Destination URL`, and the columns the user ticked (`Archived`);
///   dub's API shape (`key`, `url`) too.
/// - `bitly`: the dashboard's `Bitlink` (with or without a scheme), `Long URL`, `Title`; or the API's `link` (or
///   `id`), `long_url`, `title`, `archived`.
/// - `shlink`: the web client's `shortCode`, `longUrl`, `title`, or shlink-importer's `Short code`, `Long URL`.
///
/// A destination on one of the app's domains that a route matches opens the app there; any other destination on
/// an allowed host makes a web link. A code this server cannot serve is refused with the validator's reason, never
/// rewritten; an archived row is skipped with the reason `archived`.
struct LinkImport: Sendable {
    enum Format: String, Sendable, CaseIterable {
        case auto, csv, fdl, dub, bitly, shlink

        /// The formats a file can be in (`auto` is a choice, not a format).
        static var concrete: [Format] { allCases.filter { $0 != .auto } }
    }

    /// What to do with a code that is already a link: leave it (`skip`, so an import can be re-run), overwrite it,
    /// or stop and change nothing of the batch (`fail`).
    enum Conflict: String, Sendable, CaseIterable {
        case skip, replace, fail
    }

    struct Row: Sendable {
        /// The row's line in the file (the header is line 1).
        let line: Int
        let code: String?
        let link: SmartLink?
        let problems: [String]
        /// Why the row is left out without being wrong (`archived`).
        var skipped: String? = nil
    }

    let policy: LinkPolicy

    /// The rows of `text` as links, each checked, with the format they were read as (`auto`: told from the header).
    func rows(_ text: String, format requested: Format, columns overrides: [String: String] = [:])
        throws(LinkImportError) -> (format: Format, rows: [Row])
    {
        var reader: ((_ cells: [String], _ line: Int) -> Row?)?
        var rows: [Row] = []
        var format = requested
        var records = 0
        try Self.forEachRecord(text) { (cells) throws(LinkImportError) in
            records += 1
            if let reader {
                if let row = reader(cells, records) { rows.append(row) }
            } else {
                (format, reader) = try self.reader(header: cells, format: requested, columns: overrides)
            }
        }
        guard reader != nil else { throw LinkImportError(description: "the file is empty: a header row is needed") }
        return (format, rows)
    }

    /// The format of a file with `header`, and what reads each later record (the record and its line) as a row.
    private func reader(header: [String], format requested: Format, columns overrides: [String: String])
        throws(LinkImportError) -> (Format, (_ cells: [String], _ line: Int) -> Row?)
    {
        let names = header.map(Self.normalized)
        // A column the request names for a field (of any format) counts as that field's when the format is told
        // from the header.
        let known = Set(Format.concrete.flatMap { Self.fields($0).map(\.0) })
        let named = overrides.filter { known.contains($0.key) }.sorted { $0.key < $1.key }
        let renamed = names.map { name in named.first { Self.normalized($0.value) == name }?.key ?? name }
        let format = requested == .auto ? try Self.detect(renamed) : requested
        func column(_ field: String, _ candidates: [String]) -> Int? {
            let wanted = overrides[field].map { [Self.normalized($0)] } ?? candidates
            return wanted.lazy.compactMap { names.firstIndex(of: $0) }.first
        }
        let fields = Self.fields(format)
        // An override names a field of the format and a column of the file, or the import stops (a typo would
        // otherwise leave the field empty in every row).
        for (field, name) in overrides.sorted(by: { $0.key < $1.key }) {
            guard fields.contains(where: { $0.0 == field }) else {
                throw LinkImportError(
                    description:
                        "the \(format.rawValue) format has no field '\(field)' (its fields: \(fields.map(\.0).joined(separator: ", ")))"
                )
            }
            guard names.contains(Self.normalized(name)) else {
                throw LinkImportError(description: "no column '\(name)' in the header row (named for '\(field)')")
            }
        }
        var indexes: [String: Int] = [:]
        for (field, candidates) in fields {
            if let index = column(field, candidates) { indexes[field] = index }
        }
        for alternatives in Self.required(format) where !alternatives.contains(where: { indexes[$0] != nil }) {
            let looked = alternatives.flatMap { field in
                overrides[field].map { [$0] } ?? fields.first { $0.0 == field }?.1 ?? []
            }
            throw LinkImportError(
                description:
                    "no column for '\(alternatives[0])' in the \(format.rawValue) format (looked for: \(looked.joined(separator: ", ")); name one with --column \(alternatives[0])=NAME)"
            )
        }
        return (
            format,
            { [indexes] cells, line -> Row? in
                guard cells.contains(where: { !$0.isEmpty }) else { return nil }  // a blank line
                func value(_ field: String) -> String? {
                    guard let index = indexes[field], index < cells.count else { return nil }
                    // This server's own export is read as written (a title's spaces are the title's); other exporters'
                    // cells are trimmed.
                    var text = format == .csv ? cells[index] : cells[index].trimmingCharacters(in: .whitespaces)
                    // A spreadsheet's formula guard, taken off as ``LinkExport`` puts it on (dub writes `'=...` too).
                    let scalars = text.unicodeScalars
                    if scalars.first == "'", let next = scalars.dropFirst().first, LinkExport.guarded.contains(next) {
                        text.unicodeScalars.removeFirst()
                    }
                    return text.isEmpty ? nil : text
                }
                return row(line: line, format: format, value)
            }
        )
    }

    /// The format whose header this is, by the columns only its exporter writes together.
    static func detect(_ names: [String]) throws(LinkImportError) -> Format {
        let has = Set(names)
        func all(_ wanted: String...) -> Bool { wanted.allSatisfy(has.contains) }
        if all("shortlink", "destinationurl") || all("domain", "key", "url") { return .dub }
        if all("shortlink", "link") || (has.contains("shortdynamiclink") && has.contains("longdynamiclink"))
            || all("shortlink", "longlink")
        {
            return .fdl
        }
        if all("bitlink", "longurl") || all("link", "longurl") || all("id", "longurl") { return .bitly }
        if all("shortcode", "longurl") { return .shlink }
        if has.contains("code"), has.contains("route") || has.contains("fallback") || has.contains("url") {
            return .csv
        }
        throw LinkImportError(
            description:
                "the header row is none of the formats read (this server's csv, Firebase Dynamic Links' Takeout, dub, Bitly, Shlink): name the format with --format and the columns with --column"
        )
    }

    private func row(line: Int, format: Format, _ value: (String) -> String?) -> Row {
        let code: String?
        switch format {
        case .csv: code = value("code")
        case .fdl, .dub: code = value("short").flatMap(Self.shortCode) ?? value("code")
        case .bitly: code = value("short").flatMap(Self.shortCode)
        case .shlink, .auto: code = value("code")
        }
        guard let code else {
            return Row(line: line, code: nil, link: nil, problems: ["no short code (a domain's root link has none)"])
        }
        if let archived = value("archived"), ["true", "yes", "1"].contains(archived.lowercased()) {
            return Row(line: line, code: code, link: nil, problems: [], skipped: "archived")
        }
        var link: SmartLink
        var problems: [String] = []
        switch format {
        case .csv:
            link = SmartLink(code: code, route: nil)
            do {
                for column in LinkColumn.all {
                    if let text = value(Self.normalized(column.name)) { try column.read(&link, text) }
                }
            } catch {
                return Row(line: line, code: code, link: nil, problems: [error.description])
            }
        case .fdl:
            // Takeout's columns are the long link's parameters; an older export has the long link whole.
            var parameters: [String: String] = [:]
            if value("link") == nil, let long = value("long") {
                guard let parsed = FirebaseParameters(longLink: long) else {
                    return Row(line: line, code: code, link: nil, problems: ["long link: not a URL"])
                }
                parameters = parsed.values
            } else {
                for name in FirebaseParameters.names { parameters[name] = value(name) }
            }
            let read = FirebaseParameters(values: parameters).link(code: code, policy: policy)
            guard let found = read.link else { return Row(line: line, code: code, link: nil, problems: read.problems) }
            link = found
            problems = read.problems
        case .dub, .bitly, .shlink, .auto:
            guard let url = value("url") else {
                return Row(line: line, code: code, link: nil, problems: ["no destination"])
            }
            link = policy.link(code: code, destination: url)
            // These services redirected every visitor to the destination: an Android phone without the app
            // reached that page, and still does (the intent falls back to it, not to Google Play).
            if link.route != nil { link.destinations.android = url }
        }
        if format != .fdl, format != .csv {
            link.preview = .init(title: value("title"), description: value("description"), image: value("image"))
        }
        // A title is text to keep: never a reason to refuse a link (Bitly's titles hold line breaks).
        link.preview.title = link.preview.title.map(Self.previewText)
        link.preview.description = link.preview.description.map(Self.previewText)
        problems += policy.validator.problems(link)
        return Row(line: line, code: link.code, link: problems.isEmpty ? link : nil, problems: problems)
    }

    /// A preview text as the validator takes it: control characters (line breaks, tabs) as spaces, at most 300
    /// characters (cut with an ellipsis).
    static func previewText(_ text: String) -> String {
        var cleaned = String(
            String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 })
        )
        if cleaned.count > 300 { cleaned = cleaned.prefix(299) + "…" }
        return cleaned
    }

    /// The code of a short link: its path without the first `/` (`https://example.page.link/abc` → `abc`;
    /// `bit.ly/abc`, written without a scheme, too); a text that is no URL is the code itself. Kept as written:
    /// a path this server cannot serve as a code (`a/b`, unicode) is refused by the validator, never rewritten.
    static func shortCode(_ text: String) -> String? {
        guard text.contains("/") || text.contains(".") else { return text }
        let url = text.contains("://") ? text : "https://" + text
        guard let parts = try? URLParts(parsing: url, limits: SmartLinkValidator.destinationLimits) else { return nil }
        let path = parts.path.hasPrefix("/") ? String(parts.path.dropFirst()) : parts.path
        return path.isEmpty ? nil : path
    }

    /// Each field with the header names it is looked for under, normalized.
    static func fields(_ format: Format) -> [(String, [String])] {
        let preview: [(String, [String])] = [
            ("title", ["title"]), ("description", ["description"]), ("image", ["image"]),
        ]
        switch format {
        case .csv, .auto:
            return LinkColumn.all.map { column in
                (normalized(column.name), ([column.name] + column.aliases).map(normalized))
            }
        case .fdl:
            return [
                ("short", ["shortlink", "shortdynamiclink", "short"]),
                ("long", ["longlink", "longdynamiclink", "long"]),
                ("archived", ["archived"]),
            ] + FirebaseParameters.names.map { ($0, [$0]) }
        case .dub:
            return [
                ("short", ["shortlink"]), ("code", ["key", "slug", "shortkey"]),
                ("url", ["destinationurl", "url"]), ("archived", ["archived"]),
            ] + preview
        case .bitly:
            return [
                ("short", ["bitlink", "link", "id", "customlink"]), ("url", ["longurl"]), ("archived", ["archived"]),
            ] + preview
        case .shlink:
            return [("code", ["shortcode"]), ("url", ["longurl"])] + preview
        }
    }

    /// The fields a file of the format must have, each as its alternatives.
    static func required(_ format: Format) -> [[String]] {
        switch format {
        case .csv, .auto: [["code"], ["route", "fallback"]]
        case .fdl: [["short"], ["link", "long"]]
        case .dub: [["code", "short"], ["url"]]
        case .bitly: [["short"], ["url"]]
        case .shlink: [["code"], ["url"]]
        }
    }

    /// A header name as compared: lower-cased letters and digits only; a label that ends in a parenthesised
    /// parameter (`Android fallback link (afl)`) is that parameter.
    static func normalized(_ name: String) -> String {
        var name = name.trimmingCharacters(in: .whitespaces)
        if name.hasSuffix(")"), let open = name.lastIndex(of: "(") {
            name = String(name[name.index(after: open)..<name.index(before: name.endIndex)])
        }
        return String(name.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) })
    }

    /// The most rows (header included), columns and bytes of a cell an import reads: more than any export of the
    /// services it reads writes, and few enough that a crafted file (8 MiB of commas) is refused as it is read,
    /// before it costs memory.
    static let maxRows = 100_000
    static let maxColumns = 100
    static let maxCellBytes = 16_384

    /// RFC 4180 CSV: fields separated by commas, quoted with `"` (a quote doubled inside), lines ended by CRLF or
    /// LF; a byte-order mark is ignored. Refuses a file over ``maxRows``, ``maxColumns`` or ``maxCellBytes``.
    static func parseCSV(_ text: String) throws(LinkImportError) -> [[String]] {
        var rows: [[String]] = []
        try forEachRecord(text) { rows.append($0) }
        return rows
    }

    /// Each record of `text` in turn, handed to `body` as soon as it is read: an import holds one record's cells
    /// at a time, never the whole table (a file of 83,000 lines of 99 commas is 8 million cells).
    static func forEachRecord(
        _ text: String,
        _ body: ([String]) throws(LinkImportError) -> Void
    ) throws(LinkImportError) {
        var records = 0
        var row: [String] = []
        var field = ""
        var fieldBytes = 0
        var quoted = false
        var line = 1
        var characters = text.unicodeScalars.makeIterator()
        var pending = characters.next()
        if pending == "\u{FEFF}" { pending = characters.next() }
        func endField() throws(LinkImportError) {
            guard row.count < maxColumns else {
                throw LinkImportError(description: "line \(line): more than \(maxColumns) columns")
            }
            row.append(field)
            field = ""
            fieldBytes = 0
        }
        func endRow() throws(LinkImportError) {
            try endField()
            guard records < maxRows else {
                throw LinkImportError(description: "more than \(maxRows) rows: split the file and import each part")
            }
            records += 1
            try body(row)
            row = []
        }
        while let character = pending {
            pending = characters.next()
            fieldBytes += 1
            guard fieldBytes <= maxCellBytes else {
                throw LinkImportError(description: "line \(line): a cell is longer than \(maxCellBytes) characters")
            }
            if quoted {
                if character == "\"" {
                    if pending == "\"" {
                        field.unicodeScalars.append("\"")
                        pending = characters.next()
                    } else {
                        quoted = false
                    }
                } else {
                    if character == "\n" { line += 1 }
                    field.unicodeScalars.append(character)
                }
                continue
            }
            switch character {
            case "\"" where field.isEmpty: quoted = true
            case ",": try endField()
            case "\r" where pending == "\n": continue
            case "\n", "\r":
                try endRow()
                line += 1
            default: field.unicodeScalars.append(character)
            }
        }
        if quoted { throw LinkImportError(description: "line \(line): a quoted field is not closed") }
        if !field.isEmpty || !row.isEmpty { try endRow() }
    }
}

/// A file that cannot be read as an export at all (no header row, an unknown format, a column, row or cell past the
/// limits), as opposed to a row that is refused with its reason.
struct LinkImportError: Error, CustomStringConvertible {
    let description: String
}
