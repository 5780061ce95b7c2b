import DeepLinks
import DeepLinksTesting
import Testing

@Suite struct RouteTableCheckTests {
    enum Screen: Sendable, Equatable { case item(String) }

    static func table(lowercasingOnParse: Bool) throws -> RouteTable<Screen> {
        try RouteTable(
            schemes: ["app"],
            hosts: ["example.com"],
            routes: [
                Route(
                    "item",
                    "/item/:name",
                    parse: { p in
                        let name: String = try p("name"); return .item(lowercasingOnParse ? name.lowercased() : name)
                    },
                    print: { if case .item(let name) = $0 { ["name": name] } else { nil } }
                )
            ]
        )
    }

    @Test func aConsistentTableHasNoRoundTripFailures() throws {
        #expect(
            RouteTableCheck.roundTripFailures(
                try Self.table(lowercasingOnParse: false),
                [.item("Ünïcode+@/ %"), .item("a")]
            ).isEmpty
        )
    }

    @Test func aParseThatDisagreesWithPrintIsReported() throws {
        let failures = RouteTableCheck.roundTripFailures(try Self.table(lowercasingOnParse: true), [.item("Mixed")])
        #expect(
            failures == [
                "destination #0 printed as https://example.com/item/Mixed parses back to another destination, by route 'item' (its parse and print disagree, or it is shadowed)",
                "destination #0 printed as app://item/Mixed parses back to another destination, by route 'item' (its parse and print disagree, or it is shadowed)",
            ]
        )
    }

    @Test func routingFailuresNameTheURLAndTheReason() throws {
        let table = try Self.table(lowercasingOnParse: false)
        let failures = RouteTableCheck.routingFailures(
            table,
            [("app://item/a", .item("a")), ("app://item/a", .item("b")), ("app://nope", .item("a"))]
        )
        #expect(
            failures == [
                "app://item/a reaches item /item/:name name=a, not the expected destination",
                "app://nope is refused: no_route: no route has this path",
            ]
        )
    }
}
