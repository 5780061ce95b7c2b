import ArgumentParser
import DeepLinksServer
import DeepLinksStorage
import Foundation

/// Prints one JSON object on one line, keys sorted: the `--json` output of every command. The object holds
/// strings, numbers, booleans, arrays and dictionaries only, so serialization cannot fail.
func printJSON(_ object: Any) {
    let data =
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
        ?? Data("{}".utf8)
    print(String(decoding: data, as: UTF8.self))
}

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
