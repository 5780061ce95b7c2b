// The app's own screens the documentation's snippets name without showing (a home view, a post's view
// controller): compiled with every snippet, beside Tests/DeepLinksTests/Documentation/DocExampleApp.swift (the
// routes, screens and targets). Nothing here is library API.
import DeepLinks
import SwiftUI

struct HomeView: View {
    var body: some View { Text("Home") }
}

struct ProfileView: View {
    var body: some View { Text("Profile") }
}

struct PostView: View {
    let id: Int
    var body: some View { Text("Post \(id)") }
}

struct ResetPasswordView: View {
    let token: String
    var body: some View { Text("New password") }
}

#if canImport(UIKit)
import UIKit

final class HomeViewController: UIViewController {}
final class ProfileViewController: UIViewController {}

final class ScreenViewController: UIViewController {
    let screen: Screen

    init(screen: Screen) {
        self.screen = screen
        super.init(nibName: nil, bundle: nil)
    }

    required init?(coder: NSCoder) { nil }
}

final class SignInViewController: UIViewController {
    let signedIn: () -> Void

    init(signedIn: @escaping () -> Void) {
        self.signedIn = signedIn
        super.init(nibName: nil, bundle: nil)
    }

    required init?(coder: NSCoder) { nil }
}

final class TabBarController: UITabBarController {}
#endif
