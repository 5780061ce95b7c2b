import Foundation

/// Delivers a rendered message. Throws ``MailDeliveryError``.
public protocol MailTransport: Sendable {
    func deliver(_ mail: OutgoingMail, rendered: String) async throws
}
