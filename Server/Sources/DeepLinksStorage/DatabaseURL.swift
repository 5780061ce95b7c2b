import DeepLinksSupport
import Foundation

/// Where the server keeps its data: a SQLite file (the default, nothing to install) or a PostgreSQL server.
///
/// Accepted forms:
/// - `sqlite:PATH` (relative to the working directory), `sqlite:///ABSOLUTE/PATH`, `sqlite::memory:`
/// - `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (also `postgresql://`), with optional `?sslmode=`
///   (`disable`, `prefer`, `require`) and `?search_path=SCHEMA[,SCHEMA]`
///
/// The password never appears in ``description``: use ``redacted`` in logs and errors.
public enum DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    case sqliteFile(path: String)
    case sqliteMemory
    case postgres(url: String)

    /// The embedded default: a SQLite file under `./var/`.
    public static let defaultValue = "sqlite:var/deeplinks.sqlite"

    public init(parsing string: String) throws(ConfigurationError) {
        let trimmed = string.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else {
            throw ConfigurationError(setting: "database URL", reason: "is empty")
        }
        if trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw ConfigurationError(setting: "database URL", reason: "contains a control character")
        }
        let lowered = trimmed.lowercased()
        if lowered.hasPrefix("sqlite:") {
            var path = String(trimmed.dropFirst("sqlite:".count))
            if path == ":memory:" {
                self = .sqliteMemory
                return
            }
            if path.hasPrefix("//") {
                path.removeFirst(2)  // sqlite:///abs/path -> /abs/path
            }
            guard !path.isEmpty else {
                throw ConfigurationError(
                    setting: "database URL",
                    reason: "sqlite: needs a file path, as in sqlite:var/deeplinks.sqlite"
                )
            }
            self = .sqliteFile(path: path)
        } else if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            guard let components = URLComponents(string: trimmed), let host = components.host, !host.isEmpty else {
                throw ConfigurationError(
                    setting: "database URL",
                    reason:
                        "\(URLRedaction.password(in: trimmed)) is not a valid PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE)"
                )
            }
            if let port = components.port, !(1...65535).contains(port) {
                throw ConfigurationError(setting: "database URL", reason: "port \(port) is out of range")
            }
            if components.user == nil || components.user == "" {
                throw ConfigurationError(
                    setting: "database URL",
                    reason: "\(URLRedaction.password(in: trimmed)) names no user"
                )
            }
            let scheme = trimmed.prefix(while: { $0 != ":" }).lowercased()
            self = .postgres(url: scheme + trimmed.drop(while: { $0 != ":" }))
        } else {
            let scheme = trimmed.split(separator: ":", maxSplits: 1).first.map(String.init) ?? trimmed
            throw ConfigurationError(
                setting: "database URL",
                reason:
                    "unsupported scheme '\(URLRedaction.password(in: scheme))': use sqlite:PATH or postgres://USER:PASSWORD@HOST/DATABASE"
            )
        }
    }

    public var kind: DatabaseKind {
        switch self {
        case .sqliteFile, .sqliteMemory: .sqlite
        case .postgres: .postgresql
        }
    }

    /// The URL with its password replaced by `***`, safe for logs and errors.
    public var redacted: String {
        switch self {
        case .sqliteFile(let path): "sqlite:\(path)"
        case .sqliteMemory: "sqlite::memory:"
        case .postgres(let url): URLRedaction.password(in: url)
        }
    }

    public var description: String { redacted }
}
