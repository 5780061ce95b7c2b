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
