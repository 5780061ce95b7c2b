import ArgumentParser
import DeepLinksServer
import Foundation

/// Runs a command body; any error ends the process with `error: <one line>` on stderr and exit code 1,
/// never a stack trace.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ExitCode {
        throw error
    } catch {
        // One line; a driver's error (PostgreSQL's, NIO's) by its reason, not its generic description.
        let line = Database.reason(error)
        FileHandle.standardError.write(Data("error: \(line)\n".utf8))
        throw ExitCode.failure
    }
}
