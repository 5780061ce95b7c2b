// expect: main actor-isolated
// platforms: IOS16
// UIKit's classes are main-actor isolated: a nonisolated function cannot drive them.
import UIKit

nonisolated func show(_ controller: UIViewController, on stack: UINavigationController) {
    stack.pushViewController(controller, animated: true)
}
