import Foundation

/// Why a delivery failed, in one secret-free line; `isPermanent` for a 5xx answer (no retry helps).
public struct MailDeliveryError: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public var isPermanent: Bool

    public init(_ reason: String, permanent: Bool = false) {
        self.reason = reason
        self.isPermanent = permanent
    }

    public var description: String { reason }
}
