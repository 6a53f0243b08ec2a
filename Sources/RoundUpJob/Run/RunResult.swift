/// How a command ended: what to print and the exit status.
public struct RunResult: Sendable {
    public var status: ExitStatus
    /// For stdout.
    public var output: String
    /// For stderr; never contains the token.
    public var diagnostics: [String]
    public var report: RunReport?
    public var reportPath: String?

    public init(
        status: ExitStatus, output: String, diagnostics: [String], report: RunReport? = nil, reportPath: String? = nil
    ) {
        self.status = status
        self.output = output
        self.diagnostics = diagnostics
        self.report = report
        self.reportPath = reportPath
    }

    /// A command that stopped before it could do its work, saying why on stderr.
    public static func failure(_ failure: RunFailure) -> RunResult {
        RunResult(status: failure.status, output: "", diagnostics: ["roundup: \(failure.message)"])
    }
}

/// Why a command stopped before doing its work: the exit status and what to tell the user.
public struct RunFailure: Error, Sendable {
    public let status: ExitStatus
    public let message: String

    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}

extension SettingsError {
    /// This error as a reason to stop.
    public var failure: RunFailure { RunFailure(exitStatus, message) }
}
