import ArgumentParser
import DeepLinksServer
import Logging

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the server: association files, smart links, password reset, /healthz and /metrics.",
        discussion: """
            Applies pending database migrations, then listens until SIGINT or SIGTERM, and finishes the \
            requests in flight before it exits.

            Secret keys (the pepper of reset and session tokens) come from the environment only: \
            DEEPLINKS_SECRET_KEYS=VERSION:BASE64[,VERSION:BASE64...], 32 bytes or more each, newest version \
            signing (make one with `openssl rand -base64 32`). Add a key with a higher version to rotate; \
            keep the old one until its links have expired. Without it, a development key is created and \
            kept in the database. The links API is enabled by DEEPLINKS_ADMIN_KEY (24 characters or more; \
            only its SHA-256 is kept), sent as `Authorization: Bearer KEY`. With external accounts (the \
            configuration's `accounts`), the hooks are signed under DEEPLINKS_HOOK_SECRETS, in the same \
            format: every listed secret signs, so the backend can rotate.
            """
    )

    @OptionGroup var options: ServerOptions

    func run() async throws {
        try await reportingFailures {
            let settings = try options.resolve()
            let logger = bootstrapLogging(level: try options.logLevel())
            try await DeepLinksApplication.serve(settings: settings, logger: logger)
        }
    }
}
