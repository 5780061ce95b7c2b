import Foundation

/// zbar's `zbarimg` (Debian's zbar-tools), a QR decoder nobody on the project wrote: the QR tests read their symbols
/// back with it.
public enum ZBar {
    /// Each file's decoded text in zbarimg's XML: `<source href='FILE'>` ... `<data><![CDATA[TEXT]]></data>`.
    public static func decoded(_ xml: String) -> [String: String] {
        var result: [String: String] = [:]
        for source in xml.components(separatedBy: "<source href='").dropFirst() {
            guard let end = source.firstIndex(of: "'"), let start = source.range(of: "<![CDATA["),
                let close = source.range(of: "]]>", range: start.upperBound..<source.endIndex)
            else { continue }
            result[String(source[..<end])] = String(source[start.upperBound..<close.lowerBound])
        }
        return result
    }

    /// Runs `body` on a thread of its own and waits for it without holding a concurrency thread.
    public static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    public static func path() -> String? {
        ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
