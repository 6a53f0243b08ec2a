public import CurlHTTP

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
        }
    }

    private static func list(_ messages: [String]) -> String {
        messages.isEmpty ? "" : ": " + messages.joined(separator: "; ")
    }
}
