import Foundation

/// Instants as the console's forms and pages show them: UTC, to the minute (seconds and milliseconds when there
/// are any). Rule conditions read and write their times the same way.
enum UTCDate {
    /// UTC, as `2026-11-27 14:05` (or `2026-11-27T14:05` for a datetime-local field); the seconds (and
    /// milliseconds) when there are any, so that a form saved unchanged keeps the instant.
    static func formatted(_ milliseconds: Int64, form: Bool) -> String {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let fraction = Int(((milliseconds % 1000) + 1000) % 1000)
        let seconds =
            fraction != 0
            ? String(format: ":%02d.%03d", parts.second ?? 0, fraction)
            : (parts.second ?? 0) != 0 ? String(format: ":%02d", parts.second ?? 0) : ""
        return String(
            format: "%04d-%02d-%02d%@%02d:%02d",
            parts.year ?? 0,
            parts.month ?? 0,
            parts.day ?? 0,
            form ? "T" : " ",
            parts.hour ?? 0,
            parts.minute ?? 0
        ) + seconds
    }

    /// A datetime-local value (`2026-11-27T14:05`, seconds and milliseconds optional) read as UTC, in milliseconds.
    static func parse(_ text: String) -> Int64? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        for format in ["yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss.SSS"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) {
                return Int64((date.timeIntervalSince1970 * 1000).rounded())
            }
        }
        return nil
    }
}
