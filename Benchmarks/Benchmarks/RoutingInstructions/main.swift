import DeepLinks

// Instructions per match, counted by callgrind (stable on a shared VM, unlike wall-clock time): matches 10,000
// URLs of a table of 1,000 routes (or the count given second), `hit` or `miss`, through `measuredMatch`, which
// `Benchmarks/callgrind/run` counts alone (`--toggle-collect`).
struct Item: Sendable, Equatable {
    var section: Int
    var id: Int
}

@inline(never)
func measuredMatch(_ table: RouteTable<Item>, _ url: String) -> Int {
    if case .success(let match) = table.match(url) { return match.destination.id }
    return 0
}

let routes = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2])! : 1_000
let table = try RouteTable(
    schemes: ["bench"],
    hosts: ["example.com"],
    routes: (0..<routes).map { section in
        Route<Item>(
            "s\(section)",
            "/s\(section)/items/:id",
            parameters: [.path("id", Int.self)],
            parse: { p in try Item(section: section, id: p("id")) },
            print: { $0.section == section ? ["id": $0.id] : nil }
        )
    }
)
let hit = CommandLine.arguments.dropFirst().first != "miss"
var state: UInt64 = 0x9E37_79B9_7F4A_7C15
var total = 0
for _ in 0..<10_000 {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    let section = Int(state >> 33) % routes
    let id = Int(state >> 13) % 1_000_000 + 1
    total &+= measuredMatch(
        table,
        hit ? "https://example.com/s\(section)/items/\(id)" : "https://example.com/unknown/items/\(id)"
    )
}
print(total)
