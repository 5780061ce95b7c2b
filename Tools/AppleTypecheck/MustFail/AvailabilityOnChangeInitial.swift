// gate: availability
// expect: 'View.onChange(of:initial:_:)' is only available in iOS 17.0 or newer
// platforms: IOS16
// A SwiftUI modifier whose availability the stand-in declares as Apple does: iOS 17, after the package's iOS 16.
import SwiftUI

struct Counter: View {
    let value: Int
    var body: some View {
        EmptyView().onChange(of: value) { _, _ in }
    }
}
