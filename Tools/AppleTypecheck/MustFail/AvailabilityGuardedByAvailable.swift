// gate: availability
// expect: accepted
// platforms: IOS16 VISIONOS1 TVOS16 MACOS13
// Not a mistake: the same call where `if #available` makes it so, on every platform the package declares.
func decoded(_ bytes: [UInt8]) -> String? {
    if #available(iOS 18, macOS 15, tvOS 18, visionOS 2, *) {
        return String(validating: bytes, as: UTF8.self)
    }
    return nil
}
