import DeepLinks
import DemoAppRoutes
import Testing

/// Conflicts are reported when the table is built, one test per kind.
@Suite struct RouteTableBuildTests {
    enum Screen: Sendable, Equatable {
        case a, b
        case item(Int)
    }

    static func route(_ name: String, _ pattern: String, parameters: [ParameterSpec] = [], sources: RouteSources = .all)
        -> Route<Screen>
    {
        Route(name, pattern, parameters: parameters, sources: sources, parse: { _ in .a }, print: { _ in nil })
    }

    static func errors(_ routes: [Route<Screen>], schemes: [String] = ["app"], hosts: [String] = ["example.com"])
        -> [RouteTableDiagnostic]
    {
        do {
            _ = try RouteTable(schemes: schemes, hosts: hosts, routes: routes)
            return []
        } catch {
            return error.diagnostics
        }
    }

    @Test func twoRoutesForTheSameURLsAreADuplicate() {
        let found = Self.errors([Self.route("one", "/post/:id"), Self.route("two", "/post/:slug")])
        #expect(found.map(\.code) == [.duplicateRoute])
        #expect(found.first?.routes == ["one", "two"])
        #expect(
            found.first?.description
                == "error: duplicate_route [one, two]: '/post/:id' and '/post/:slug' match the same URLs; 'two' is unreachable"
        )
    }

    @Test func theSameShapeOnDisjointSourcesIsNotADuplicate() throws {
        let table = try RouteTable(
            schemes: ["app"],
            hosts: ["example.com"],
            routes: [
                Self.route("web", "/r", sources: .universalLink), Self.route("scheme", "/r", sources: .customScheme),
            ]
        )
        #expect(table.diagnostics.isEmpty)
    }

    @Test func aRouteWithNoSourceLeftIsUnreachable() {
        let found = Self.errors([Self.route("web-only", "/w", sources: .universalLink)], hosts: [])
        #expect(found.map(\.code) == [.unreachableRoute])
        #expect(found.first?.message == "accepts only universalLink links, and the table has no universal-link hosts")
    }

    @Test func impossibleConstraintsMakeARouteUnreachable() {
        let found = Self.errors([
            Self.route(
                "r",
                "/r",
                parameters: [
                    .query("q", String.self, length: 5...5), .query("p", String.self, .required, length: 1...1),
                ]
            )
        ])
        #expect(found.isEmpty)
        let impossible = ParameterSpec(name: "q", location: .query, kind: .string, length: nil)
        var broken = impossible
        broken.minLength = 9
        broken.maxLength = 3
        #expect(Self.errors([Self.route("r", "/r", parameters: [broken])]).map(\.code) == [.unreachableRoute])
    }

    @Test func duplicateParameterNamesAreReported() {
        #expect(Self.errors([Self.route("r", "/a/:id/b/:id")]).map(\.code).contains(.duplicateParameter))
        #expect(
            Self.errors([Self.route("r", "/a/:id", parameters: [.query("id")])]).map(\.code) == [.duplicateParameter]
        )
        #expect(
            Self.errors([Self.route("r", "/a", parameters: [.query("x"), .fragment("x")])]).map(\.code) == [
                .duplicateParameter
            ]
        )
    }

    @Test func duplicateRouteNamesAreReported() {
        let found = Self.errors([Self.route("same", "/a"), Self.route("same", "/b")])
        #expect(found.map(\.code) == [.duplicateName])
    }

    @Test func invalidPatternsAreReported() {
        #expect(Self.errors([Self.route("r", "/a/:")]).map(\.code) == [.invalidPattern])
        #expect(Self.errors([Self.route("r", "/files/*path/more")]).map(\.code) == [.invalidPattern])
        #expect(
            Self.errors([Self.route("r", "/a", parameters: [.path("id", Int.self)])]).map(\.code) == [.invalidPattern]
        )
        let optionalPath = ParameterSpec(name: "id", location: .path, kind: .int, presence: .optional)
        #expect(Self.errors([Self.route("r", "/a/:id", parameters: [optionalPath])]).map(\.code) == [.invalidParameter])
        #expect(
            Self.errors([Self.route("r", "/a", parameters: [.query("n", Int.self, .defaultValue("ten"))])]).map(\.code)
                == [.invalidParameter]
        )
    }

    @Test func invalidSourcesAreReported() {
        #expect(Self.errors([Self.route("r", "/a")], schemes: ["https"]).map(\.code) == [.invalidSource])
        #expect(Self.errors([Self.route("r", "/a")], schemes: ["my_app"]).map(\.code) == [.invalidSource])
        #expect(Self.errors([Self.route("r", "/a")], hosts: ["example.com/path"]).map(\.code) == [.invalidSource])
    }

    @Test func everyErrorIsReportedNotJustTheFirst() {
        let found = Self.errors([
            Self.route("x", "/a/:"), Self.route("x", "/b"), Self.route("y", "/c/:id"), Self.route("z", "/c/:other"),
        ])
        #expect(Set(found.map(\.code)) == [.invalidPattern, .duplicateName, .duplicateRoute])
    }

    @Test func aLiteralFacingAParameterIsAWarningNotAnError() throws {
        let table = try RouteTable(
            schemes: ["app"],
            routes: [Self.route("new", "/post/new"), Self.route("post", "/post/:id")]
        )
        #expect(table.diagnostics.map(\.code) == [.overlap])
        #expect(table.diagnostics.first?.severity == .warning)
        #expect(table.diagnostics.first?.routes == ["new", "post"])
    }

    @Test func theDemoTableHasOnlyItsDocumentedOverlap() {
        #expect(DemoRoute.table.diagnostics.map(\.routes) == [["post", "new-post"]])
    }

    @Test func declarationOrderDoesNotChangeTheWinner() throws {
        let routes: [Route<Screen>] = [
            Route(
                "param",
                "/post/:id",
                parameters: [.path("id", Int.self)],
                parse: { p in try .item(p("id")) },
                print: { _ in nil }
            ),
            Route("literal", "/post/new", parse: { _ in .b }, print: { _ in nil }),
            Route("catch", "/post/*rest", parse: { _ in .a }, print: { _ in nil }),
        ]
        for order in [routes, routes.reversed()] {
            let table = try RouteTable(schemes: ["app"], routes: order)
            #expect(try table.destination(for: "app://post/new") == .b)
            #expect(try table.destination(for: "app://post/5") == .item(5))
            #expect(try table.destination(for: "app://post/x") == .a)
            #expect(try table.destination(for: "app://post/5/6") == .a)
        }
    }

    /// A route whose destination is `.item(value)`.
    static func item(_ name: String, _ pattern: String, _ value: Int, sources: RouteSources = .all) -> Route<Screen> {
        Route(name, pattern, sources: sources, parse: { _ in .item(value) }, print: { _ in nil })
    }

    /// The trie keeps a node's routes and a literal's bytes compactly (the first route and 16 bytes inline):
    /// the second route of a shape, catch-alls of both sources, and literals past 16 bytes that share their
    /// first 16 are each reached, in either declaration order.
    @Test func everyRouteOfAShapeAndEveryLongLiteralIsReached() throws {
        let routes = [
            Self.item("web", "/r", 1, sources: .universalLink), Self.item("scheme", "/r", 2, sources: .customScheme),
            Self.item("web-rest", "/c/*rest", 3, sources: .universalLink),
            Self.item("scheme-rest", "/c/*rest", 4, sources: .customScheme),
            Self.item("long", "/a-literal-longer-than-sixteen-bytes/x", 5),
            Self.item("long-z", "/a-literal-longer-than-sixteen-bytez/x", 6),
            Self.item("shorter", "/a-literal-longer-than-sixteen-b/x", 7),
            Self.item("sixteen", "/exactly-16-bytes/x", 8),
        ]
        for order in [routes, routes.reversed()] {
            let table = try RouteTable(schemes: ["app"], hosts: ["example.com"], routes: order)
            let expected: [(String, Int)] = [
                ("https://example.com/r", 1), ("app://r", 2), ("https://example.com/c/d/e", 3), ("app://c/d/e", 4),
                ("app://a-literal-longer-than-sixteen-bytes/x", 5), ("app://a-literal-longer-than-sixteen-bytez/x", 6),
                ("app://a-literal-longer-than-sixteen-b/x", 7), ("app://exactly-16-bytes/x", 8),
            ]
            for (url, value) in expected {
                #expect(try table.destination(for: url) == .item(value), "\(url)")
            }
            for url in [
                "app://a-literal-longer-than-sixteen-bytey/x", "app://a-literal-longer-than-sixteen-byte/x",
                "app://exactly-16-bytez/x", "app://exactly-16-byte/x",
            ] {
                #expect(throws: LinkRejection.self, "\(url)") { try table.destination(for: url) }
            }
        }
    }

    /// A node's only literal child (of at most 16 bytes) is matched through the text the node holds, the child
    /// placed right after it; branches are laid out to fit cache lines. Every route of many branch shapes and
    /// sizes is reached, near misses are not, and a held literal that leads nowhere backtracks to the parameter.
    @Test func heldLiteralsAndLineAlignedBranchesAreReached() throws {
        var routes: [Route<Screen>] = [
            Self.item("sixteen", "/one/exactly-16-bytes/:id", 1),
            Self.item("seventeen", "/two/exactly-17-bytes!/:id", 2),
            Self.item("only", "/three/only/x", 3), Self.item("parameter", "/three/:p/y", 4),
        ]
        var expected: [(String, Int)] = [
            ("app://one/exactly-16-bytes/5", 1), ("app://two/exactly-17-bytes!/5", 2),
            ("app://three/only/x", 3), ("app://three/only/y", 4), ("app://three/other/y", 4),
        ]
        // Branches of one to seven cells, some with held children that must follow their parent.
        let shapes: [(Int) -> (pattern: String, url: String)] = [
            { ("/p\($0)", "app://p\($0)") }, { ("/p\($0)/q", "app://p\($0)/q") },
            { ("/p\($0)/q/:id", "app://p\($0)/q/7") },
            { ("/p\($0)/:x/r", "app://p\($0)/z/r") }, { ("/p\($0)/q/w/:id", "app://p\($0)/q/w/7") },
            { ("/p\($0)/q/w/v/u/t", "app://p\($0)/q/w/v/u/t") },
        ]
        for i in 0..<60 {
            let (pattern, url) = shapes[i % shapes.count](i)
            routes.append(Self.item("r\(i)", pattern, 100 + i))
            expected.append((url, 100 + i))
        }
        for order in [routes, routes.reversed()] {
            let table = try RouteTable(schemes: ["app"], hosts: [], routes: order)
            for (url, value) in expected {
                #expect(try table.destination(for: url) == .item(value), "\(url)")
            }
            let misses = [
                "app://one/exactly-16-bytez/5", "app://one/exactly-16-byte/5", "app://one/exactly-16-bytes-/5",
                "app://two/exactly-17-bytes~/5", "app://two/exactly-17-bytes/5", "app://three/only/z", "app://p1/r",
                "app://p4/q/w",
            ]
            for url in misses {
                #expect(throws: LinkRejection.self, "\(url)") { try table.destination(for: url) }
            }
        }
    }
}
