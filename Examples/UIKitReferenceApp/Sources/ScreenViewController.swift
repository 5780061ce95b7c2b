import DemoAppRoutes
import UIKit

/// Any screen of the demo app but the reset screen: it shows what it is (a post, a search, a settings page), with
/// the parameters the link carried.
final class ScreenViewController: UIViewController {
    private let text: String

    init(screen: DemoScreen) {
        text = "\(screen)"
        super.init(nibName: nil, bundle: nil)
        title = text
    }

    /// A tab's root.
    init(title: String) {
        text = title
        super.init(nibName: nil, bundle: nil)
        self.title = title
    }

    required init?(coder: NSCoder) { nil }

    override func loadView() {
        let label = UILabel()
        label.numberOfLines = 0
        label.text = text
        view = label
    }
}
