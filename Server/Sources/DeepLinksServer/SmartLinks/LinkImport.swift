import DeepLinks
import Foundation

/// Links from another system's export (`POST /v1/links/import`): each CSV row becomes a smart link that keeps its
/// code, checked like an API create, and the report says, per row, what became of it.
///
/// Formats, by their header rows (names compared without case, spaces, `_` or `-`; `columns` overrides a field's
/// column by name):
/// - `csv`: this server's fields: `code`, `route`, `fallback` (or `url`), `ios`, `ipad`, `android`, `desktop`,
///   `title`, `description`, `image`.
/// - `fdl`: a Firebase Dynamic Links export: the short link (its last path segment is the code) and the long link,
///   read like a long link opened here (`link`, `ibi`, `isi`, `apn`, `ifl`, `ipfl`, `afl`, `ofl`, `st`, `sd`, `si`).
/// - `dub`, `bitly`, `shlink`: their CSV exports (dub's `key` and `url`; Bitly's `link` and `long_url`; Shlink's
///   `Short code` and `Long URL`); the slug is kept. A destination on one of the app's domains becomes the link's
///   route and web fallback; a destination elsewhere is refused, since a smart link opens a route of the app.
struct LinkImport: Sendable {
    enum Format: String, Sendable, CaseIterable {
        case csv, fdl, dub, bitly, shlink
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
    }

    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    let policy: LinkPolicy

    /// The rows of `text` as links, each checked; the problems of a row that cannot be one.
    func rows(_ text: String, format: Format, columns overrides: [String: String] = [:]) throws(Malformed) -> [Row] {
        let table = try Self.parseCSV(text)
        guard let header = table.first else {
            throw Malformed(description: "the file is empty: a header row is needed")
        }
        let names = header.map(Self.normalized)
        func column(_ field: String, _ candidates: [String]) -> Int? {
            let wanted = overrides[field].map { [Self.normalized($0)] } ?? candidates
            return wanted.lazy.compactMap { names.firstIndex(of: $0) }.first
        }
        let fields = Self.fields(format)
        // An override names a field of the format and a column of the file, or the import stops (a typo would
        // otherwise leave the field empty in every row).
        for (field, name) in overrides.sorted(by: { $0.key < $1.key }) {
            guard fields.contains(where: { $0.0 == field }) else {
                throw Malformed(
                    description:
                        "the \(format.rawValue) format has no field '\(field)' (its fields: \(fields.map(\.0).joined(separator: ", ")))"
                )
            }
            guard names.contains(Self.normalized(name)) else {
                throw Malformed(description: "no column '\(name)' in the header row (named for '\(field)')")
            }
        }
        var indexes: [String: Int] = [:]
        for (field, candidates) in fields {
            if let index = column(field, candidates) { indexes[field] = index }
        }
        for field in Self.required(format) where indexes[field] == nil {
            let names = (overrides[field].map { [$0] } ?? fields.first { $0.0 == field }?.1 ?? []).joined(
                separator: ", "
            )
            throw Malformed(
                description: "no column for '\(field)' (looked for: \(names); name one with --column \(field)=NAME)"
            )
        }
        return table.dropFirst().enumerated().compactMap { offset, cells in
            guard cells.contains(where: { !$0.isEmpty }) else { return nil }  // a blank line
            func value(_ field: String) -> String? {
                guard let index = indexes[field], index < cells.count else { return nil }
                let text = cells[index].trimmingCharacters(in: .whitespaces)
                return text.isEmpty ? nil : text
            }
            return row(line: offset + 2, format: format, value)
        }
    }

    private func row(line: Int, format: Format, _ value: (String) -> String?) -> Row {
        var problems: [String] = []
        var link: SmartLink
        switch format {
        case .csv:
            guard let code = value("code"), let route = value("route") else {
                return Row(line: line, code: value("code"), link: nil, problems: ["code and route are required"])
            }
            link = SmartLink(code: code, route: route)
            link.destinations = .init(
                ios: value("ios"),
                ipad: value("ipad"),
                android: value("android"),
                desktop: value("desktop"),
                fallback: value("fallback")
            )
        case .fdl:
            guard let short = value("short"), let code = Self.lastSegment(short) else {
                return Row(line: line, code: nil, link: nil, problems: ["short link: missing, or without a code"])
            }
            guard let long = value("long"),
                let parts = try? URLParts(parsing: long, limits: SmartLinkValidator.destinationLimits)
            else {
                return Row(line: line, code: code, link: nil, problems: ["long link: missing, or not a URL"])
            }
            var items: [String: String] = [:]
            _ = URLParts.rewritingItems(parts.query ?? "") { name, pair in
                if let name, let equals = pair.firstIndex(of: "="),
                    let decoded = try? PercentEncoding.decode(pair[pair.index(after: equals)...])
                {
                    items[name] = decoded
                }
                return nil
            }
            guard let target = items["link"] else {
                return Row(line: line, code: code, link: nil, problems: ["long link: no 'link' parameter"])
            }
            switch route(of: target) {
            case .success(let route): link = SmartLink(code: code, route: route)
            case .failure(let problem): return Row(line: line, code: code, link: nil, problems: [problem.description])
            }
            if let bundle = items["ibi"] {
                guard let app = policy.apps.first(where: { $0.bundleID == bundle }) else {
                    return Row(line: line, code: code, link: nil, problems: ["ibi: \(bundle) is not a configured app"])
                }
                if app.bundleID != policy.primary.bundleID { link.app = app.bundleID }
                if let store = items["isi"], store != app.appStoreID {
                    problems.append("isi: \(store) is not the App Store ID of \(bundle)")
                }
            }
            link.destinations = .init(
                ios: items["ifl"],
                ipad: items["ipfl"],
                android: items["afl"],
                desktop: items["ofl"],
                fallback: target
            )
            link.preview = .init(title: items["st"], description: items["sd"], image: items["si"])
        case .dub, .bitly, .shlink:
            guard let code = value("code").flatMap({ format == .bitly ? Self.lastSegment($0) : $0 }) else {
                return Row(line: line, code: nil, link: nil, problems: ["no short code"])
            }
            guard let url = value("url") else {
                return Row(line: line, code: code, link: nil, problems: ["no destination"])
            }
            switch route(of: url) {
            case .success(let route): link = SmartLink(code: code, route: route)
            case .failure(let problem): return Row(line: line, code: code, link: nil, problems: [problem.description])
            }
            link.destinations.fallback = url
        }
        if format != .fdl {
            link.preview = .init(title: value("title"), description: value("description"), image: value("image"))
        }
        problems += policy.validator.problems(link)
        return Row(line: line, code: link.code, link: problems.isEmpty ? link : nil, problems: problems)
    }

    /// The app route of a web URL on one of the app's domains (its path and query).
    private func route(of url: String) -> Result<String, Malformed> {
        guard let parts = try? URLParts(parsing: url, limits: SmartLinkValidator.destinationLimits), parts.isWebURL,
            let host = parts.host
        else { return .failure(Malformed(description: "\(url): not an http(s) URL")) }
        guard policy.apps.contains(where: { $0.domains.contains(host) }) else {
            return .failure(
                Malformed(
                    description:
                        "\(host) is not a domain of the app: a smart link opens a route of the app (import it with the csv format and a route)"
                )
            )
        }
        return .success((parts.path.isEmpty ? "/" : parts.path) + (parts.query.map { "?" + $0 } ?? ""))
    }

    /// The code of a short link: its last path segment (`https://example.page.link/abc` → `abc`); a text that
    /// is no URL is the code itself.
    static func lastSegment(_ text: String) -> String? {
        guard text.contains("/") else { return text }
        guard let parts = try? URLParts(parsing: text, limits: SmartLinkValidator.destinationLimits) else { return nil }
        return parts.path.split(separator: "/").last.map(String.init)
    }

    /// Each field with the header names it is looked for under, normalized.
    static func fields(_ format: Format) -> [(String, [String])] {
        let preview: [(String, [String])] = [
            ("title", ["title"]), ("description", ["description"]), ("image", ["image"]),
        ]
        switch format {
        case .csv:
            return [
                ("code", ["code"]), ("route", ["route"]), ("fallback", ["fallback", "url"]), ("ios", ["ios"]),
                ("ipad", ["ipad"]), ("android", ["android"]), ("desktop", ["desktop"]),
            ] + preview
        case .fdl:
            return [
                ("short", ["shortlink", "shortdynamiclink", "short"]),
                ("long", ["longlink", "longdynamiclink", "long"]),
            ]
        case .dub:
            return [("code", ["key", "slug", "shortkey"]), ("url", ["url", "destinationurl", "longurl"])] + preview
        case .bitly:
            return [("code", ["link", "bitlink", "shortlink", "customlink"]), ("url", ["longurl", "url"])] + preview
        case .shlink:
            return [("code", ["shortcode", "slug"]), ("url", ["longurl", "url"])] + preview
        }
    }

    static func required(_ format: Format) -> [String] {
        switch format {
        case .csv: ["code", "route"]
        case .fdl: ["short", "long"]
        case .dub, .bitly, .shlink: ["code", "url"]
        }
    }

    static func normalized(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) })
    }

    /// The most rows (header included), columns and bytes of a cell an import reads: more than any export of the
    /// services it reads writes, and few enough that a crafted file (8 MiB of commas) is refused as it is read,
    /// before it costs memory.
    static let maxRows = 100_000
    static let maxColumns = 100
    static let maxCellBytes = 16_384

    /// RFC 4180 CSV: fields separated by commas, quoted with `"` (a quote doubled inside), lines ended by CRLF or
    /// LF; a byte-order mark is ignored. Refuses a file over ``maxRows``, ``maxColumns`` or ``maxCellBytes``.
    static func parseCSV(_ text: String) throws(Malformed) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var fieldBytes = 0
        var quoted = false
        var line = 1
        var characters = text.unicodeScalars.makeIterator()
        var pending = characters.next()
        if pending == "\u{FEFF}" { pending = characters.next() }
        func endField() throws(Malformed) {
            guard row.count < maxColumns else {
                throw Malformed(description: "line \(line): more than \(maxColumns) columns")
            }
            row.append(field)
            field = ""
            fieldBytes = 0
        }
        func endRow() throws(Malformed) {
            try endField()
            guard rows.count < maxRows else {
                throw Malformed(description: "more than \(maxRows) rows: split the file and import each part")
            }
            rows.append(row)
            row = []
        }
        while let character = pending {
            pending = characters.next()
            fieldBytes += 1
            guard fieldBytes <= maxCellBytes else {
                throw Malformed(description: "line \(line): a cell is longer than \(maxCellBytes) characters")
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
        if quoted { throw Malformed(description: "line \(line): a quoted field is not closed") }
        if !field.isEmpty || !row.isEmpty { try endRow() }
        return rows
    }
}
