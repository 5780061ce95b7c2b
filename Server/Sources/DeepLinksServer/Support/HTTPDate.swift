import Foundation

/// HTTP dates (RFC 9110's IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), for `Last-Modified` and
/// `If-Modified-Since`.
enum HTTPDate {
    static func format(_ date: Date) -> String {
        formatter().string(from: date)
    }

    /// Nil for anything but an IMF-fixdate (the obsolete forms are not worth a cache hit).
    static func parse(_ text: String) -> Date? {
        formatter().date(from: text)
    }

    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }
}
