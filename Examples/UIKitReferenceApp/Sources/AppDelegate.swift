import UIKit

/// The UIKit reference app: life cycle B of the DocC article "How iOS delivers a link to an app" (an application
/// delegate and a scene delegate). Every scene gets ``SceneDelegate``, which owns that window's coordinator and
/// navigator: with several windows (iPad), each handles the links iOS hands its own scene.
@main
final class AppDelegate: UIResponder, UIApplicationDelegate {
    func application(
        _ application: UIApplication,
        configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration {
        let configuration = UISceneConfiguration(name: nil, sessionRole: connectingSceneSession.role)
        configuration.delegateClass = SceneDelegate.self
        return configuration
    }
}
