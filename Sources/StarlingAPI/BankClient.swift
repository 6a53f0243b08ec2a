public import CurlHTTP
public import RoundUp
import Foundation

/// The bank's public API, as far as the round-up job uses it.
///
/// Every request carries `Authorization: Bearer …`, `Accept: application/json` and the
/// client's `User-Agent` (set on the transport). Responses are checked here, once: a
/// non-2xx status becomes a typed `BankError` with the bank's own messages, and a body
/// that does not decode becomes `.malformedResponse` naming the endpoint and the field.
public struct BankClient: Sendable {
    /// The API's base URL, without a trailing slash: `https://api.starlingbank.com`.
    public let baseURL: String
    private let token: AccessToken
    private let transport: any HTTPTransport

    public init(baseURL: String, token: AccessToken, transport: any HTTPTransport) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.token = token
        self.transport = transport
    }

    /// `GET /api/v2/identity/token`: the token's scopes. Needs no scope itself.
    public func tokenIdentity() async throws(BankError) -> TokenIdentity {
        try await get("/api/v2/identity/token", as: TokenIdentity.self)
    }

    /// `GET /api/v2/accounts`: every account the token can see.
    public func accounts() async throws(BankError) -> [BankAccount] {
        try await get("/api/v2/accounts", as: AccountList.self).accounts
    }

    /// `GET …/settled-transactions-between`: feed items whose settlement time lies
    /// between `start` and `end`. The bank does not document whether the bounds are
    /// inclusive, so callers filter again themselves.
    public func settledTransactions(accountUid: String, from start: Instant, to end: Instant) async throws(BankError)
        -> [FeedItem]
    {
        let path = "/api/v2/feed/account/\(segment(accountUid))/settled-transactions-between"
        let query = "minTransactionTimestamp=\(start.iso8601)&maxTransactionTimestamp=\(end.iso8601)"
        return try await get(path, query: query, as: FeedItemList.self).feedItems
    }

    /// `GET /api/v2/account/{accountUid}/savings-goals`.
    public func savingsGoals(accountUid: String) async throws(BankError) -> [SavingsGoal] {
        try await get("/api/v2/account/\(segment(accountUid))/savings-goals", as: SavingsGoalList.self)
            .savingsGoalList
    }

    /// `PUT /api/v2/account/{accountUid}/savings-goals`: creates a goal, returns its uid.
    public func createSavingsGoal(accountUid: String, name: String, currency: String, target: CurrencyAndAmount?)
        async throws(BankError) -> String
    {
        let path = "/api/v2/account/\(segment(accountUid))/savings-goals"
        let body = CreateSavingsGoalRequest(name: name, currency: currency, target: target)
        return try await put(path, body: body, as: CreateSavingsGoalResponse.self).savingsGoalUid
    }

    /// `PUT …/savings-goals/{goalUid}/add-money/{transferUid}`: moves `amount` into the
    /// goal. The bank keys the transfer on `transferUid`, so repeating the call with the
    /// same uid does not move the money twice.
    public func addMoney(accountUid: String, goalUid: String, transferUid: String, amount: CurrencyAndAmount)
        async throws(BankError) -> TransferResponse
    {
        let path =
            "/api/v2/account/\(segment(accountUid))/savings-goals/\(segment(goalUid))/add-money/\(segment(transferUid))"
        return try await put(path, body: TopUpRequest(amount: amount), as: TransferResponse.self)
    }

    // MARK: - One place for every request

    private func get<Body: Decodable>(_ path: String, query: String? = nil, as type: Body.Type) async throws(BankError)
        -> Body
    {
        try await send(.get, path, query: query, body: nil, as: type)
    }

    private func put<Request: Encodable, Body: Decodable>(_ path: String, body: Request, as type: Body.Type)
        async throws(BankError) -> Body
    {
        let encoded: Data
        do {
            encoded = try JSONEncoder().encode(body)
        } catch {
            throw .malformedResponse(endpoint: "PUT \(path)", detail: "could not encode the request: \(error)")
        }
        return try await send(.put, path, query: nil, body: Array(encoded), as: type)
    }

    private func send<Body: Decodable>(
        _ method: HTTPMethod, _ path: String, query: String?, body: [UInt8]?, as type: Body.Type
    ) async throws(BankError) -> Body {
        let endpoint = "\(method.rawValue) \(path)"
        var headers: [(name: String, value: String)] = [
            ("Authorization", token.authorizationValue),
            ("Accept", "application/json"),
        ]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let url = baseURL + path + (query.map { "?\($0)" } ?? "")
        let response: HTTPResponse
        do {
            response = try await transport.send(HTTPRequest(method: method, url: url, headers: headers, body: body))
        } catch {
            throw .unreachable(endpoint: endpoint, error)
        }
        switch response.status {
        case 200..<300:
            do {
                return try JSONDecoder().decode(Body.self, from: Data(response.body))
            } catch {
                throw .malformedResponse(endpoint: endpoint, detail: describe(error, body: response.body))
            }
        case 401, 403:
            throw .tokenRejected(endpoint: endpoint, status: response.status, messages: messages(in: response))
        case 429:
            throw .rateLimited(endpoint: endpoint, retryAfter: response.header("Retry-After"))
        case 500..<600:
            throw .serverError(endpoint: endpoint, status: response.status, messages: messages(in: response))
        default:
            throw .refused(endpoint: endpoint, status: response.status, messages: messages(in: response))
        }
    }

    private func messages(in response: HTTPResponse) -> [String] {
        guard let decoded = try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body)) else { return [] }
        return decoded.messages.map { String($0.prefix(300)) }
    }

    /// Path segments come from the bank's own answers; escaping them keeps a hostile or
    /// broken value from changing the path.
    private func segment(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? value
    }
}

/// A decoding error in words: which field, what was wrong.
func describe(_ error: any Error, body: [UInt8]) -> String {
    func path(_ codingPath: [any CodingKey]) -> String {
        let text = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return text.isEmpty ? "the top level" : String(text.drop { $0 == "." })
    }
    guard let error = error as? DecodingError else { return "\(error)" }
    switch error {
    case .keyNotFound(let key, let context):
        return "\(path(context.codingPath + [key])) is missing"
    case .typeMismatch(let type, let context):
        return "\(path(context.codingPath)) is not a \(type)"
    case .valueNotFound(let type, let context):
        return "\(path(context.codingPath)) is null, expected a \(type)"
    case .dataCorrupted(let context):
        if context.codingPath.isEmpty {
            if body.isEmpty { return "the body is empty" }
            // Foundation reports a number that does not fit its type (too large, not whole)
            // as invalid JSON, with no path; tell that apart from a body that is not JSON.
            if (try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])) != nil {
                return "a number is out of range or not a whole number where one is required"
            }
            return "the body is not valid JSON"
        }
        return "\(path(context.codingPath)): \(context.debugDescription)"
    @unknown default:
        return "\(error)"
    }
}
