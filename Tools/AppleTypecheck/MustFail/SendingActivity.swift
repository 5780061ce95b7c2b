// expect: risks causing data races
// platforms: IOS16
// NSUserActivity is not Sendable: handing it to another task is a data race, reported by the SIL pass only.
import UIKit

@MainActor func forward(_ activity: NSUserActivity) {
    Task.detached { print(activity.activityType) }
    print(activity.webpageURL as Any)
}
