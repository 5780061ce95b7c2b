import Foundation

/// Builds RFC 6901 JSON pointers (`/applinks/details/0/components/2`).
package enum JSONPointer {
    package static func append(_ pointer: String, _ token: String) -> String {
        pointer + "/" + token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    package static func append(_ pointer: String, _ index: Int) -> String {
        pointer + "/" + String(index)
    }
}
