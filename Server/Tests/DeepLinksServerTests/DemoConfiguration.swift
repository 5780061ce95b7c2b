@testable import DeepLinksServer
import Foundation

/// The server's tests run the demo app of `Server/Examples/demo-app.json`, read as `deeplinks serve --config`
/// reads it: the server itself knows no app but the configured one.
extension AppConfiguration {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples")

    static let demo: AppConfiguration = {
        do {
            return try AppConfiguration.load(path: examples.appendingPathComponent("demo-app.json").path)
        } catch {
            fatalError("Server/Examples/demo-app.json: \(error)")
        }
    }()
}

extension ServerSettings {
    /// Settings for the demo app.
    init() { self.init(app: .demo) }
}
