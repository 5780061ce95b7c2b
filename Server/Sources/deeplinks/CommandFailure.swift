import ArgumentParser
import Foundation

/// Runs a command body; any error ends the process with `error: <one line>` on stderr and exit code 1,
/// never a stack trace.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ExitCode {
        throw error
    } catch {
        let line = String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " ")
        FileHandle.standardError.write(Data("error: \(line)\n".utf8))
        throw ExitCode.failure
    }
}
