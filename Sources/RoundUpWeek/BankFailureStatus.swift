public import RoundUpVocabulary
public import StarlingAPI

extension ExitStatus {
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
