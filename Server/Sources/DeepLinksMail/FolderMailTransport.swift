import DeepLinksSupport
import Foundation

/// The development default: each message is an `.eml` file in a folder, written whole or not at all.
public struct FolderMailTransport: MailTransport {
    public let folder: String

    public init(folder: String) {
        self.folder = folder
    }

    public func deliver(_ mail: OutgoingMail, rendered: String) async throws {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let name =
                "\(Int64(Date().timeIntervalSince1970 * 1000))-\(Base64URL.encode(SecureBytes.random(count: 6))).eml"
            try Data(rendered.utf8).write(
                to: URL(fileURLWithPath: folder).appendingPathComponent(name),
                options: .atomic
            )
        } catch {
            throw MailDeliveryError(
                "cannot write to the mail folder \(folder): \((error as NSError).localizedDescription)"
            )
        }
    }
}
