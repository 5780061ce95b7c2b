import Foundation

/// URLs as they may appear in a log line or an error: without the password a database or mail URL carries.
package enum URLRedaction {
    /// `scheme://user:password@host...` as `scheme://user:***@host...`; anything else unchanged.
    package static func password(in url: String) -> String {
        guard let schemeEnd = url.range(of: "://"), let at = url[schemeEnd.upperBound...].lastIndex(of: "@") else {
            return url
        }
        let userinfo = url[schemeEnd.upperBound..<at]
        guard let colon = userinfo.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}
