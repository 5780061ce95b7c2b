// libFuzzer entry point for the URL policy and the route table. Built with the DeepLinks and
// DemoAppRoutes sources by Fuzz/run (swiftc -sanitize=fuzzer,address). Any trap or sanitizer report is a bug.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURLPolicy(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let string = String(decoding: bytes, as: UTF8.self)
    let direct = DemoRoute.table.match(string)
    // The string path (one scan over the bytes) and the LinkURL path must agree on every input.
    do {
        let url = try LinkURL(parsing: string)
        _ = url.values(of: "q")
        let parsed = DemoRoute.table.match(url)
        switch (direct, parsed) {
        case (.success(let a), .success(let b)):
            guard a.destination == b.destination, a.routeName == b.routeName, a.source == b.source,
                a.parameters == b.parameters
            else {
                fatalError("the string and LinkURL paths matched differently")
            }
        case (.failure(let a), .failure(let b)):
            guard a == b else { fatalError("the string and LinkURL paths refused differently") }
        default:
            fatalError("one path matched, the other refused")
        }
    } catch {
        guard case .failure(let rejection) = direct, rejection.urlDiagnostic == error else {
            fatalError("the URL policy refused, the string path did not say so")
        }
    }
    switch direct {
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
