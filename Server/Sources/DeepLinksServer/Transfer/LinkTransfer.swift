import DeepLinksJSON
import Foundation
import Hummingbird

/// Links in and out as files: imports (``LinkImport``: this server's CSV and other services' exports) and the
/// export (``LinkExport``), with the bounds they run under. The API (``LinksAPIController``) and the console call the
/// same service.
struct LinkTransfer: Sendable {
    let store: LinkStore
    let policy: LinkPolicy
    /// Imports reading and writing at once, on this server (API and console alike): each holds a file of up to
    /// ``maxImportSize`` and its links; one more answers 503 with `Retry-After`.
    let imports = InFlightGate(limit: 2)

    /// The largest export `POST /v1/links/import` reads: about 40,000 rows of a shortener's CSV.
    static let maxImportSize = 8 << 20

    /// What became of each row of an import.
    struct ImportReport {
        var entries: [(line: Int, code: String?, status: String, problems: [String])] = []
        /// Codes already links, when the import was to fail on them (nothing was written).
        var taken: [String] = []
        /// The format the rows were read as (told from the header when the request said `auto`).
        var format: LinkImport.Format?

        /// How many rows ended with each status.
        var counts: [String: Int] { entries.reduce(into: [:]) { $0[$1.status, default: 0] += 1 } }

        /// The report as `POST /v1/links/import` answers it: the counts (`valid` on a dry run), the codes taken
        /// when the import was to fail on them, and every row.
        func answer(dryRun: Bool) -> Answer {
            let counts = counts
            return Answer(
                dryRun: dryRun,
                format: format?.rawValue,
                imported: counts["imported"] ?? 0,
                replaced: counts["replaced"] ?? 0,
                skipped: counts["skipped"] ?? 0,
                refused: counts["refused"] ?? 0,
                valid: dryRun ? counts["valid"] ?? 0 : nil,
                error: taken.isEmpty ? nil : APIError.Code.codeTaken.rawValue,
                taken: taken.isEmpty ? nil : taken,
                rows: entries.map {
                    .init(
                        line: $0.line,
                        code: $0.code,
                        status: $0.status,
                        problems: $0.problems.isEmpty ? nil : $0.problems
                    )
                }
            )
        }

        struct Answer: Encodable {
            struct Row: Encodable {
                let line: Int
                let code: String?
                let status: String
                let problems: [String]?
            }
            let dryRun: Bool
            let format: String?
            let imported: Int
            let replaced: Int
            let skipped: Int
            let refused: Int
            let valid: Int?
            let error: String?
            let taken: [String]?
            let rows: [Row]
        }
    }

    /// Writes the valid rows in one transaction, all or nothing (none on a dry run), after refusing a code that
    /// repeats an earlier valid row's (the first row of a code that imports wins; a refused or skipped row claims
    /// nothing); with `fail`, writes nothing when any code is taken. A failure midway (a full disk, the database
    /// gone, the process killed) leaves no link, change or webhook event of the file: the retry starts clean.
    func importing(
        _ read: (format: LinkImport.Format, rows: [LinkImport.Row]),
        conflict: LinkImport.Conflict,
        dryRun: Bool
    ) async throws -> ImportReport {
        var report = ImportReport()
        report.format = read.format
        var seen: [String: Int] = [:]
        var valid: [(index: Int, link: SmartLink)] = []
        for row in read.rows {
            if let link = row.link, let first = seen[link.code] {
                report.entries.append((row.line, link.code, "refused", ["the code repeats line \(first)"]))
                continue
            }
            if let reason = row.skipped {
                report.entries.append((row.line, row.code, "skipped", [reason]))
                continue
            }
            guard let link = row.link else {
                report.entries.append((row.line, row.code, "refused", row.problems))
                continue
            }
            seen[link.code] = row.line
            valid.append((report.entries.count, link))
            report.entries.append((row.line, link.code, dryRun ? "valid" : "imported", []))
        }
        let taken = try await store.existing(valid.map(\.link.code))
        if conflict == .fail, !taken.isEmpty {
            report.taken = taken.sorted()
            for (index, link) in valid { report.entries[index].status = taken.contains(link.code) ? "taken" : "valid" }
            return report
        }
        if dryRun {
            for (index, link) in valid where taken.contains(link.code) {
                report.entries[index].status = conflict == .replace ? "replaced" : "skipped"
            }
            return report
        }
        let outcomes = try await store.importAll(valid.map(\.link), replacing: conflict == .replace)
        for ((index, _), outcome) in zip(valid, outcomes) { report.entries[index].status = outcome.rawValue }
        return report
    }

    /// Reads `text` as `format` (``LinkImport``) and imports its rows; throws ``LinkImportError`` when the file
    /// cannot be read as that format.
    func importFile(
        _ text: String,
        format: LinkImport.Format,
        columns: [String: String],
        conflict: LinkImport.Conflict,
        dryRun: Bool
    ) async throws -> ImportReport {
        let read = try LinkImport(policy: policy).rows(text, format: format, columns: columns)
        return try await importing(read, conflict: conflict, dryRun: dryRun)
    }

    /// Every link, in code order, as ``LinkExport`` writes it (read from the database a thousand at a time).
    func exportCSV() async throws -> String {
        var links: [SmartLink] = []
        while true {
            let page = try await store.list(after: links.last?.code, limit: 1_000)
            links += page
            if page.count < 1_000 { return LinkExport.csv(links) }
        }
    }

    /// A CSV file to download, named for the server's link domain.
    static func csvFile(_ text: String, name: String = "links.csv") -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8", .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"\(name)\"",
            ],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }
}
