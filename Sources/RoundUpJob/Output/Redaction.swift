public import Logging
public import StarlingAPI

/// `logger` with the token removed from every message and metadata value it passes on.
public func redacting(_ logger: Logger, token: AccessToken) -> Logger {
    var redacting = Logger(label: logger.label) { _ in RedactingLogHandler(inner: logger.handler, token: token) }
    redacting.logLevel = logger.logLevel
    return redacting
}

/// Passes log events on with the token removed from their messages and metadata.
struct RedactingLogHandler: LogHandler {
    var inner: any LogHandler
    let token: AccessToken

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = Logger.Message(stringLiteral: token.redacted(in: event.message.description))
        event.metadata = event.metadata?.mapValues { .string(token.redacted(in: $0.description)) }
        inner.log(event: event)
    }
}
