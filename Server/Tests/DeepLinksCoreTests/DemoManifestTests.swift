import DeepLinks
import DemoAppRoutes
import Foundation
import Testing

@Suite struct DemoManifestTests {
    @Test func theCommittedDemoManifestIsTheDemoTables() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let json = String(decoding: try encoder.encode(DemoRoute.table.manifest), as: UTF8.self) + "\n"
        try GoldenFile.check(json, against: "Examples/demo-routes.json")
    }
}
