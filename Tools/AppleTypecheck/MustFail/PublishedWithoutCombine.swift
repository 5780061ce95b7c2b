// expect: is not available due to missing import of defining module 'Combine'
// platforms: IOS16
// `import SwiftUI` alone: Combine is imported by SwiftUI, not re-exported (Xcode 26 reports the same).
import SwiftUI

final class Model: ObservableObject {
    @Published var count = 0
}
