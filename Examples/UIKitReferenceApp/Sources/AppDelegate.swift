import DeepLinksUIKit
import UIKit

/// The UIKit reference app: life cycle B of the DocC article "How iOS delivers a link to an app" (an application
/// delegate and a scene delegate), on the front door: every scene gets ``SceneDelegate``.
@main
final class AppDelegate: DeepLinksAppDelegate {
    override class var sceneDelegateClass: DeepLinksSceneDelegate.Type { SceneDelegate.self }
}
