public import Logging
public import RoundUp

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

    func log(event: LogEvent) {
        var event = event
        event.message = Logger.Message(stringLiteral: token.redacted(in: event.message.description))
        event.metadata = event.metadata?.mapValues { .string(token.redacted(in: $0.description)) }
        inner.log(event: event)
    }

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

}

/// Passes log events on with their messages and metadata made printable: a log line never
/// carries a control character from the bank's text to the terminal or the journal. A line
/// from the job's own modules keeps the one source it has always had, `RoundUpJob`, so that
/// a filter on the journal or a log file still finds it.
public struct PrintableLogHandler: LogHandler {

    var inner: any LogHandler

    public init(_ inner: any LogHandler) { self.inner = inner }

    public var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    public var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        event.message = Logger.Message(stringLiteral: printable(event.message.description))
        event.metadata = event.metadata?.mapValues { .string(printable($0.description)) }
        // The job's modules are named RoundUp…; the bank's client keeps its own source.
        if event.source.hasPrefix("RoundUp") { event.source = "RoundUpJob" }
        inner.log(event: event)
    }
}
