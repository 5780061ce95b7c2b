// expect: subscript index of type '() -> [String]' in a key path must be Hashable
// platforms: IOS16
// The binding the reference app used to write (RootView.swift:34 before the NavigationModel subscript).
import Combine
import SwiftUI

final class Model: ObservableObject {
    @Published var stacks: [String: [String]] = [:]
}

struct Root: View {
    @ObservedObject var model: Model
    var body: some View {
        NavigationStack(path: $model.stacks["posts", default: []]) { Text("Posts") }
    }
}
