import DeepLinks
import DemoAppRoutes
import UIKit

/// Any screen of the demo app but the reset screen: it shows what it is (a post, a search, a settings page), as
/// the route table read it from the link.
final class ScreenViewController: UIViewController {
    private let screen: String

    init(screen: String) {
        self.screen = screen
        super.init(nibName: nil, bundle: nil)
        title = screen
    }

    required init?(coder: NSCoder) { nil }

    override func loadView() {
        let label = UILabel()
        label.numberOfLines = 0
        // A screen identifier is a printed link of the demo table: read it back to say what is shown.
        label.text = (try? DemoRoute.table.destination(for: screen)).map { "\($0)" } ?? screen
        view = label
    }
}
