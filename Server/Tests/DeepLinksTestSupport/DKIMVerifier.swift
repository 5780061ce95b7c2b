import Foundation
import Testing

/// dkimpy (PyPI), a DKIM verifier nobody on the project wrote, run on a message with its DNS lookup answered from
/// the signer's own record (`Server/Tests/Support/dkim_verify.py`).
public enum DKIMVerifier {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Support/dkim_verify.py").path

    /// The exit status of the verifier, or nil (with the reason printed) when dkimpy is missing outside CI.
    public static func verify(_ message: String, record: String) throws -> Int32? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dkim-\(UUID().uuidString).eml")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(message.utf8).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, file.path, record]
        process.standardOutput = Pipe()
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus == 3 {
            let reason = "dkimpy or pynacl is not installed (make test installs them)"
            if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record("\(reason), but CI must run it") }
            print("◇ DKIM verification skipped: \(reason)")
            return nil
        }
        return process.terminationStatus
    }
}
