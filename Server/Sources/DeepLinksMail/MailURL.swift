import DeepLinksSupport
import Foundation

/// Where outgoing mail goes: a local folder of `.eml` files (the default, for development), or an SMTP server.
///
/// Forms: `file:var/mail` or a bare path (`./var/mail/`); `smtp://USER:PASSWORD@HOST:587` (STARTTLS when
/// offered; add `?starttls=required` to refuse a server that does not offer it); `smtps://USER:PASSWORD@HOST:465`
/// (TLS from the first byte). The password never appears in
/// ``description``.
public enum MailURL: Sendable, Equatable, CustomStringConvertible {
    case folder(path: String)
    case smtp(SMTPSettings)

    public struct SMTPSettings: Sendable, Equatable {
        public var host: String
        public var port: Int
        public var implicitTLS: Bool
        public var username: String?
        public var password: String?
        /// `smtp://...?starttls=required`: never send over a connection the server did not upgrade.
        public var requireTLS: Bool

        public init(
            host: String,
            port: Int,
            implicitTLS: Bool,
            username: String?,
            password: String?,
            requireTLS: Bool = false
        ) {
            self.host = host
            self.port = port
            self.implicitTLS = implicitTLS
            self.username = username
            self.password = password
            self.requireTLS = requireTLS || implicitTLS
        }
    }

    public static let defaultValue = "var/mail/"

    public init(parsing string: String) throws(ConfigurationError) {
        let trimmed = string.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw ConfigurationError(setting: "mail URL", reason: "is empty") }
        if trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw ConfigurationError(setting: "mail URL", reason: "contains a control character")
        }
        let lowered = trimmed.lowercased()
        if lowered.hasPrefix("smtp://") || lowered.hasPrefix("smtps://") {
            let implicitTLS = lowered.hasPrefix("smtps://")
            guard let components = URLComponents(string: trimmed), let host = components.host, !host.isEmpty else {
                throw ConfigurationError(
                    setting: "mail URL",
                    reason: "\(URLRedaction.password(in: trimmed)) is not a valid SMTP URL"
                )
            }
            let port = components.port ?? (implicitTLS ? 465 : 587)
            var requireTLS = false
            for item in components.queryItems ?? [] {
                guard item.name == "starttls", let value = item.value, ["required", "optional"].contains(value) else {
                    throw ConfigurationError(
                        setting: "mail URL",
                        reason:
                            "unknown option '\(item.name)': the one option is starttls=required (or optional, the default)"
                    )
                }
                requireTLS = value == "required"
            }
            guard (1...65535).contains(port) else {
                throw ConfigurationError(setting: "mail URL", reason: "port \(port) is out of range")
            }
            self = .smtp(
                SMTPSettings(
                    host: host,
                    port: port,
                    implicitTLS: implicitTLS,
                    username: components.user?.removingPercentEncoding,
                    password: components.password?.removingPercentEncoding,
                    requireTLS: requireTLS
                )
            )
        } else if lowered.hasPrefix("file:") {
            var path = String(trimmed.dropFirst("file:".count))
            if path.hasPrefix("//") { path.removeFirst(2) }
            guard !path.isEmpty else {
                throw ConfigurationError(setting: "mail URL", reason: "file: needs a folder path")
            }
            self = .folder(path: path)
        } else if trimmed.contains("://") {
            throw ConfigurationError(
                setting: "mail URL",
                reason:
                    "unsupported scheme in \(URLRedaction.password(in: trimmed)): use a folder path, smtp:// or smtps://"
            )
        } else {
            self = .folder(path: trimmed)
        }
    }

    public var description: String {
        switch self {
        case .folder(let path): return "folder \(path)"
        case .smtp(let settings):
            let user = settings.username.map { "\($0):***@" } ?? ""
            let required = settings.requireTLS && !settings.implicitTLS ? "?starttls=required" : ""
            return "\(settings.implicitTLS ? "smtps" : "smtp")://\(user)\(settings.host):\(settings.port)\(required)"
        }
    }
}

extension MailURL {
    /// The transport this URL names.
    /// - Parameter envelopeSender: `MAIL FROM` (the From address, so SPF aligns with it and bounces reach it).
    public func transport(heloName: String, envelopeSender: String? = nil) -> any MailTransport {
        switch self {
        case .folder(let path): FolderMailTransport(folder: path)
        case .smtp(let settings): SMTPTransport(settings: settings, heloName: heloName, envelopeSender: envelopeSender)
        }
    }
}
