// Stand-in for the part of Apple's Foundation that swift-corelibs-foundation lacks, as Apple declares it.
// Apple's UIKit and SwiftUI re-export Foundation; the UIKit stand-in re-exports this module with Linux's Foundation.
@_exported import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking  // URLSession, URLRequest: in Foundation itself on Apple platforms
#endif
import Combine

/// Not Sendable: "Conforms To" lists none.
@available(iOS 8.0, macOS 10.10, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
open class NSUserActivity: NSObject {
    open var activityType: String { fatalError() }
    open var webpageURL: URL? {
        get { fatalError() }
        set {}
    }
}

@available(iOS 8.0, macOS 10.10, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public let NSUserActivityTypeBrowsingWeb: String = "NSUserActivityTypeBrowsingWeb"

// Foundation names Combine's types; a file using their members still needs `import Combine`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public typealias ObservableObject = Combine.ObservableObject
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public typealias Published = Combine.Published
