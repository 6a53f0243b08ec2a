public import CurlHTTP
import Foundation
public import Logging
public import RoundUp

/// The bank's public API, as far as the round-up job uses it.
///
/// Every request carries `Authorization: Bearer …`, `Accept: application/json` and the
/// client's `User-Agent` (set on the transport). Responses are checked here, once: a
/// non-2xx status becomes a typed `BankError` with the bank's own messages, and a body
/// that does not decode becomes `.malformedResponse` naming the endpoint and the field.
///
/// Requests are retried as the `retrier` says when they fail in a way that may pass (no
/// connection, a timeout, 408, 429, 5xx, a garbled body). The two that change money or
/// goals are careful: goal creation looks for the goal again before it tries again, and a
/// transfer is tried again only when the bank certainly did not act on it (no connection
/// was made). A transfer that may have been carried out (a 429 included) fails with
/// `BankError.transferMayHaveMoved`, and the caller looks for evidence before sending it again.
public struct BankClient: Sendable {
    /// The API's base URL, without a trailing slash: `https://api.starlingbank.com`.
    public let baseURL: String
    /// How failed requests are tried again; its budget is shared by all of a run's requests.
    public let retrier: Retrier
    /// Keeps every request of the run under the bank's rate, and counts them.
    public let pacer: RequestPacer
    /// The run's time limit: no request starts after it (nil: none).
    public let deadline: RunDeadline?
    /// The bank's clock, as every answer's `Date` header shows it against the retrier's.
    public let clock: BankClock
    private let token: AccessToken
    private let transport: any HTTPTransport
    private let logger: Logger

    public init(
        baseURL: String, token: AccessToken, transport: any HTTPTransport,
        retrier: Retrier, pacer: RequestPacer = RequestPacer(perSecond: 5),
        deadline: RunDeadline? = nil, clock: BankClock = BankClock(),
        logger: Logger = Logger(label: "roundup.bank", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.clock = clock
        self.pacer = pacer
        self.deadline = deadline
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.token = token
        self.transport = transport
        self.retrier = retrier
        self.logger = logger
    }

    /// `text` without the access token: for a name from the config that the ledger will keep
    /// (a goal's), as the bank's answers are read without it.
    public func redacted(_ text: String) -> String { token.redacted(in: text) }

    /// `GET /api/v2/identity/token`: the token's scopes. Needs no scope itself.
    public func tokenIdentity() async throws(BankError) -> TokenIdentity {
        try await get("/api/v2/identity/token", as: TokenIdentity.self)
    }

    /// `GET /api/v2/accounts`: every account the token can see.
    public func accounts() async throws(BankError) -> [BankAccount] {
        try await get("/api/v2/accounts", as: AccountList.self).accounts
    }

    /// `GET …/settled-transactions-between`: the account's feed items that settled between
    /// `start` and `end`, as transactions. The bank does not document whether the bounds
    /// are inclusive, so callers filter again themselves. The body is decoded as it
    /// arrives and never kept whole (see `FeedDecoder`).
    public func settledTransactions(accountUid: String, from start: Instant, to end: Instant) async throws(BankError)
        -> [Transaction]
    {
        let path = "/api/v2/feed/account/\(segment(accountUid))/settled-transactions-between"
        let query = "minTransactionTimestamp=\(start.iso8601)&maxTransactionTimestamp=\(end.iso8601)"
        let endpoint = "GET \(path)"
        let decoder = try await retrying(endpoint) { (_) async throws(BankError) -> FeedDecoder in
            let decoder = FeedDecoder()
            _ = try await exchange(.get, path, query: query, body: nil, repeatable: true, consumer: decoder)
            try decoder.checkStructure(endpoint: endpoint)
            return decoder
        }
        // A settlement time that is not a timestamp is in the data, not in the delivery:
        // it is not retried.
        return try decoder.transactionsOrConversionError()
    }

    /// `GET …/category/{categoryUid}/transactions-between`: the OUT internal transfers among
    /// the category's feed items of every status whose transaction time lies between
    /// `start` and `end`. Used to find transfers into goals; streamed like the settled feed
    /// and only the transfers kept, as the same days may hold a busy week's payments.
    public func transfersOut(accountUid: String, categoryUid: String, from start: Instant, to end: Instant)
        async throws(BankError) -> [FeedItem]
    {
        let path = "/api/v2/feed/account/\(segment(accountUid))/category/\(segment(categoryUid))/transactions-between"
        let query = "minTransactionTimestamp=\(start.iso8601)&maxTransactionTimestamp=\(end.iso8601)"
        let endpoint = "GET \(path)"
        let decoder = try await retrying(endpoint) { (_) async throws(BankError) -> FeedDecoder in
            let decoder = FeedDecoder(keeping: .transfersOut)
            _ = try await exchange(.get, path, query: query, body: nil, repeatable: true, consumer: decoder)
            try decoder.checkStructure(endpoint: endpoint)
            return decoder
        }
        return decoder.transfersOut()
    }

    /// `GET /api/v2/accounts/{accountUid}/balance` (needs `balance:read`).
    public func balance(accountUid: String) async throws(BankError) -> AccountBalance {
        try await get("/api/v2/accounts/\(segment(accountUid))/balance", as: AccountBalance.self)
    }

    /// `GET /api/v2/accounts/{accountUid}/confirmation-of-funds` (needs
    /// `confirmation-of-funds:read`): whether paying `minorUnits` would overdraw the account,
    /// or nil when the answer does not say (its `requestedAmountAvailableToSpend` is true
    /// inside an arranged overdraft, so it cannot stand in).
    public func wouldOverdraw(accountUid: String, minorUnits: Int64) async throws(BankError) -> Bool? {
        try await get(
            "/api/v2/accounts/\(segment(accountUid))/confirmation-of-funds",
            query: "targetAmountInMinorUnits=\(minorUnits)", as: ConfirmationOfFunds.self
        ).accountWouldBeInOverdraftIfRequestedAmountSpent
    }

    /// `GET /api/v2/feed/account/{accountUid}/round-up` (needs `savings-goal:read`): whether
    /// the bank's own round-up is switched on for the account. An answer without `active`
    /// counts as on when it names a round-up goal, and cannot tell when it names none; a
    /// 404 (never set up) counts as off.
    public func nativeRoundUp(accountUid: String) async throws(BankError) -> NativeRoundUpState {
        do throws(BankError) {
            return try await get(
                "/api/v2/feed/account/\(segment(accountUid))/round-up", as: RoundUpGoalResponse.self
            ).state
        } catch {
            if case .refused(_, 404, _) = error.underlying { return .inactive }
            throw error
        }
    }

    /// `GET /api/v2/account/{accountUid}/savings-goals`.
    public func savingsGoals(accountUid: String) async throws(BankError) -> [SavingsGoal] {
        try await get("/api/v2/account/\(segment(accountUid))/savings-goals", as: SavingsGoalList.self)
            .savingsGoalList
    }

    /// `GET /api/v2/account/{accountUid}/spaces` (scope `space:read`): the account's goals
    /// as its spaces list them, each with where the app shows it (`sortOrder`).
    public func spaces(accountUid: String) async throws(BankError) -> [SavingsGoal] {
        try await get("/api/v2/account/\(segment(accountUid))/spaces", as: SpaceList.self).savingsGoals
    }

    /// `GET /api/v2/account/{accountUid}/savings-goals/{savingsGoalUid}`: one goal, with
    /// its total saved.
    public func savingsGoal(accountUid: String, goalUid: String) async throws(BankError) -> SavingsGoal {
        try await get("/api/v2/account/\(segment(accountUid))/savings-goals/\(segment(goalUid))", as: SavingsGoal.self)
    }

    /// `PUT /api/v2/account/{accountUid}/savings-goals`: creates a goal, returns its uid.
    ///
    /// The bank takes no client key for a new goal, so a create whose answer was lost may
    /// still have made the goal. Before each retry `existing` is asked for the goal; if it
    /// finds one, that goal is the answer and no second goal is made.
    public func createSavingsGoal(
        accountUid: String, name: String, currency: String, target: CurrencyAndAmount?,
        existing: () async throws(BankError) -> String?
    ) async throws(BankError) -> String {
        let path = "/api/v2/account/\(segment(accountUid))/savings-goals"
        let body = CreateSavingsGoalRequest(name: name, currency: currency, target: target)
        let encoded = try encode(body, for: path)
        return try await retrying("PUT \(path)") { (attempt) async throws(BankError) -> String in
            if attempt > 1, let uid = try await existing() { return uid }
            return try await once(
                .put, path, query: nil, body: encoded, repeatable: false, as: CreateSavingsGoalResponse.self
            ).savingsGoalUid
        }
    }

    /// `PUT …/savings-goals/{goalUid}/add-money/{transferUid}`: moves `amount` into the
    /// goal. The bank does not promise to recognise a repeated `transferUid`, so the call
    /// is tried again only when the bank certainly did not act on it; a failure after
    /// which it may have (`BankError.transferMayHaveMoved`) is left to the caller to look into.
    public func addMoney(
        accountUid: String, goalUid: String, transferUid: String, amount: CurrencyAndAmount, reference: String?
    ) async throws(BankError) -> TransferResponse {
        let path =
            "/api/v2/account/\(segment(accountUid))/savings-goals/\(segment(goalUid))/add-money/\(segment(transferUid))"
        let body = try encode(TopUpRequest(amount: amount, reference: reference), for: path)
        return try await retrying(
            "PUT \(path)", classify: { $0.transferMayHaveMoved ? .mayHaveActed : $0.retryableFailure }
        ) { (_) async throws(BankError) -> TransferResponse in
            try await once(.put, path, query: nil, body: body, repeatable: false, as: TransferResponse.self)
        }
    }

    // MARK: - One place for every request

    func get<Body: Decodable>(_ path: String, query: String? = nil, as type: Body.Type) async throws(BankError)
        -> Body
    {
        try await send(.get, path, query: query, body: nil, as: type)
    }

    /// A GET whose answer may be a 2xx with an empty body, which is nil; any other body is
    /// decoded whole.
    func getUnlessEmpty<Body: Decodable>(_ path: String, as type: Body.Type) async throws(BankError) -> Body? {
        try await retrying("GET \(path)") { (_) async throws(BankError) -> Body? in
            let response = try await exchange(.get, path, query: nil, body: nil, repeatable: true, consumer: nil)
            guard response.body.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return nil }
            return try decode(Body.self, from: response, endpoint: "GET \(path)")
        }
    }

    private func encode(_ body: some Encodable, for path: String) throws(BankError) -> [UInt8] {
        do {
            return Array(try JSONEncoder().encode(body))
        } catch {
            throw .malformedResponse(endpoint: "PUT \(path)", detail: "could not encode the request: \(error)")
        }
    }

    private func send<Body: Decodable>(
        _ method: HTTPMethod, _ path: String, query: String?, body: [UInt8]?, as type: Body.Type
    ) async throws(BankError) -> Body {
        try await retrying("\(method.rawValue) \(path)") { (_) async throws(BankError) -> Body in
            try await once(method, path, query: query, body: body, as: type)
        }
    }

    /// Runs `attempt` under the retry policy. A failure that was never retried is thrown as
    /// it is; one that was, or that the policy refused to wait for, says so.
    private func retrying<T>(
        _ endpoint: String, classify: (BankError) -> RetryableFailure = \.retryableFailure,
        _ attempt: (Int) async throws(BankError) -> T
    ) async throws(BankError) -> T {
        do throws(RetriesEnded<BankError>) {
            return try await retrier.run(
                attempt, classify: classify, mayWait: { delay in deadline?.allows(waiting: delay) ?? true },
                willRetry: { failure, number, delay in
                    logger.warning(
                        "\(failure.description); trying again in \(delay.inSeconds) (attempt \(number + 1) of \(retrier.policy.maxAttempts))"
                    )
                })
        } catch {
            if error.attempts == 1, error.stop == .notRetryable { throw error.last }
            // (A failure after which the bank may have acted is never retried, so it keeps
            // its kind for the caller, who looks in the feed.)
            if case .waitOutlastsRun(let wait) = error.stop, let deadline, !error.last.mayHaveActed {
                throw .outOfTime(
                    endpoint: endpoint, limit: deadline.limit,
                    slowest: "it would have waited \(wait.inSeconds) to try again after: \(error.last.description)")
            }
            throw .retriesEnded(error.last, attempts: error.attempts, stop: error.stop)
        }
    }

    /// One attempt of one request, with no retry, its body decoded whole.
    private func once<Body: Decodable>(
        _ method: HTTPMethod, _ path: String, query: String?, body: [UInt8]?, repeatable: Bool = true,
        as type: Body.Type
    ) async throws(BankError) -> Body {
        let response = try await exchange(method, path, query: query, body: body, repeatable: repeatable, consumer: nil)
        return try decode(Body.self, from: response, endpoint: "\(method.rawValue) \(path)")
    }

    /// `response`'s body, decoded whole. The access token is taken out of it first: text the
    /// bank sends back (a reference, a name) is said and kept, in reports and the ledger.
    private func decode<Body: Decodable>(_ type: Body.Type, from response: HTTPResponse, endpoint: String)
        throws(BankError) -> Body
    {
        do {
            return try JSONDecoder().decode(Body.self, from: Data(token.redacted(inUTF8: response.body)))
        } catch {
            throw .malformedResponse(
                endpoint: endpoint, detail: token.redacted(in: describe(error, body: response.body)))
        }
    }

    /// One attempt of one request: the 2xx response (its body given to `consumer` when
    /// there is one), or the failure.
    private func exchange(
        _ method: HTTPMethod, _ path: String, query: String?, body: [UInt8]?, repeatable: Bool,
        consumer: (any ResponseBodyConsumer)?
    ) async throws(BankError) -> HTTPResponse {
        let endpoint = "\(method.rawValue) \(path)"
        var headers: [(name: String, value: String)] = [
            ("Authorization", token.authorizationValue),
            ("Accept", "application/json"),
        ]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let url = baseURL + path + (query.map { "?\($0)" } ?? "")
        let request = HTTPRequest(method: method, url: url, headers: headers, body: body, repeatable: repeatable)
        let response: HTTPResponse
        try checkDeadline(endpoint)
        let ticket = await pacer.admit()
        // A signal stops the run: nothing starts after it (the process ends meanwhile).
        await StopGate.waitIfClosed()
        let started = ContinuousClock.now
        let sent = Instant(retrier.clock.now())
        do {
            if let consumer {
                response = try await transport.send(request, streamingBodyTo: consumer)
            } else {
                response = try await transport.send(request)
            }
        } catch {
            await pacer.finished(ticket)
            if error.kind == .tooLarge {
                // An answer came, and it is not one the API gives: bad data, not retried.
                throw .malformedResponse(endpoint: endpoint, detail: "\(BankError.tooLarge): \(error.message)")
            }
            logger.debug("\(endpoint): no answer (\(error.message))")
            throw .unreachable(endpoint: endpoint, error)
        }
        await pacer.finished(ticket)
        deadline?.record(endpoint, took: ContinuousClock.now - started)
        clock.record(date: response.header("Date"), sent: sent, received: Instant(retrier.clock.now()))
        // Method, path, status, size and time: never a header, so never the token. (The
        // message is only put together when debug logging is on.)
        logger.debug(
            "\(endpoint) → \(response.status), \(consumer != nil && (200..<300).contains(response.status) ? "streamed" : "\(response.body.count) bytes") in \((ContinuousClock.now - started).inSeconds)"
        )
        switch response.status {
        case 200..<300:
            return response
        case 401, 403:
            throw .tokenRejected(endpoint: endpoint, status: response.status, messages: messages(in: response))
        case 429:
            let retryAfter = response.header("Retry-After")
            // Every request waits, not only this one; a wait longer than the run will take
            // ends the run instead (see RetryPolicy.maxRetryAfter).
            if let delay = retryAfter.flatMap(RetryAfter.init)?.delay(from: retrier.clock.now()),
                delay <= retrier.policy.maxRetryAfter, deadline?.allows(waiting: delay) ?? true
            {
                await pacer.hold(for: delay)
            }
            throw .rateLimited(endpoint: endpoint, retryAfter: retryAfter)
        case 500..<600:
            throw .serverError(endpoint: endpoint, status: response.status, messages: messages(in: response))
        default:
            throw .refused(endpoint: endpoint, status: response.status, messages: messages(in: response))
        }
    }

    /// Refuses to start a request once the run's time limit has passed.
    private func checkDeadline(_ endpoint: String) throws(BankError) {
        guard let deadline, deadline.hasPassed else { return }
        throw .outOfTime(endpoint: endpoint, limit: deadline.limit, slowest: deadline.slowestRequest)
    }

    private func messages(in response: HTTPResponse) -> [String] {
        guard let decoded = try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body)) else { return [] }
        // The bank's own words go into logs, reports and the ledger: never with the token.
        return decoded.messages.map { token.redacted(in: String($0.prefix(300))) }
    }

    /// Path segments come from the bank's own answers; escaping them keeps a hostile or
    /// broken value from changing the path.
    func segment(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? value
    }
}

/// A JSON type in words.
private func kind(_ type: Any.Type) -> String {
    switch type {
    case is Int64.Type, is Int.Type, is Int32.Type: "a whole number"
    case is String.Type: "text"
    case is Bool.Type: "true or false"
    case is Double.Type, is Decimal.Type: "a number"
    default:
        "\(type)".hasPrefix("Array") ? "a list" : "an object"
    }
}

/// A decoding error in words: which field, what was wrong. `under` is the path of the
/// decoded value within a larger body (a feed item's place in the feed).
func describe(_ error: any Error, body: [UInt8], under prefix: [any CodingKey] = []) -> String {
    func path(_ codingPath: [any CodingKey]) -> String {
        let codingPath = prefix + codingPath
        let text = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return text.isEmpty ? "the top level" : String(text.drop { $0 == "." })
    }
    guard let error = error as? DecodingError else { return "\(error)" }
    switch error {
    case .keyNotFound(let key, let context):
        return "\(path(context.codingPath + [key])) is missing"
    case .typeMismatch(let type, let context):
        return "\(path(context.codingPath)) is not \(kind(type))"
    case .valueNotFound(let type, let context):
        return "\(path(context.codingPath)) is null, expected \(kind(type))"
    case .dataCorrupted(let context):
        if context.codingPath.isEmpty {
            if body.isEmpty { return "the body is empty" }
            if JSONDepth.exceedsLimit(body) { return BankError.nestedTooDeeplyDetail }
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
