// libFuzzer entry point for the URL policy and the route table. Built with the DeepLinks and
// DemoAppRoutes sources by Fuzz/run (swiftc -sanitize=fuzzer,address). Any trap or sanitizer report is a bug.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURLPolicy(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let string = String(decoding: bytes, as: UTF8.self)
    if let url = try? LinkURL(parsing: string) {
        _ = url.routeSegments
        _ = url.values(of: "q")
    }
    switch DemoRoute.table.match(string) {
    case .success(let match):
        // What matched must print and parse back to the same destination.
        let form: LinkForm = if case .customScheme = match.source { .customScheme() } else { .universalLink() }
        if let printed = try? DemoRoute.table.url(for: match.destination, as: form) {
            guard (try? DemoRoute.table.destination(for: printed)) == match.destination else {
                fatalError("round trip failed for a matched URL")
            }
        }
        _ = match.description
    case .failure(let rejection):
        _ = rejection.description
    }
    _ = DemoRoute.table.redact(string)
    return 0
}
