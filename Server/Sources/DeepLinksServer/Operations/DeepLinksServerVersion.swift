import Foundation
import Hummingbird
import Logging
import SQLKit

public enum DeepLinksServerVersion {
    public static let current = "0.1.0"
}
