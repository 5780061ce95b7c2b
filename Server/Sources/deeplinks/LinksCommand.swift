import ArgumentParser
import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// `deeplinks links import FILE` and `deeplinks links export`: a running server's links, to and from CSV.
struct LinksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "links",
        abstract: "Import or export a running server's smart links.",
        subcommands: [Import.self, Export.self]
    )

    /// The server to talk to: `--server`, else `DEEPLINKS_SERVER_URL`, else a server on this machine; said where it
    /// came from when it cannot be reached.
    struct Target: ParsableArguments {
        @Option(name: Setting.serverURL.name, help: Setting.serverURL.argumentHelp)
        var server: String?

        var address: (url: String, from: String) {
            if let server { return (server, "--server") }
            if let url = ProcessInfo.processInfo.environment[Setting.serverURL.environment], !url.isEmpty {
                return (url, "DEEPLINKS_SERVER_URL")
            }
            return ("http://127.0.0.1:8080", "the default; set --server or DEEPLINKS_SERVER_URL")
        }

        /// `path` on the server, with `query`.
        func url(_ path: String, _ query: [URLQueryItem] = []) throws -> String {
            let base = address.url
            var components = URLComponents(string: base.hasSuffix("/") ? String(base.dropLast()) : base)
            components?.path += path
            if !query.isEmpty { components?.queryItems = query }
            guard let url = components?.string, components?.host != nil else {
                throw unable("\(base) (\(address.from)) is not a server's address")
            }
            return url
        }

        /// The key a request carries: `DEEPLINKS_ADMIN_KEY` (the admin key or a `dlk_` key of the role needed).
        func key() throws -> String {
            guard let key = ProcessInfo.processInfo.environment[Setting.adminKey.environment], !key.isEmpty else {
                throw unable("DEEPLINKS_ADMIN_KEY is not set: the import needs the server's admin key")
            }
            return key
        }

        /// Sends one request: the status and the body, or exit 2 naming the server when it cannot be reached.
        func send(_ method: HTTPMethod, _ url: String, body: [UInt8]? = nil) async throws -> (Int, Data) {
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            var request = HTTPClientRequest(url: url)
            request.method = method
            request.headers.add(name: "Authorization", value: "Bearer \(try key())")
            if let body {
                request.headers.add(name: "Content-Type", value: "text/csv")
                request.body = .bytes(ByteBuffer(bytes: body))
            }
            do {
                let response = try await client.execute(request, timeout: .seconds(600))
                let data = try await response.body.collect(upTo: 256 << 20)
                try? await client.shutdown()
                return (Int(response.status.code), Data(data.readableBytesView))
            } catch {
                try? await client.shutdown()
                throw unable("cannot reach \(address.url) (\(address.from)): \(error)")
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Import a CSV export (this server's, Firebase Dynamic Links' Takeout, dub's, Bitly's or Shlink's), codes kept.",
            discussion: """
                The format is told from the header row unless --format names it. The file is sent in batches of \
                --batch-size rows, each reported; an interrupted import, run again, goes on after the last batch \
                that finished (FILE.import-progress remembers it; --restart sends every batch again). The key is read \
                from DEEPLINKS_ADMIN_KEY (the admin key, or an editor's dlk_ key). Exit status: 0 when every row was \
                imported or skipped (or, with --dry-run, would be), 1 when a row was refused or, with --on-conflict \
                fail, a code is taken (then that batch writes nothing), 2 when the import could not run.
                """
        )

        @Argument(help: "The CSV file, with a header row.") var file: String
        @Option(help: "auto (from the header row), csv, fdl, dub, bitly or shlink.") var format = "auto"
        @Option(name: .customLong("on-conflict"), help: "A code that is already a link: skip, replace or fail.")
        var onConflict = "skip"
        @Flag(name: .customLong("dry-run"), help: "Check every row; write nothing.") var dryRun = false
        @Option(name: .customLong("column"), help: "FIELD=NAME: read FIELD from the column NAME (repeatable).")
        var columns: [String] = []
        @Option(name: .customLong("batch-size"), help: "Rows sent per request (1 to 50000).") var batchSize = 5_000
        @Flag(help: "Send every batch again, even those an interrupted run finished.") var restart = false
        @OptionGroup var target: Target
        @Flag(help: "Print the report as JSON.") var json = false

        func run() async throws {
            _ = try target.key()
            guard (1...50_000).contains(batchSize) else { throw unable("--batch-size is 1 to 50000 rows") }
            guard let data = FileManager.default.contents(atPath: file) else { throw unable("cannot read \(file)") }
            guard let text = String(data: data, encoding: .utf8) else {
                throw unable("\(file) is not UTF-8 text: export it as UTF-8 CSV")
            }
            var query = [
                URLQueryItem(name: "format", value: format), URLQueryItem(name: "onConflict", value: onConflict),
                URLQueryItem(name: "dryRun", value: dryRun ? "true" : "false"),
            ]
            for column in columns {
                let pair = column.split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else { throw unable("--column \(column): use FIELD=NAME") }
                query.append(URLQueryItem(name: "column.\(pair[0])", value: String(pair[1])))
            }
            let url = try target.url("/v1/links/import", query)
            let records = Self.records(text)
            guard let header = records.first else { throw unable("\(file) is empty: a header row is needed") }
            let rows = Array(records.dropFirst())

            // Where an interrupted run stopped: the rows already sent, for this very file.
            let progress = URL(fileURLWithPath: file + ".import-progress")
            let digest = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
            var start = 0
            if !dryRun, !restart, let saved = try? JSONSerialization.jsonObject(with: Data(contentsOf: progress)),
                let object = saved as? [String: Any], object["sha256"] as? String == digest,
                let done = object["rows"] as? Int, done <= rows.count
            {
                start = done
                if !json {
                    print("going on after row \(done + 1) of \(rows.count): an earlier run sent the rows before")
                }
            }

            var totals: [String: Int] = [:]
            var allRows: [[String: Any]] = []
            var chosen: String?
            var failed = false
            for first in stride(from: start, to: max(rows.count, start + 1), by: batchSize) where first < rows.count {
                let batch = rows[first..<min(first + batchSize, rows.count)]
                let body = Array(([header] + batch).joined(separator: "\n").utf8) + [10]
                let (status, answer) = try await target.send(.POST, url, body: body)
                let report = (try? JSONSerialization.jsonObject(with: answer) as? [String: Any]) ?? [:]
                guard status == 200 || status == 409 else {
                    let reason = report["reason"] as? String ?? report["error"] as? String ?? "status \(status)"
                    throw unable("the server refused the import: \(reason)")
                }
                chosen = chosen ?? report["format"] as? String
                // The server numbers each batch's rows from line 2: back to the file's lines.
                for var row in report["rows"] as? [[String: Any]] ?? [] {
                    row["line"] = (row["line"] as? Int ?? 2) + first
                    allRows.append(row)
                    if !json { Self.printRow(row) }
                }
                let statuses = ["imported", "replaced", "skipped", "refused", "valid"]
                for status in statuses { totals[status, default: 0] += report[status] as? Int ?? 0 }
                if status == 409 || (report["refused"] as? Int ?? 0) > 0 { failed = true }
                if !json, rows.count > batchSize {
                    let counts = statuses.compactMap { name in (report[name] as? Int).map { "\($0) \(name)" } }
                    print("batch of rows \(first + 1)-\(first + batch.count): \(counts.joined(separator: ", "))")
                }
                if status == 409 { break }
                if !dryRun {
                    let saved = ["sha256": digest, "rows": first + batch.count] as [String: Any]
                    try? JSONSerialization.data(withJSONObject: saved).write(to: progress)
                }
            }
            if !dryRun, !failed { try? FileManager.default.removeItem(at: progress) }
            if json {
                var report: [String: Any] = totals
                report["rows"] = allRows
                report["dryRun"] = dryRun
                if let chosen { report["format"] = chosen }
                printJSON(report)
            } else {
                let statuses = ["imported", "replaced", "skipped", "refused"] + (dryRun ? ["valid"] : [])
                let counts = statuses.map { "\(totals[$0] ?? 0) \($0)" }
                print(
                    counts.joined(separator: ", ") + (dryRun ? " (dry run: nothing written)" : "")
                        + (chosen.map { "; read as \($0)" } ?? "")
                )
            }
            if failed { throw ExitCode.failure }
        }

        static func printRow(_ row: [String: Any]) {
            let problems = (row["problems"] as? [String] ?? []).joined(separator: "; ")
            print(
                "line \(row["line"] as? Int ?? 0)\t\(row["code"] as? String ?? "-")\t\(row["status"] as? String ?? "")"
                    + (problems.isEmpty ? "" : ": \(problems)")
            )
        }

        /// The file's records as written (a quoted field may hold line breaks), without their line ends: each batch
        /// is the header and whole records, so the server reads every row as it would in one file.
        static func records(_ text: String) -> [Substring] {
            var records: [Substring] = []
            var quoted = false
            var start = text.hasPrefix("\u{FEFF}") ? text.index(after: text.startIndex) : text.startIndex
            var index = start
            while index < text.endIndex {
                let character = text[index]
                if character == "\"" {
                    quoted.toggle()
                } else if !quoted, character == "\n" || character == "\r\n" || character == "\r" {
                    records.append(text[start..<index])
                    start = text.index(after: index)
                }
                index = text.index(after: index)
            }
            if start < text.endIndex { records.append(text[start...]) }
            return records.filter { !$0.isEmpty }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write every link, with all its fields, as this server's CSV (it imports back unchanged).",
            discussion: "The key is read from DEEPLINKS_ADMIN_KEY (the admin key, or a viewer's dlk_ key or above)."
        )

        @Option(name: .shortAndLong, help: "The file to write; standard output without it.") var output: String?
        @OptionGroup var target: Target

        func run() async throws {
            let (status, body) = try await target.send(.GET, try target.url("/v1/links/export"))
            guard status == 200 else {
                let report = (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:]
                throw unable("the server refused the export: \(report["error"] as? String ?? "status \(status)")")
            }
            if let output {
                do {
                    try body.write(to: URL(fileURLWithPath: output))
                } catch {
                    throw unable("cannot write \(output): \(error.localizedDescription)")
                }
            } else {
                FileHandle.standardOutput.write(body)
            }
        }
    }
}

/// Exit status 2, the reason on standard error: the command could not do its work at all.
private func unable(_ reason: String) -> any Error {
    FileHandle.standardError.write(Data("error: \(reason)\n".utf8))
    return ExitCode(2)
}
