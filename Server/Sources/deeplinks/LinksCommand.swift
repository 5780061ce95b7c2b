import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// `deeplinks links import FILE`: another system's export sent to a running server's `POST /v1/links/import`,
/// which checks every row as it checks an API create; prints what became of each row.
struct LinksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "links",
        abstract: "Manage a running server's smart links.",
        subcommands: [Import.self]
    )

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Import a CSV export (this server's, Firebase Dynamic Links', dub's, Bitly's or Shlink's), codes kept.",
            discussion: """
                The admin key is read from DEEPLINKS_ADMIN_KEY. Exit status: 0 when every row was imported (or, with \
                --dry-run, would be), 1 when a row was refused or, with --on-conflict fail, a code is taken (then \
                nothing is written), 2 when the import could not run.
                """
        )

        @Argument(help: "The CSV file, with a header row.") var file: String
        @Option(help: "csv, fdl, dub, bitly or shlink.") var format = "csv"
        @Option(name: .customLong("on-conflict"), help: "A code that is already a link: skip, replace or fail.")
        var onConflict = "skip"
        @Flag(name: .customLong("dry-run"), help: "Check every row; write nothing.") var dryRun = false
        @Option(name: .customLong("column"), help: "FIELD=NAME: read FIELD from the column NAME (repeatable).")
        var columns: [String] = []
        @Option(help: "The server's address.") var server = "http://127.0.0.1:8080"
        @Flag(help: "Print the server's report as JSON.") var json = false

        func run() async throws {
            guard let key = ProcessInfo.processInfo.environment["DEEPLINKS_ADMIN_KEY"], !key.isEmpty else {
                throw Self.unable("DEEPLINKS_ADMIN_KEY is not set: the import needs the server's admin key")
            }
            guard let body = FileManager.default.contents(atPath: file) else {
                throw Self.unable("cannot read \(file)")
            }
            var query = [
                URLQueryItem(name: "format", value: format), URLQueryItem(name: "onConflict", value: onConflict),
                URLQueryItem(name: "dryRun", value: dryRun ? "true" : "false"),
            ]
            for column in columns {
                let pair = column.split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else { throw Self.unable("--column \(column): use FIELD=NAME") }
                query.append(URLQueryItem(name: "column.\(pair[0])", value: String(pair[1])))
            }
            var address = URLComponents(string: server.hasSuffix("/") ? String(server.dropLast()) : server)
            address?.path += "/v1/links/import"
            address?.queryItems = query
            guard let url = address?.string else { throw Self.unable("--server \(server): not a URL") }

            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            let (status, report): (Int, [String: Any])
            do {
                var request = HTTPClientRequest(url: url)
                request.method = .POST
                request.headers.add(name: "Authorization", value: "Bearer \(key)")
                request.headers.add(name: "Content-Type", value: "text/csv")
                request.body = .bytes(ByteBuffer(bytes: body))
                let response = try await client.execute(request, timeout: .seconds(300))
                let data = try await response.body.collect(upTo: 64 << 20)
                status = Int(response.status.code)
                report =
                    (try? JSONSerialization.jsonObject(with: Data(data.readableBytesView)) as? [String: Any]) ?? [:]
            } catch {
                try? await client.shutdown()
                throw Self.unable("cannot reach \(server): \(error)")
            }
            try? await client.shutdown()
            guard status == 200 || status == 409 else {
                let reason = report["reason"] as? String ?? report["error"] as? String ?? "status \(status)"
                throw Self.unable("the server refused the import: \(reason)")
            }
            if json {
                printJSON(report)
            } else {
                for row in report["rows"] as? [[String: Any]] ?? [] {
                    let problems = (row["problems"] as? [String] ?? []).joined(separator: "; ")
                    print(
                        "line \(row["line"] as? Int ?? 0)\t\(row["code"] as? String ?? "-")\t\(row["status"] as? String ?? "")"
                            + (problems.isEmpty ? "" : ": \(problems)")
                    )
                }
                let statuses = ["imported", "replaced", "skipped", "refused"] + (dryRun ? ["valid"] : [])
                let counts = statuses.map { "\(report[$0] as? Int ?? 0) \($0)" }
                let taken = (report["taken"] as? [String]).map {
                    "; taken, so nothing written: \($0.joined(separator: ", "))"
                }
                print(counts.joined(separator: ", ") + (dryRun ? " (dry run: nothing written)" : "") + (taken ?? ""))
            }
            if status == 409 || (report["refused"] as? Int ?? 0) > 0 { throw ExitCode.failure }
        }

        static func unable(_ reason: String) -> any Error {
            FileHandle.standardError.write(Data("error: \(reason)\n".utf8))
            return ExitCode(2)
        }
    }
}
