/// What the analytics keep of a browser, from its agent: the OS with its major version (`iOS 18`, `Android 14`,
/// `Windows`, `macOS`), the browser's family (`Safari`, `Chrome`, `Firefox`, `Edge`...), and the app whose own
/// browser it is, if any. A few dozen values each: never the agent itself.
struct Device: Sendable, Hashable {
    let os: String
    let browser: String
    let inAppBrowser: InAppBrowser?

    init(platform: ClientPlatform, agent: AgentText) {
        inAppBrowser = InAppBrowser(agent: agent)
        os = Self.os(platform: platform, agent: agent)
        browser = inAppBrowser.map { "\($0.rawValue) in-app" } ?? Self.browser(agent)
    }

    static func os(platform: ClientPlatform, agent: AgentText) -> String {
        func major(_ name: String, after token: [UInt8], separator: UInt8) -> String {
            AgentText.version(after: token, in: agent, separator: separator).map { "\(name) \($0.major)" } ?? name
        }
        switch platform {
        case .iPhone, .iPad:
            let name = platform == .iPad ? "iPadOS" : "iOS"
            // Safari's Version/ first: its iPhone OS token is frozen at 18 since iOS 26 (as the `os` rule reads it).
            if agent.has(Self.safari), !agent.has(Self.criOS), !agent.has(Self.fxiOS), !agent.has(Self.edgiOS),
                let version = AgentText.version(after: AgentText.safariVersion, in: agent, separator: 0x2E)
            {
                return "\(name) \(version.major)"
            }
            let token = agent.has(AgentText.iPhoneOS) ? AgentText.iPhoneOS : AgentText.cpuOS
            return major(name, after: token, separator: UInt8(ascii: "_"))
        case .android:
            return agent.has(AgentText.reducedAndroid)
                ? "Android" : major("Android", after: AgentText.android, separator: UInt8(ascii: "."))
        case .previewBot:
            return "other"
        case .desktop, .macOrIPad:
            for (token, name) in Self.desktops where agent.has(token) { return name }
            return "other"
        }
    }

    static func browser(_ agent: AgentText) -> String {
        for (tokens, name) in Self.browsers where tokens.contains(where: agent.has) { return name }
        return "other"
    }

    static let safari = Array("safari/".utf8), criOS = Array("crios/".utf8), fxiOS = Array("fxios/".utf8)
    static let edgiOS = Array("edgios/".utf8)
    static let desktops: [([UInt8], String)] = [
        ("windows", "Windows"), ("cros", "ChromeOS"), ("macintosh", "macOS"), ("mac os x", "macOS"), ("linux", "Linux"),
    ].map { (Array($0.0.utf8), $0.1) }
    /// In order: the first family whose token the agent has (Edge and Opera and Samsung say Chrome too; Chrome says
    /// Safari too).
    static let browsers: [([[UInt8]], String)] = [
        (["edg/", "edga/", "edgios/"], "Edge"), (["opr/", "opios/"], "Opera"),
        (["samsungbrowser/"], "Samsung Internet"),
        (["firefox/", "fxios/"], "Firefox"), (["crios/", "chrome/"], "Chrome"), (["version/", "safari/"], "Safari"),
    ].map { (tokens, name) in (tokens.map { Array($0.utf8) }, name) }
}
