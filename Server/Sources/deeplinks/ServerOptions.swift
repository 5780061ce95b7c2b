import ArgumentParser
import DeepLinksServer
import Foundation
import Logging

/// Options shared by `serve` and `migrate`. Each may also come from the environment; a flag wins.
struct ServerOptions: ParsableArguments {
    @Option(help: "Address to bind. Env: DEEPLINKS_HOST. Default: 127.0.0.1.")
    var host: String?

    @Option(help: "Port to listen on, 0 for any free port. Env: DEEPLINKS_PORT. Default: 8080.")
    var port: Int?

    @Option(
        name: .customLong("config"),
        help: "App configuration file (JSON, see Server/Examples/demo-app.json). Env: DEEPLINKS_CONFIG. Default: the built-in demo app."
    )
    var configPath: String?

    @Option(
        name: .customLong("database-url"),
        help: "sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DB. Env: DEEPLINKS_DATABASE_URL. Default: \(DatabaseURL.defaultValue)."
    )
    var databaseURL: String?

    @Option(
        name: .customLong("mail-url"),
        help: "A folder for .eml files, or smtp://USER:PASSWORD@HOST:PORT (STARTTLS), or smtps://... Env: DEEPLINKS_MAIL_URL. Default: \(MailURL.defaultValue)."
    )
    var mailURL: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical. Env: DEEPLINKS_LOG_LEVEL. Default: info.")
    var logLevel: String?

    /// Flags first, then the environment, then the defaults. Throws a one-line reason.
    func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ServerSettings {
        var settings = ServerSettings()
        if let host = host ?? environment["DEEPLINKS_HOST"] {
            guard !host.isEmpty, !host.contains("/") else {
                throw ConfigurationError(setting: "host", reason: "'\(host)' is not an address to bind")
            }
            settings.host = host
        }
        if let port {
            settings.port = try Self.port(String(port), setting: "--port")
        } else if let value = environment["DEEPLINKS_PORT"] {
            settings.port = try Self.port(value, setting: "DEEPLINKS_PORT")
        }
        settings.database = try DatabaseURL(
            parsing: databaseURL ?? environment["DEEPLINKS_DATABASE_URL"] ?? DatabaseURL.defaultValue
        )
        settings.mail = try MailURL(parsing: mailURL ?? environment["DEEPLINKS_MAIL_URL"] ?? MailURL.defaultValue)
        if let path = configPath ?? environment["DEEPLINKS_CONFIG"] {
            settings.app = try AppConfiguration.load(path: path)
        }
        return settings
    }

    func logLevel(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Logger.Level {
        let value = logLevel ?? environment["DEEPLINKS_LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: value.lowercased()) else {
            throw ConfigurationError(
                setting: "log level",
                reason: "'\(value)' is not one of trace, debug, info, notice, warning, error, critical"
            )
        }
        return level
    }

    private static func port(_ value: String, setting: String) throws -> Int {
        guard let port = Int(value), (0...65535).contains(port) else {
            throw ConfigurationError(setting: setting, reason: "'\(value)' is not a port number (0-65535)")
        }
        return port
    }
}
