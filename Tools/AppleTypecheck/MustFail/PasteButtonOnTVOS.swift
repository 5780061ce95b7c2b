// expect: is unavailable
// platforms: TVOS16
// PasteButton does not exist on tvOS, which the package declares.
import SwiftUI

struct Prompt: View {
    var body: some View {
        PasteButton(payloadType: String.self) { _ in }
    }
}
