// gate: availability
// expect: 'String.init(validating:as:)' is only available in iOS 18.0 or newer
// platforms: IOS16
// The call that stopped every adopter's build (Sources/DeepLinks/URL/URLParser.swift before the fix): new in the
// Swift 6 standard library, from iOS 18, on a package that declares iOS 16.
func decoded(_ bytes: [UInt8]) -> String? {
    String(validating: bytes, as: UTF8.self)
}
