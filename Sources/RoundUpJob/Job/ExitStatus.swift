public import StarlingAPI

/// The process exit codes, from sysexits.
public enum ExitStatus: Int32, Sendable, Codable, CaseIterable {
    case ok = 0
    /// Bad flags or arguments, or a week that has not ended.
    case usage = 64
    /// The bank sent data the job cannot use.
    case dataError = 65
    /// The bank could not be reached or kept failing.
    case unavailable = 69
    /// Output could not be written (a full disk); the ledger was already committed.
    case ioError = 74
    /// Try again later: another run holds the lock, or the bank asked us to slow down.
    case temporaryFailure = 75
    /// The token was rejected or lacks a needed scope.
    case permissionDenied = 77
    /// The configuration cannot be used, or a week is held until a person decides.
    case configuration = 78

    /// A failure that may pass by itself, so a scheduler should run the job again.
    public var mayPass: Bool { self == .unavailable || self == .temporaryFailure }

    /// The status of a run made of several outcomes: one that may pass wins, so that the
    /// scheduler runs the job again (a held week stays held meanwhile); otherwise the
    /// first failure.
    public static func overall(_ statuses: [ExitStatus]) -> ExitStatus {
        statuses.first(where: \.mayPass) ?? statuses.first { $0 != .ok } ?? .ok
    }

    /// The exit status for a failure talking to the bank: 69 and 75 for what may pass by
    /// itself (no connection, timeouts, 5xx, 429, insufficient funds), so that a scheduler
    /// tries again; 78 for what needs a person (a certificate that is not trusted, a URL
    /// that is not the bank's API, a 4xx refusal of a request the job built).
    public init(_ error: BankError) {
        switch error {
        case .unreachable(_, let transport):
            switch transport.kind {
            case .tls, .badRequest: self = .configuration
            // An answer too large to read is the bank's data, not the way to it.
            case .tooLarge: self = .dataError
            case .couldNotConnect, .timedOut, .connectionLost, .other: self = .unavailable
            }
        case .serverError: self = .unavailable
        case .tokenRejected: self = .permissionDenied
        case .rateLimited: self = .temporaryFailure
        case .malformedResponse: self = .dataError
        // A budget spent: the next run carries on.
        case .outOfTime: self = .temporaryFailure
        case .refused(_, _, let messages) where messages.contains("INSUFFICIENT_FUNDS"): self = .temporaryFailure
        case .refused: self = .configuration
        case .retriesEnded(let last, _, _): self = ExitStatus(last)
        }
    }
}
