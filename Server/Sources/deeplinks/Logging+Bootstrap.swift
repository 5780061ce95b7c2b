import Logging

/// Logs go to stderr, one line each with their metadata; libraries log through the handler set here.
func bootstrapLogging(level: Logger.Level) -> Logger {
    LoggingSystem.bootstrap { label in
        var handler = StandardErrorLogHandler(label: label)
        handler.logLevel = level
        return handler
    }
    var logger = Logger(label: "deeplinks")
    logger.logLevel = level
    return logger
}

/// swift-log's `StreamLogHandler` to stderr, with the logger's own metadata kept as a value and rendered only when a
/// line is written. `StreamLogHandler` renders its metadata into text each time an entry is set, and Hummingbird
/// sets the request id on every request's logger: that was 4 % of the server's CPU on a redirect that logs
/// nothing (perf, one hot link, at the warning level).
struct StandardErrorLogHandler: LogHandler {
    private var stream: StreamLogHandler
    var metadata: Logger.Metadata = [:]

    init(label: String) {
        stream = StreamLogHandler.standardError(label: label)
    }

    var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { stream.metadataProvider }
        set { stream.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        // The entry's own metadata wins over the logger's, as in StreamLogHandler.
        event.metadata = metadata.merging(event.metadata ?? [:]) { _, entry in entry }
        stream.log(event: event)
    }
}
