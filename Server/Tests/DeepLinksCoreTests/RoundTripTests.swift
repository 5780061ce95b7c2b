import DeepLinks
import DemoAppRoutes
import Foundation
import PropertyBased
import Testing

/// parse(print(route)) == route, for generated destinations whose values include unicode, `+`, `@`, `/`,
/// `%`, spaces and emoji, in both link forms.
@Suite struct RoundTripTests {
    /// Characters that trip up routers: reserved, encoded-looking, non-ASCII, emoji (with modifiers) and spaces.
    static let tricky: [Character] =
        Array("aZ09-._~+@/%&=?#:;,!$'()*[] é中ß😀👍🏽🇫🇷\u{00A0}") + ["%2B", "a+b"].flatMap { Array($0) }
    static let text = Gen<Character?>.element(of: tricky).map { $0 ?? "a" }.string(of: 1...24)
    static let base64 = Gen<Character?>.element(
        of: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    ).map { $0 ?? "A" }.string(of: 32...64)

    static func destination(kind: Int, a: String, b: String, token: String, tags: [String], number: Int) -> DemoRoute {
        switch kind {
        case 0: .home
        case 1: .post(id: number)
        case 2: .newPost
        case 3: .comments(postID: number)
        case 4: .resetPassword(token: token, email: number.isMultiple(of: 2) ? nil : a + "@" + b)
        case 5: .search(query: a, tags: tags, page: number)
        case 6: .profile(id: UUID())
        case 7: .file(path: ([a, b] + tags).map { $0.replacingOccurrences(of: "/", with: "_") }.joined(separator: "/"))
        default: .settings(tab: SettingsTab.allCases[abs(number) % SettingsTab.allCases.count])
        }
    }

    @Test func everyDestinationParsesBackFromItsPrintedURLInBothForms() async {
        await propertyCheck(
            count: 2000,
            input: Gen.int(in: 0...8),
            Self.text,
            Self.text,
            Self.base64,
            Self.text.array(of: 0...4),
            Gen.int(in: -1_000_000...1_000_000)
        ) { kind, a, b, token, tags, number in
            let table = DemoRoute.table
            let destination = Self.destination(kind: kind, a: a, b: b, token: token, tags: tags, number: number)
            for form in [LinkForm.universalLink(), .customScheme()] {
                if case .profile = destination, case .customScheme = form { continue }  // universal links only
                do {
                    let url = try table.url(for: destination, as: form)
                    #expect(try table.destination(for: url) == destination, "\(url)")
                } catch {
                    Issue.record("\(destination) did not print as \(form): \(error)")
                }
            }
        }
    }

    @Test func printedValuesEncodeEverythingOutsideTheUnreservedSet() async {
        await propertyCheck(count: 1000, input: Self.text) { value in
            let url = try DemoRoute.table.url(for: .search(query: value, tags: [], page: 1), as: .customScheme())
            let query = url.dropFirst("demoapp://search?q=".count).prefix { $0 != "&" }
            #expect(
                query.unicodeScalars.allSatisfy {
                    $0.isASCII
                        && ("A"..."Z" ~= $0 || "a"..."z" ~= $0 || "0"..."9" ~= $0
                            || "-._~%".unicodeScalars.contains($0))
                }
            )
            #expect(!query.contains("+"))
        }
    }

    @Test func theAddressWithPlusAndAtComesBackUnchanged() throws {
        let reset = DemoRoute.resetPassword(token: String(repeating: "A", count: 32), email: "user+tag@example.com")
        let url = try DemoRoute.table.url(for: reset, as: .customScheme())
        #expect(url.hasSuffix("&email=user%2Btag%40example.com"))
        #expect(try DemoRoute.table.destination(for: url) == reset)
    }
}
