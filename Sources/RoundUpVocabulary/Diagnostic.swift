/// Something a command says besides its output, on standard error: how grave it is, and who
/// must hear it. `run --quiet` filters by audience.
public struct Diagnostic: Sendable, Equatable {
    public enum Severity: Sendable, Equatable {
        /// Why the command, or one of its account-weeks, did not end well.
        case failure
        /// Worth knowing about a command that may have ended well.
        case note
    }

    public enum Audience: Sendable, Equatable {
        /// Whoever reads the command's standard error: `run --quiet` says it only when the
        /// run did not end well, and not when its one line already gives it as the reason.
        case reader
        /// Said even by `run --quiet` when all went well: what went wrong in recording or
        /// telling the run (the run table, the monitor, the metrics file).
        case everyone
    }

    public var severity: Severity
    public var audience: Audience
    /// What is said, without the program's name.
    public var text: String

    public init(_ severity: Severity, _ text: String, audience: Audience = .reader) {
        self.severity = severity
        self.audience = audience
        self.text = text
    }

    /// The line as printed: `roundup: …`.
    public var line: String { "roundup: \(text)" }
}
