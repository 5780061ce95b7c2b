// expect: must call a designated initializer of the superclass 'UIViewController'
// platforms: IOS16
// UIViewController's designated initializers are init(nibName:bundle:) and init?(coder:); init() is a
// convenience one, so a subclass's own initializer cannot end in super.init().
import UIKit

final class Screen: UIViewController {
    init(title: String) {
        super.init()
        self.title = title
    }

    required init?(coder: NSCoder) { nil }
}
