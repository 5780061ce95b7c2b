import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs the built `deeplinks` binary, as a user would, and captures what it prints.
struct CommandRunner {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `deeplinks` binary beside the test bundle (`swift build` puts both in the same folder).
    static let binary: URL = {
        let bundleFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for folder in [bundleFolder, bundleFolder.deletingLastPathComponent()] {
            let candidate = folder.appendingPathComponent("deeplinks")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return bundleFolder.appendingPathComponent("deeplinks")
    }()

    /// The demo app's configuration, which commands run on unless a test gives its own.
    static let demoConfiguration = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/demo-app.json").path

    /// Runs a command to its end and returns what it printed. Its output goes to files, not pipes: a command that
    /// writes more than a pipe holds to one stream cannot block on it while this waits on the other, and no read can
    /// be interrupted by a signal (corelibs Foundation's `readDataToEndOfFile()` traps on `EINTR`). A command still
    /// running after `timeout` is killed and reported, so a hung command fails its test instead of the whole run.
    static func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        in folder: URL? = nil,
        demo: Bool = true,
        input: String? = nil,
        timeout: Duration = .seconds(120)
    ) throws -> Output {
        let outputs = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: outputs) }
        let stdoutFile = outputs.appendingPathComponent("stdout")
        let stderrFile = outputs.appendingPathComponent("stderr")
        let process = try start(
            arguments,
            environment: environment,
            in: folder,
            demo: demo,
            input: input,
            writingTo: (stdoutFile, stderrFile)
        )
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw TimedOut(arguments: arguments, timeout: timeout)
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return Output(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: stdoutFile), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: stderrFile), as: UTF8.self)
        )
    }

    struct TimedOut: Error, CustomStringConvertible {
        var arguments: [String]
        var timeout: Duration
        var description: String { "`deeplinks \(arguments.joined(separator: " "))` still ran after \(timeout): killed" }
    }

    /// ``run(_:environment:in:demo:)`` on a thread of its own, so that a test waiting for commands does not hold a
    /// thread of the concurrency pool (tests beside it, timing a network timeout, would wait for it).
    static func runAside(
        _ arguments: [String],
        environment: [String: String] = [:],
        in folder: URL? = nil,
        demo: Bool = true
    ) async throws -> Output {
        try await onThread { try run(arguments, environment: environment, in: folder, demo: demo) }
    }

    /// Runs `body` on a thread of its own and waits for it without holding a concurrency thread.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Starts a command left running (a server) in `folder`: its standard output and error go to files there, which
    /// `log` reads as they grow. A file never fills up as a pipe nobody drains does (a server that logs more than 64
    /// KiB to a pipe blocks on its next line, and stops answering).
    static func startInBackground(
        _ arguments: [String],
        environment: [String: String] = [:],
        in folder: URL
    ) throws -> (process: Process, log: LineCollector) {
        let stderrFile = folder.appendingPathComponent("deeplinks.stderr")
        let process = try start(
            arguments,
            environment: environment,
            in: folder,
            writingTo: (folder.appendingPathComponent("deeplinks.stdout"), stderrFile)
        )
        return (process, LineCollector(file: stderrFile))
    }

    /// Starts a command with its standard output and error going to two files (made empty).
    /// - Parameters:
    ///   - demo: set `DEEPLINKS_CONFIG` to the demo app's configuration (a flag or `environment` wins).
    ///   - input: written to the command's standard input, which is then closed.
    private static func start(
        _ arguments: [String],
        environment: [String: String],
        in folder: URL?,
        demo: Bool = true,
        input: String? = nil,
        writingTo files: (stdout: URL, stderr: URL)
    ) throws -> Process {
        for file in [files.stdout, files.stderr] { FileManager.default.createFile(atPath: file.path, contents: nil) }
        let stdout = try FileHandle(forWritingTo: files.stdout)
        let stderr = try FileHandle(forWritingTo: files.stderr)
        defer {
            try? stdout.close()
            try? stderr.close()
        }
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DEEPLINKS_") }
        if demo { env["DEEPLINKS_CONFIG"] = demoConfiguration }
        env.merge(environment) { $1 }
        process.environment = env
        process.currentDirectoryURL = folder
        process.standardOutput = stdout
        process.standardError = stderr
        let stdin = input.map { _ in Pipe() }
        if let stdin { process.standardInput = stdin }
        // corelibs Foundation's Process.run() copies the environment and file actions without a lock of its own:
        // two started at once from two threads can crash in it (a memcpy of a freed buffer, seen in this suite).
        try launching.withLock { try process.run() }
        if let stdin, let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        return process
    }

    /// One process launched at a time.
    private static let launching = NSLock()

    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("deeplinks-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}

/// What a command left running has written to a file so far, and a way to wait for a given line.
struct LineCollector: Sendable {
    let file: URL

    var contents: String { String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self) }

    /// Waits (up to `timeout`) until a line contains `marker`, and returns that line.
    func waitForLine(containing marker: String, timeout: Duration = .seconds(30)) async throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            // Whole lines only: the last one may still be being written.
            let lines = contents.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            if let line = lines.first(where: { $0.contains(marker) }) {
                return String(line)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }
}
