import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// `deeplinks health`: asks a running server's `/healthz` and exits 0 when it answers 200, 1 otherwise: a
/// container's health check, where no curl is installed (the image holds the binary and little else).
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract:
            "Ask a running server's /healthz: exit 0 when it answers 200, 1 otherwise (a container's health check)."
    )

    @Option(
        help: ArgumentHelp(
            "The server's base address.",
            discussion: "Default: http://127.0.0.1 and the port of DEEPLINKS_PORT (8080)."
        )
    )
    var url: String?

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Int = 5

    func run() async throws {
        let port = ProcessInfo.processInfo.environment[Setting.port.environment].flatMap(Int.init) ?? 8080
        let base = url ?? "http://127.0.0.1:\(port)"
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = client.shutdown() }
        do {
            let response = try await client.execute(
                HTTPClientRequest(url: base + "/healthz"),
                timeout: .seconds(Int64(max(1, min(timeout, 60))))
            )
            let body = try await response.body.collect(upTo: 1 << 16)
            print("\(response.status.code) \(String(buffer: body))")
            if response.status.code != 200 { throw ExitCode.failure }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            FileHandle.standardError.write(Data("error: \(base)/healthz: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }
}
