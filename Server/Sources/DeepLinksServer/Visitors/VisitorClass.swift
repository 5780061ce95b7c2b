import DeepLinksJSON
import Foundation

/// Who a click came from, as the counts keep it apart: a person, a mail security scanner opening every link of a
/// message (``ScannerList``), or a link-preview fetcher (``ClientPlatform/previewBot``). Scanners are checked
/// first: Microsoft's Safe Links sends a browser's agent from its own addresses.
package enum VisitorClass: String, Sendable, CaseIterable, Codable {
    case people, scanners, previews
}

/// The mail security scanners (`scanners.json`, compiled in): each by the tokens of its agent, the networks it
/// sends from, and whether it sends no agent at all; with the evidence for each, which docs/analytics.md lists.
package struct ScannerList: Sendable {
    struct Scanner: Decodable, Sendable {
        let name: String
        let agents: [String]
        let networks: [String]
        let emptyAgent: Bool?
        let evidence: [String]
    }

    struct File: Decodable {
        let scanners: [Scanner]
    }

    let scanners: [Scanner]
    private let tokens: [(name: String, bytes: [UInt8])]
    private let networks: [(name: String, network: IPNetwork)]
    private let blankAgent: String?

    init(json: [UInt8]) throws {
        scanners = try JSONDecoder().decode(File.self, from: Data(json)).scanners
        tokens = scanners.flatMap { scanner in scanner.agents.map { (scanner.name, Array($0.lowercased().utf8)) } }
        networks = try scanners.flatMap { scanner in
            try scanner.networks.map { (scanner.name, try IPNetwork(parsing: $0)) }
        }
        blankAgent = scanners.first { $0.emptyAgent == true }?.name
    }

    // The file is part of the binary, and a test reads it: it cannot fail to decode in a build that passed.
    // swift-format-ignore: NeverUseForceTry
    static let builtIn = try! ScannerList(json: PackageResources.scanners_json)

    /// The scanner an agent names (or a blank agent is), if any.
    func scanner(agent: AgentText) -> String? {
        if agent.bytes.isEmpty { return blankAgent }
        return tokens.first { agent.has($0.bytes) }?.name
    }

    /// The scanner whose published networks hold `address`, if any.
    func scanner(address: IPAddress) -> String? {
        networks.first { $0.network.contains(address) }?.name
    }
}
