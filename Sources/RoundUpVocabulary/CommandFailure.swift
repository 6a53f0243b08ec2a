/// Why a command stopped before doing its work: the exit status and what to tell the user.
public struct CommandFailure: Error, Sendable {
    public let status: ExitStatus
    public let message: String

    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}
