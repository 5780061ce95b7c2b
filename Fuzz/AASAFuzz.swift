// libFuzzer entry point for the apple-app-site-association parser, validator and matcher. Built with the
// AppSiteAssociation sources by `bash Fuzz/run aasa`. Any trap or sanitizer report is a bug.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAASA(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    let diagnostics = AASAValidator.validate(data: bytes)
    _ = diagnostics.isValid
    _ = AssetLinksValidator.validate(data: bytes)
    if let document = try? JSONValue.parse(bytes) {
        _ = document.prettyPrinted()
        let matcher = AASAMatcher(document: document)
        for url in [
            "https://example.com/", "https://example.com/buy/42?id=7&id=42#frag",
            "https://example.com/caf%C3%A9/%2F?q=a+b", "http://EXAMPLE.com/$(x)",
        ] {
            _ = matcher.decide(appID: "ABCDE12345.com.example.app", url: url, domain: "example.com")
        }
    }
    return 0
}
