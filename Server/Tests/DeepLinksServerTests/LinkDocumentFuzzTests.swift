@testable import DeepLinksServer
import DeepLinksJSON
import DeepLinksTesting
import Foundation
import HTTPTypes
import Testing

/// A fuzzer for what a request with an editor's key reaches: the link document (decode, validate, the redirect's
/// rule evaluation for every platform, export) and the import formats (each exporter's CSV, parsed, validated,
/// exported and read back). Seeded mutation from valid documents: numbers at and past the integer bounds,
/// fractions and exponents, strings that are empty, huge, escapes, control and combining characters; keys removed
/// or repeated; bytes flipped. A trap anywhere (overflow, a force unwrap, an index out of range, a conversion of
/// input) stops the test process, and so fails the run; a thrown error is an answer, as it is to a client.
///
/// Deterministic (a fixed seed), so a failure repeats: `swift test --package-path Server --filter LinkDocumentFuzz`.
@Suite struct LinkDocumentFuzzTests {
    static let documents = [
        #"{"code":"summer","route":"/post/10","destinations":{"desktop":"https://links.example.com/web/post/10","fallback":"https://links.example.com/"},"preview":{"title":"Summer","description":"Ten"},"passQuery":true,"expiresAt":1900000000000,"expiredURL":"https://shop.example.org/over"}"#,
        LinkRuleTests.campaign,
        #"{"code":"ab","route":"/post/1","rules":[{"name":"ab","when":{"platforms":["iphone","android"],"os":{"min":"17.4","max":"26"},"from":"2026-01-01T00:00:00Z","until":"2027-01-01T00:00:00Z"},"then":{"split":[{"variant":"a","weight":50,"url":"https://shop.example.org/a"},{"variant":"b","weight":50,"route":"/post/2"}]}}]}"#,
        #"{"code":"web-one","destinations":{"fallback":"https://shop.example.org/sale","ios":"https://shop.example.org/i","ipad":"https://shop.example.org/p","android":"https://shop.example.org/a"}}"#,
    ]

    static let files = [
        "code,app,route,ios,ipad,android,desktop,fallback,title,description,image,passQuery,expiresAt,expiredURL,rules\nx1,,/post/1,,,,,https://shop.example.org/,T,D,,true,1900000000000,,\"[{\"\"name\"\":\"\"r\"\",\"\"then\"\":{\"\"split\"\":[{\"\"variant\"\":\"\"a\"\",\"\"weight\"\":50,\"\"url\"\":\"\"https://shop.example.org/a\"\"},{\"\"variant\"\":\"\"b\"\",\"\"weight\"\":50,\"\"store\"\":true}]}}]\"\n",
        "Short link,Deep link (link),Android package name (apn),iOS bundle ID (ibi),iOS app store ID (isi),Desktop fallback link (ofl),Social title (st),Archived?\nhttps://demo.page.link/labels,https://links.example.com/post/20,com.example.demo,com.example.demo,1234567890,https://shop.example.org/20,Twenty,false\n",
        "Short Dynamic Link,Long Dynamic Link,Created\nhttps://demo.page.link/summer,\"https://demo.page.link/?link=https%3A%2F%2Flinks.example.com%2Fpost%2F10&ibi=com.example.demo&isi=1234567890&ofl=https%3A%2F%2Fshop.example.org%2F&st=Summer%20sale\",2023-05-01\n",
        "Short link,Destination URL,Clicks,Created at,Archived\nhttps://dub.sh/spring,https://links.example.com/post/3,10,2024-03-01T00:00:00.000Z,No\n",
        "Bitlink,Title,Long URL,Tags,Created,Total Clicks\nbit.ly/3xYz,'=Post four,https://links.example.com/post/4?ref=mail,,2024-01-01,5\n",
        "\"createdAt\",\"domain\",\"shortCode\",\"shortUrl\",\"longUrl\",\"title\"\n\"2024-01-01T00:00:00+00:00\",\"s.example\",\"pf5\",\"https://s.example/pf5\",\"https://links.example.com/post/5\",\"\"\n",
    ]

    static let numbers = [
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "9223372036854774784", "4611686018427387904", "0", "-1", "1", "99", "100", "50.5", "1e308", "-1e308", "1e-308",
        "1E400", "-0", "0.0", "123456789012345678901234567890", "18446744073709551615",
    ]

    static let strings = [
        "", " ", "\\u0000", "\\n", "\\r\\n", "%", "%zz", "%00", "%FF", "\\u202e", "=\\u200d1+1", "e\\u0301",
        "\\ud83d\\ude00", "9999-12-31T23:59:59Z", "99999-01-01T00:00:00Z", "0000-01-01T00:00:00Z",
        "2026-13-45T25:61:61Z", "999.999.999", "17.", ".4", "/", "//evil.example", "/post/%2F..", "/post/1?a=%",
        "https://links.example.com/summer", "https://shop.example.org/" + String(repeating: "a", count: 3000),
        String(repeating: "x", count: 70), "intent://x#Intent;end", "javascript:alert(1)",
        "https://user:pw@shop.example.org/",
        "https://[::1]:99999/", "https://shop.example.org:0/", "iphone", "bot", "mac-or-ipad", "qr",
    ]

    /// The seeded generator (DeepLinksTesting's SplitMix64, as the QR tests'): the same inputs on every run.
    typealias Generator = SplitMix64

    /// One mutation of a JSON value: a number or string replaced, a key dropped or doubled, an array grown.
    static func mutate(_ value: JSONValue, _ random: inout Generator, depth: Int = 0) -> JSONValue {
        switch value {
        case .object(var object):
            guard let key = object.keys.sorted().randomElement(using: &random) else { return value }
            switch Int.random(in: 0..<10, using: &random) {
            case 0: object[key] = nil
            case 1: object[key] = .null
            case 2: object[key + "s"] = object[key]
            default: object[key] = mutate(object[key]!, &random, depth: depth + 1)
            }
            return .object(object)
        case .array(var array):
            guard !array.isEmpty else { return .array([.null]) }
            let index = Int.random(in: 0..<array.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0: array.remove(at: index)
            case 1: array += Array(repeating: array[index], count: Int.random(in: 1...30, using: &random))
            default: array[index] = mutate(array[index], &random, depth: depth + 1)
            }
            return .array(array)
        case .number:
            return Int.random(in: 0..<4, using: &random) == 0
                ? .string(strings.randomElement(using: &random)!) : .string("NUMBER")
        case .bool, .null:
            return Bool.random(using: &random) ? .string(strings.randomElement(using: &random)!) : .string("NUMBER")
        case .string:
            return Bool.random(using: &random)
                ? .string(strings.randomElement(using: &random)!) : .string("NUMBER")
        }
    }

    /// Every number of the document replaced by the placeholder (weights, times: arithmetic on several at once).
    static func numbersReplaced(_ value: JSONValue) -> JSONValue {
        switch value {
        case .number: .string("NUMBER")
        case .array(let array): .array(array.map(numbersReplaced))
        case .object(let object): .object(object.mapValues(numbersReplaced))
        default: value
        }
    }

    /// The document as text, with `"NUMBER"` placeholders turned into raw numbers (JSONValue holds doubles; the
    /// point is numbers a double cannot hold): one number for all of them half the time, each its own otherwise.
    static func text(_ value: JSONValue, _ random: inout Generator) -> String {
        var text = value.compactJSON
        let same = Bool.random(using: &random) ? numbers.randomElement(using: &random) : nil
        while let range = text.range(of: "\"NUMBER\"") {
            text.replaceSubrange(range, with: same ?? numbers.randomElement(using: &random)!)
        }
        return text
    }

    static func policy() throws -> LinkPolicy {
        var settings = ServerSettings()
        LinkRuleTests.configure(&settings)
        settings.app.android = .init(
            packageName: "com.example.demo",
            sha256CertFingerprints: [SeveralAppsTests.fingerprint]
        )
        return try LinkPolicy(
            settings: settings.smartLinks,
            app: settings.app,
            association: try AssociationFiles(app: settings.app)
        )
    }

    /// Everything a link document reaches once it is decoded: validation, every platform's outcome with a visitor
    /// of each kind, the export and the import of the export.
    static func exercise(_ text: String, _ policy: LinkPolicy) {
        guard let value = try? JSONValue.parse(Data(text.utf8)), case .object(let object) = value,
            let link = try? JSONBody(object: object).decode(SmartLink.self)
        else { return }
        let problems = policy.validator.problems(link)
        for platform in ClientPlatform.allCases {
            _ = policy.outcome(link, platform: platform, now: 1_800_000_000_000) {
                RuleVisitor(
                    platform: platform,
                    agent: AgentText(LinkRuleTests.chromeAndroid),
                    headers: [.acceptLanguage: "de-CH, de;q=0.9", HTTPField.Name("CF-IPCountry")!: "CH"],
                    query: ClickQuery("campaign=spring&invite=VIP+7&a=%zz"),
                    now: 1_800_000_000_000,
                    countryHeader: HTTPField.Name("CF-IPCountry")
                ) {
                    "192.0.2.1"
                } viaTrustedProxy: {
                    true
                }
            }
        }
        let exported = LinkExport.csv([link])
        if problems.isEmpty, let read = try? LinkImport(policy: policy).rows(exported, format: .csv) {
            _ = read.rows.map(\.problems)
        }
    }

    @Test func linkDocumentsNeverTrap() throws {
        let policy = try Self.policy()
        var random = Generator(seed: 0x5EED_0043)
        var decoded = 0
        for round in 0..<2_500 {
            guard var value = try? JSONValue.parse(Data(Self.documents[round % Self.documents.count].utf8)) else {
                Issue.record("a seed is not JSON")
                return
            }
            if (round / Self.documents.count) % 2 == 0 { value = Self.numbersReplaced(value) }
            for _ in 0..<Int.random(in: 1...4, using: &random) { value = Self.mutate(value, &random) }
            let text = Self.text(value, &random)
            Self.exercise(text, policy)
            if (try? JSONValue.parse(Data(text.utf8))) != nil { decoded += 1 }
            // Bytes flipped too: the parser's own error paths.
            var bytes = Array(text.utf8)
            if !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                Self.exercise(String(decoding: bytes, as: UTF8.self), policy)
            }
        }
        #expect(decoded > 1_200, "most mutations are still JSON, so they reach the decoder: \(decoded)")
    }

    @Test func importFilesNeverTrap() throws {
        let policy = try Self.policy()
        var random = Generator(seed: 0x1_4B0_0043)
        var refused = 0
        for round in 0..<3_000 {
            var cells = Self.files[round % Self.files.count].split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let row = Int.random(in: 0..<cells.count, using: &random)
                guard !cells[row].isEmpty else { continue }
                let column = Int.random(in: 0..<cells[row].count, using: &random)
                let replacement =
                    Bool.random(using: &random)
                    ? Self.numbers.randomElement(using: &random)! : Self.strings.randomElement(using: &random)!
                cells[row][column] = ImportFormatTests.cell(
                    replacement.replacingOccurrences(of: "\\n", with: "\n").replacingOccurrences(
                        of: "\\u0000",
                        with: "\0"
                    )
                )
            }
            let file = cells.map { $0.joined(separator: ",") }.joined(separator: "\n")
            for format in LinkImport.Format.allCases {
                guard let read = try? LinkImport(policy: policy).rows(file, format: format) else {
                    refused += 1
                    continue
                }
                let links = read.rows.compactMap(\.link)
                let again = try? LinkImport(policy: policy).rows(LinkExport.csv(links), format: .csv)
                _ = again?.rows.count
            }
        }
        #expect(refused > 0 && refused < 3_000 * LinkImport.Format.allCases.count)
    }
}
