import Logging

/// Logs go to stderr, one line each with their metadata; libraries log through the handler set here.
func bootstrapLogging(level: Logger.Level) -> Logger {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = level
        return handler
    }
    var logger = Logger(label: "deeplinks")
    logger.logLevel = level
    return logger
}
