public import CurlHTTP
import RoundUp

/// What went wrong talking to the bank, in the terms a user can act on.
public enum BankError: Error, Sendable, CustomStringConvertible {
    /// No response: the bank could not be reached or the connection failed.
    case unreachable(endpoint: String, TransportError)
    /// 401 or 403: the token is wrong, expired or revoked.
    case tokenRejected(endpoint: String, status: Int, messages: [String])
    /// 429: the bank asked us to slow down.
    case rateLimited(endpoint: String, retryAfter: String?)
    /// 5xx: the bank failed.
    case serverError(endpoint: String, status: Int, messages: [String])
    /// Another 4xx: the bank refused the request (for example `INSUFFICIENT_FUNDS`).
    case refused(endpoint: String, status: Int, messages: [String])
    /// A 2xx whose body is not what the API promises.
    case malformedResponse(endpoint: String, detail: String)
    /// The run's time limit (`runTimeoutSeconds`) had passed, or would have before the
    /// request to `endpoint` could be tried again, so it was not sent; `slowest` says why in
    /// words: the slowest request of the run, or the wait it would have needed.
    case outOfTime(endpoint: String, limit: Duration, slowest: String?)
    /// `last` failed again and again until the retry policy stopped, for the reason given.
    indirect case retriesEnded(_ last: BankError, attempts: Int, stop: RetryStop)

    /// The failure underneath any retries.
    public var underlying: BankError {
        if case .retriesEnded(let last, _, _) = self { return last.underlying }
        return self
    }

    /// Whether the bank may have carried the request out although no success came back: no
    /// answer after the request went out (a timeout, a lost connection), a 5xx, or a
    /// success whose body could not be read. A request that never connected, or that the
    /// bank answered with a refusal (4xx, 429), was certainly not carried out.
    public var mayHaveActed: Bool {
        switch self {
        case .unreachable(_, let error):
            switch error.kind {
            case .timedOut, .connectionLost, .other: true
            case .couldNotConnect, .tls, .badRequest: false
            // The whole answer came: whatever it was, the bank may have acted.
            case .tooLarge: true
            }
        case .serverError, .malformedResponse: true
        case .tokenRejected, .rateLimited, .refused, .outOfTime: false
        case .retriesEnded(let last, _, _): last.mayHaveActed
        }
    }

    /// Whether a transfer (add-money, whose body went out with the request) may have been
    /// carried out: as `mayHaveActed`, and after a 429 too, since the bank does not document
    /// that a refusal for its rate means that it did nothing.
    public var transferMayHaveMoved: Bool {
        if case .rateLimited = underlying { return true }
        return mayHaveActed
    }

    /// Whether the bank answered that it is not taking requests now: 503 (unavailable) or
    /// 429 (slow down), rather than no answer arriving (a timeout, a lost connection), an
    /// answer that could not be read, or another 5xx (500 may come after it acted; 502 and
    /// 504 come from a gateway that stopped waiting for it): only then may a transfer be
    /// sent again in the same run.
    public var bankAnsweredFailure: Bool {
        switch underlying {
        case .serverError(_, 503, _), .rateLimited: true
        default: false
        }
    }

    /// The failure as the retry policy sees it.
    public var retryableFailure: RetryableFailure {
        switch self {
        case .unreachable(_, let error): .transport(error.kind)
        case .tokenRejected(_, let status, _), .serverError(_, let status, _), .refused(_, let status, _):
            .status(status, retryAfter: nil)
        case .rateLimited(_, let retryAfter): .status(429, retryAfter: retryAfter)
        case .malformedResponse(_, let detail)
        where detail.hasPrefix(BankError.nestedTooDeeply) || detail.hasPrefix(BankError.tooLarge):
            .final
        case .malformedResponse: .unreadableBody
        case .outOfTime: .final
        case .retriesEnded(let last, _, _): last.retryableFailure
        }
    }

    public var description: String {
        switch self {
        case .unreachable(let endpoint, let error):
            "could not reach the bank for \(endpoint): \(error.message)"
        case .tokenRejected(let endpoint, let status, let messages):
            "the bank rejected the access token (HTTP \(status) on \(endpoint))\(BankError.list(messages)); "
                + "check that it is current and not revoked"
        case .rateLimited(let endpoint, let retryAfter):
            "the bank is rate-limiting requests (HTTP 429 on \(endpoint))"
                + (retryAfter.map { "; it asked to retry after \($0)" } ?? "")
        case .serverError(let endpoint, let status, let messages):
            "the bank failed with HTTP \(status) on \(endpoint)\(BankError.list(messages))"
        case .refused(let endpoint, let status, let messages):
            "the bank refused \(endpoint) with HTTP \(status)\(BankError.list(messages))"
        case .malformedResponse(let endpoint, let detail):
            "the bank's answer to \(endpoint) is malformed: \(detail)"
        case .outOfTime(let endpoint, let limit, let slowest):
            "the run's time limit (runTimeoutSeconds: \(limit.components.seconds)) was spent before \(endpoint) could "
                + "be sent" + (slowest.map { "; \($0)" } ?? "")
                + "; the next run carries on, looking in the feed before it sends any transfer again"
        case .retriesEnded(let last, let attempts, let stop):
            switch stop {
            case .attemptsExhausted: "\(last.description) (\(RetryStop.count(attempts)))"
            case .notRetryable: "\(last.description) (attempt \(attempts))"
            default: "\(last.description) (\(stop); \(RetryStop.count(attempts)))"
            }
        }
    }

    /// How an answer larger than the client reads whole is described (65, never retried).
    public static let tooLarge = "the answer is too large"

    /// How a body nested deeper than the client follows is described (65, never retried).
    public static let nestedTooDeeply = "the body is nested too deeply"

    /// `nestedTooDeeply`, in full.
    static var nestedTooDeeplyDetail: String {
        "\(nestedTooDeeply) (more than \(JSONDepth.limit) levels of arrays and objects) to be read safely"
    }

    private static func list(_ messages: [String]) -> String {
        messages.isEmpty ? "" : ": " + messages.map(printable).joined(separator: "; ")
    }
}
