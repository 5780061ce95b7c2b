import Foundation
import Testing

/// Compares generated text with a committed file and shows a line diff on mismatch.
/// `DEEPLINKS_UPDATE_GOLDEN=1 swift test --package-path Server` rewrites the files instead.
enum GoldenFile {
    static let serverFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func check(_ actual: String, against relativePath: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let url = serverFolder.appendingPathComponent(relativePath)
        if ProcessInfo.processInfo.environment["DEEPLINKS_UPDATE_GOLDEN"] == "1" {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        guard expected != actual else { return }
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false)
        var diff: [String] = []
        for index in 0..<max(old.count, new.count) {
            let a = index < old.count ? String(old[index]) : nil
            let b = index < new.count ? String(new[index]) : nil
            if a != b {
                if let a { diff.append("- \(index + 1): \(a)") }
                if let b { diff.append("+ \(index + 1): \(b)") }
            }
        }
        Issue.record(
            Comment(
                rawValue: "\(relativePath) differs (DEEPLINKS_UPDATE_GOLDEN=1 to accept):\n"
                    + diff.prefix(40).joined(separator: "\n")
            ),
            sourceLocation: sourceLocation
        )
    }
}
