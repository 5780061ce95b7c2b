// Stand-in for Apple's UIKit: only the declarations the Apple-side code uses, each as Apple declares it
// (signature, availability, `@MainActor` isolation; every class below is `NS_SWIFT_UI_ACTOR`, hence Sendable).
// Objective-C `@optional` requirements become requirements with default implementations: a near-miss against
// one (a wrong label) is not reported, so read those declarations against Apple's documentation.
@_exported import AppleFoundation

@available(iOS 8.0, tvOS 9.0, visionOS 1.0, *)
@MainActor public protocol UIUserActivityRestoring: NSObjectProtocol {
    func restoreUserActivityState(_ userActivity: NSUserActivity)
}

@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UIResponder: NSObject, UIUserActivityRestoring {
    open func restoreUserActivityState(_ activity: NSUserActivity) {}
}

@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UIApplication: UIResponder {
    open class var shared: UIApplication { fatalError() }
    unowned(unsafe) open var delegate: (any UIApplicationDelegate)?

    public struct LaunchOptionsKey: Hashable, RawRepresentable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        @available(iOS 3.0, *) public static let url = LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsURLKey")
        @available(iOS 8.0, *) public static let userActivityDictionary = LaunchOptionsKey(
            rawValue: "UIApplicationLaunchOptionsUserActivityDictionaryKey"
        )
        @available(iOS 3.0, *) public static let sourceApplication = LaunchOptionsKey(
            rawValue: "UIApplicationLaunchOptionsSourceApplicationKey"
        )
    }

    @available(iOS 10.0, tvOS 10.0, visionOS 1.0, *)
    open func open(
        _ url: URL,
        options: [UIApplication.OpenExternalURLOptionsKey: Any] = [:],
        completionHandler completion: (@MainActor @Sendable (Bool) -> Void)? = nil
    ) {}

    public struct OpenExternalURLOptionsKey: Hashable, RawRepresentable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        @available(iOS 10.0, *) public static let universalLinksOnly = OpenExternalURLOptionsKey(
            rawValue: "UIApplicationOpenURLOptionUniversalLinksOnly"
        )
    }

    public struct OpenURLOptionsKey: Hashable, RawRepresentable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        @available(iOS 9.0, *) public static let sourceApplication = OpenURLOptionsKey(
            rawValue: "UIApplicationOpenURLOptionsSourceApplicationKey"
        )
    }
}

@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@MainActor public protocol UIApplicationDelegate: NSObjectProtocol {
    @available(iOS 3.0, *)
    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool
    @available(iOS 9.0, *)
    func application(_ app: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any]) -> Bool
    @available(iOS 8.0, *)
    func application(
        _ application: UIApplication,
        continue userActivity: NSUserActivity,
        restorationHandler: @escaping ([any UIUserActivityRestoring]?) -> Void
    ) -> Bool
    @available(iOS 13.0, *)
    func application(
        _ application: UIApplication,
        configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration
    @available(iOS 2.0, *)
    func applicationDidBecomeActive(_ application: UIApplication)
    @available(iOS 4.0, *)
    func applicationDidEnterBackground(_ application: UIApplication)
}

// `@optional` in Objective-C.
extension UIApplicationDelegate {
    public func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool { true }
    public func application(_ app: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any])
        -> Bool
    { false }
    public func application(
        _ application: UIApplication,
        continue userActivity: NSUserActivity,
        restorationHandler: @escaping ([any UIUserActivityRestoring]?) -> Void
    ) -> Bool { false }
    public func application(
        _ application: UIApplication,
        configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration { fatalError() }
    public func applicationDidBecomeActive(_ application: UIApplication) {}
    public func applicationDidEnterBackground(_ application: UIApplication) {}
}

@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@MainActor open class UIScene: UIResponder {
    open var session: UISceneSession { fatalError() }
    open var delegate: (any UISceneDelegate)?

    @MainActor open class ConnectionOptions: NSObject {
        open var urlContexts: Set<UIOpenURLContext> { fatalError() }
        open var userActivities: Set<NSUserActivity> { fatalError() }
        open var sourceApplication: String? { fatalError() }
    }

    @MainActor open class OpenURLOptions: NSObject {
        open var sourceApplication: String? { fatalError() }
    }
}

/// No public initializer.
@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@MainActor open class UIOpenURLContext: NSObject {
    open var url: URL { fatalError() }
    open var options: UIScene.OpenURLOptions { fatalError() }
}

@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@MainActor open class UISceneSession: NSObject {
    open var scene: UIScene? { fatalError() }
    open var role: UISceneSession.Role { fatalError() }
    open var stateRestorationActivity: NSUserActivity?

    public struct Role: Hashable, RawRepresentable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }
}

@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@MainActor open class UISceneConfiguration: NSObject {
    public init(name: String?, sessionRole: UISceneSession.Role) {}
    open var delegateClass: AnyClass?
}

@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@MainActor public protocol UISceneDelegate: NSObjectProtocol {
    func scene(
        _ scene: UIScene,
        willConnectTo session: UISceneSession,
        options connectionOptions: UIScene.ConnectionOptions
    )
    func scene(_ scene: UIScene, openURLContexts URLContexts: Set<UIOpenURLContext>)
    func scene(_ scene: UIScene, continue userActivity: NSUserActivity)
    func scene(_ scene: UIScene, didFailToContinueUserActivityWithType userActivityType: String, error: any Error)
    func sceneDidBecomeActive(_ scene: UIScene)
    func sceneDidEnterBackground(_ scene: UIScene)
    func sceneDidDisconnect(_ scene: UIScene)
}

// `@optional` in Objective-C.
extension UISceneDelegate {
    public func scene(
        _ scene: UIScene,
        willConnectTo session: UISceneSession,
        options connectionOptions: UIScene.ConnectionOptions
    ) {}
    public func scene(_ scene: UIScene, openURLContexts URLContexts: Set<UIOpenURLContext>) {}
    public func scene(_ scene: UIScene, continue userActivity: NSUserActivity) {}
    public func scene(
        _ scene: UIScene,
        didFailToContinueUserActivityWithType userActivityType: String,
        error: any Error
    ) {}
    public func sceneDidBecomeActive(_ scene: UIScene) {}
    public func sceneDidEnterBackground(_ scene: UIScene) {}
    public func sceneDidDisconnect(_ scene: UIScene) {}
}

@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UIView: UIResponder {}

@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UIWindow: UIView {
    @available(iOS 4.0, *)
    open var rootViewController: UIViewController?
    @available(iOS 13.0, *)
    public init(windowScene: UIWindowScene) {}
    open func makeKeyAndVisible() {}
}

@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UIViewController: UIResponder {
    // Designated: init(nibName:bundle:) and init?(coder:) (NS_DESIGNATED_INITIALIZER); init() is NSObject's,
    // a convenience here, so a subclass's designated initializer must call init(nibName:bundle:).
    public init(nibName nibNameOrNil: String?, bundle nibBundleOrNil: Bundle?) {}
    public required init?(coder: NSCoder) {}
    public convenience override init() { self.init(nibName: nil, bundle: nil) }
    open var view: UIView! {
        get { fatalError() }
        set {}
    }
    open var title: String?
    open func loadView() {}
    open func viewDidLoad() {}
    @available(iOS 6.0, *)
    open var restorationIdentifier: String?
    @available(iOS 5.0, *)
    open var presentedViewController: UIViewController? { fatalError() }
    @available(iOS 5.0, *)
    open func present(_ viewControllerToPresent: UIViewController, animated flag: Bool, completion: (() -> Void)? = nil)
    {}
    @available(iOS 5.0, *)
    open func dismiss(animated flag: Bool, completion: (() -> Void)? = nil) {}
}

@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UINavigationController: UIViewController {
    public init(rootViewController: UIViewController) { super.init(nibName: nil, bundle: nil) }
    public required init?(coder: NSCoder) { super.init(coder: coder) }
    open var viewControllers: [UIViewController] {
        get { fatalError() }
        set {}
    }
    @available(iOS 3.0, *)
    open func setViewControllers(_ viewControllers: [UIViewController], animated: Bool) {}
    open func pushViewController(_ viewController: UIViewController, animated: Bool) {}
    @discardableResult open func popToRootViewController(animated: Bool) -> [UIViewController]? { nil }
    @discardableResult open func popToViewController(_ viewController: UIViewController, animated: Bool)
        -> [UIViewController]?
    { nil }
}

@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UITabBarController: UIViewController {
    open var viewControllers: [UIViewController]?
    open func setViewControllers(_ viewControllers: [UIViewController]?, animated: Bool) {}
    unowned(unsafe) open var selectedViewController: UIViewController?
}

@available(iOS 10.0, tvOS 10.0, visionOS 1.0, *)
public struct UITextContentType: Hashable, RawRepresentable, Sendable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    @available(iOS 11.0, *) public static let username = UITextContentType(rawValue: "username")
    @available(iOS 12.0, *) public static let newPassword = UITextContentType(rawValue: "new-password")
    @available(iOS 11.0, *) public static let password = UITextContentType(rawValue: "password")
}

@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
public enum UIKeyboardType: Int, Sendable {
    case `default` = 0, asciiCapable, numbersAndPunctuation, URL, numberPad, phonePad, namePhonePad, emailAddress
}

// MARK: The UIKit reference app's window, screens and controls (Apple's documentation pages: UIWindowSceneDelegate,
// UIWindow.init(windowScene:), UIViewController.view/title/loadView()/viewDidLoad(), UILabel, UITextField,
// UIButton.init(type:primaryAction:), UIAction.init(title:image:identifier:discoverabilityTitle:attributes:state:
// handler:), UIStackView.init(arrangedSubviews:), UIAlertController.init(title:message:preferredStyle:),
// UIAlertAction.init(title:style:handler:)).

extension UIApplicationDelegate {
    /// What `@main` on an application delegate class calls (UIKit's overlay): UIApplicationMain with this class.
    @MainActor public static func main() {}
}

@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@MainActor public protocol UIWindowSceneDelegate: UISceneDelegate {
    var window: UIWindow? { get set }
}

@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@MainActor open class UIWindowScene: UIScene {}

@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UILabel: UIView {
    open var text: String?
    open var numberOfLines: Int = 1
}

@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UIControl: UIView {
    open var isEnabled: Bool = true
}

@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UITextField: UIControl {
    open var text: String?
    open var placeholder: String?
    open var isSecureTextEntry: Bool = false
    @available(iOS 10.0, *)
    open var textContentType: UITextContentType!
}

@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@MainActor open class UIImage: NSObject {}

@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@MainActor open class UIMenuElement: NSObject {
    public struct Attributes: OptionSet, Sendable {
        public var rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
    }
    public enum State: Int, Sendable { case off = 0, on, mixed }
}

@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
public typealias UIActionHandler = (UIAction) -> Void

@available(iOS 13.0, tvOS 13.0, visionOS 1.0, *)
@MainActor open class UIAction: UIMenuElement {
    public struct Identifier: Hashable, RawRepresentable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }

    @preconcurrency public convenience init(
        title: String = "",
        image: UIImage? = nil,
        identifier: UIAction.Identifier? = nil,
        discoverabilityTitle: String? = nil,
        attributes: UIMenuElement.Attributes = [],
        state: UIMenuElement.State = .off,
        handler: @escaping UIActionHandler
    ) { self.init() }
}

@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UIButton: UIControl {
    public enum ButtonType: Int, Sendable { case custom = 0, system }

    @available(iOS 14.0, tvOS 14.0, *)
    @preconcurrency public convenience init(type buttonType: UIButton.ButtonType = .system, primaryAction: UIAction?) {
        self.init()
    }
}

@available(iOS 6.0, tvOS 9.0, visionOS 1.0, *)
@MainActor open class NSLayoutConstraint: NSObject {
    public enum Axis: Int, Sendable { case horizontal = 0, vertical = 1 }
}

@available(iOS 9.0, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UIStackView: UIView {
    public convenience init(arrangedSubviews views: [UIView]) { self.init() }
    open var axis: NSLayoutConstraint.Axis = .horizontal
    open var spacing: CGFloat = 0
}

@available(iOS 8.0, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UIAlertAction: NSObject {
    public enum Style: Int, Sendable { case `default` = 0, cancel, destructive }
    public convenience init(title: String?, style: UIAlertAction.Style, handler: ((UIAlertAction) -> Void)? = nil) {
        self.init()
    }
}

@available(iOS 8.0, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UIAlertController: UIViewController {
    // Only the convenience initializer is meant for use; the class inherits UIViewController's designated ones.
    public enum Style: Int, Sendable { case actionSheet = 0, alert }
    public convenience init(title: String?, message: String?, preferredStyle: UIAlertController.Style) { self.init() }
    open func addAction(_ action: UIAlertAction) {}
}
