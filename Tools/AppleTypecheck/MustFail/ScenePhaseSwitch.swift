// expect: may have additional unknown values
// platforms: IOS16
// ScenePhase is not frozen in Apple's library-evolution SDK: a switch needs `@unknown default`.
import SwiftUI

func describe(_ phase: ScenePhase) -> String {
    switch phase {
    case .active: "active"
    case .inactive: "inactive"
    case .background: "background"
    }
}
