import Foundation
public import RoundUp

/// A request as the emulated bank sees it, independent of the HTTP server.
public struct EmulatorRequest: Sendable {
    public var method: String
    public var path: String
    public var query: [String: String]
    /// Header fields with lower-cased names.
    public var headers: [String: String]
    public var body: [UInt8]
    /// The client's end of the connection the request came on (`127.0.0.1:51234`), when known.
    public var connection: String?

    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: [UInt8] = [], connection: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.connection = connection
    }
}

/// The bank's answer.
public struct EmulatorResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]
    /// How long the server waits before it sends the answer.
    public var delay: Duration = .zero
    /// Close the connection instead of answering.
    public var dropConnection = false
    /// The fault injected into this answer, if any.
    public internal(set) var fault: Fault?

    public init(status: Int, headers: [String: String] = ["Content-Type": "application/json"], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    static let dropped: EmulatorResponse = {
        var response = EmulatorResponse(status: 0, headers: [:], body: [])
        response.dropConnection = true
        return response
    }()
}

/// What the emulator saw of one request, for tests to check. Holds no header values
/// except the ones tests assert on, and never the token.
public struct RecordedRequest: Sendable, Hashable {
    public var method: String
    public var path: String
    public var endpoint: Endpoint
    /// The fault injected into this request, if any.
    public var fault: Fault?
    /// When the bank saw the request.
    public var arrived: Instant
    public var query: [String: String]
    public var status: Int
    public var userAgent: String?
    public var accept: String?
    public var authorized: Bool
}

/// The emulated bank: a state machine from requests to responses that behaves like the
/// bank's public API for the endpoints the round-up job uses.
///
/// Like the bank it checks the bearer token and the token's scopes, serves the settled
/// feed by settlement time and a category's feed by transaction time, creates goals by
/// PUT, and refuses add-money into a goal that is not ACTIVE. As the bank documents no
/// replay behaviour, repeating a transfer uid moves the money again; only
/// ``EmulatorBehaviour/deduplicatesTransfers`` keys add-money on it. A transfer shows in the account's feed as a settled internal transfer to the goal,
/// stamped with the emulator's clock, which ``EmulatorBehaviour/clockOffset`` can put
/// ahead of or behind the real one.
public actor EmulatedBank {
    public private(set) var state: BankState
    public private(set) var requests: [RecordedRequest] = []
    /// Requests that have arrived, including those still being handled.
    public private(set) var arrivals = 0
    /// The connections requests came on, by the client's address and port: how many
    /// connections a client opened (and used).
    public private(set) var connections: Set<String> = []
    /// How the bank behaves where banks differ: deduplication, its clock, goal activation.
    public private(set) var behaviour: EmulatorBehaviour
    private var faultRules: [ActiveRule] = []
    private var rateCounter = RateCounter()
    private let now: @Sendable () -> Instant
    private var nextUid = 1
    /// Uids of goals deleted so far, which a new goal never takes again.
    private var deletedGoalUids: Set<String> = []

    /// A bank holding `state`. `now` is the real clock (tests inject their own); the bank's
    /// own clock is `now` shifted by the behaviour's `clockOffset`.
    public init(
        state: BankState, now: @escaping @Sendable () -> Instant = { Instant.now },
        behaviour: EmulatorBehaviour = EmulatorBehaviour()
    ) {
        self.state = state
        self.now = now
        self.behaviour = behaviour
    }

    /// Replaces the state, for tests that change the bank between runs.
    public func update(_ change: @Sendable (inout BankState) -> Void) {
        change(&state)
    }

    /// Changes how the bank behaves from now on, for tests that change it between runs.
    /// Goals already created keep their creation instant; whether they are served as
    /// ACTIVE is judged by the new activation delay.
    public func setBehaviour(_ behaviour: EmulatorBehaviour) {
        self.behaviour = behaviour
    }

    /// Removes a goal from an account, as its holder deleting it would. Transfers into it
    /// stay in the account's feed and in ``transfers``, as at the bank; add-money into it
    /// answers 404 UNKNOWN_SAVINGS_GOAL from now on. Returns whether there was such a goal.
    @discardableResult
    public func deleteGoal(accountUid: String, goalUid: String) -> Bool {
        guard let index = state.goals[accountUid]?.firstIndex(where: { $0.uid == goalUid }) else { return false }
        state.goals[accountUid]!.remove(at: index)
        deletedGoalUids.insert(goalUid)
        return true
    }

    /// Settles the feed item `feedItemUid` again at `instant`, as a bank that reports a
    /// payment settled later than it first said: its settlement (and, when `moveTransactionTime`,
    /// its transaction) time moves, its uid stays. Returns whether there was such an item.
    @discardableResult
    public func resettle(feedItemUid: String, at instant: Instant, moveTransactionTime: Bool = false) -> Bool {
        for (account, items) in state.feeds {
            guard let index = items.firstIndex(where: { Uid.canonical($0.feedItemUid) == Uid.canonical(feedItemUid) })
            else { continue }
            state.feeds[account]![index].settlementTime = instant.iso8601
            if moveTransactionTime { state.feeds[account]![index].transactionTime = instant.iso8601 }
            return true
        }
        return false
    }

    /// Settles every UPCOMING transfer into a goal, as the bank carrying out what it had
    /// scheduled (`EmulatorBehaviour.transfersUpcoming`). Returns how many it settled.
    @discardableResult
    public func settleUpcomingTransfers() -> Int {
        var settled = 0
        let moment = bankNow().iso8601
        for (account, items) in state.feeds {
            for index in items.indices
            where items[index].status == "UPCOMING" && items[index].source == "INTERNAL_TRANSFER" {
                state.feeds[account]![index].status = "SETTLED"
                state.feeds[account]![index].settlementTime = moment
                settled += 1
            }
        }
        return settled
    }

    /// The bank's clock: the real one shifted by the behaviour's `clockOffset`.
    private func bankNow() -> Instant {
        now().adding(milliseconds: behaviour.clockOffset.wholeMilliseconds)
    }

    /// The state a goal is served in: a goal created CREATING becomes ACTIVE once the
    /// activation delay has passed on the bank's clock since its creation.
    private func servedState(_ goal: EmulatedGoal) -> String {
        guard goal.state == "CREATING", let created = goal.createdAt else { return goal.state }
        let delay = behaviour.goalActivationDelay ?? .zero
        return bankNow() >= created.adding(milliseconds: delay.wholeMilliseconds) ? "ACTIVE" : goal.state
    }

    /// Transfers made so far, oldest first.
    public var transfers: [EmulatedTransfer] { state.transfers }

    /// What clients have done so far, for benchmarks: `GET /_emulator/stats` serves it.
    public struct Statistics: Codable, Sendable {
        public var requests: Int
        public var connections: Int
        public var transfers: Int
        /// The money moved into goals, in minor units, summed over currencies.
        public var movedMinorUnits: Int64
    }

    public var statistics: Statistics {
        Statistics(
            requests: arrivals, connections: connections.count, transfers: state.transfers.count,
            movedMinorUnits: state.transfers.reduce(0) { $0 + $1.amount.minorUnits })
    }

    /// Injects faults from now on, by these rules; the first rule that picks a request wins.
    /// An empty list stops injecting.
    public func injectFaults(_ rules: [FaultRule]) {
        faultRules = rules.map(ActiveRule.init)
    }

    /// The faults injected so far, in order.
    public var injectedFaults: [InjectedFault] {
        requests.compactMap { request in request.fault.map { InjectedFault(endpoint: request.endpoint, fault: $0) } }
    }

    /// Handles one request, with any fault the rules pick for it.
    public func handle(_ request: EmulatorRequest) async -> EmulatorResponse {
        arrivals += 1
        if let connection = request.connection { connections.insert(connection) }
        let arrived = now()
        var (endpoint, segments) = Endpoint.parse(method: request.method, path: request.path)
        // The bank reads a uid in a path as a UUID, in either case.
        if behaviour.upperCaseUids { segments = segments.map { Uid.canonical($0) } }
        var fault: Fault?
        for index in faultRules.indices {
            if let picked = faultRules[index].fault(for: endpoint, path: request.path) {
                fault = picked
                break
            }
        }
        if case .stall(let delay) = fault {
            // The actor is free for other requests while this one waits.
            try? await Task.sleep(for: delay)
        }
        var response: EmulatorResponse
        if fault == nil, let limit = behaviour.rateLimit, let wait = rateCounter.admit(at: arrived, under: limit) {
            response = errors(429, "TOO_MANY_REQUESTS")
            response.headers["Retry-After"] = String(wait)
            requests.append(
                RecordedRequest(
                    method: request.method, path: request.path, endpoint: endpoint, fault: nil, arrived: arrived,
                    query: request.query, status: 429, userAgent: request.headers["user-agent"],
                    accept: request.headers["accept"], authorized: false))
            return response
        }
        switch fault {
        case nil, .stall:
            response = route(request, endpoint, segments)
        case .latency(let delay):
            response = route(request, endpoint, segments)
            response.delay = delay
        case .serverError(let status):
            response = errors(status, "The service is temporarily unavailable")
        case .proxyError:
            response = EmulatorResponse(
                status: 502, headers: ["Content-Type": "text/html"],
                body: Array("<html><body><h1>502 Bad Gateway</h1></body></html>\n".utf8))
        case .rateLimited(let retryAfter):
            response = errors(429, "TOO_MANY_REQUESTS")
            if let retryAfter { response.headers["Retry-After"] = retryAfter }
        case .dropConnection:
            response = .dropped
        case .dropAfterApplying:
            _ = route(request, endpoint, segments)
            response = .dropped
        case .failAfterApplying(let status):
            _ = route(request, endpoint, segments)
            response = errors(status, "The service is temporarily unavailable")
        case .malformedBody(let garble):
            response = route(request, endpoint, segments)
            response.body = garbled(response.body, garble)
        case .rewrittenBody(let text, let replacement):
            response = route(request, endpoint, segments)
            response.body = Array(
                String(decoding: response.body, as: UTF8.self).replacing(text, with: replacement).utf8)
        }
        requests.append(
            RecordedRequest(
                method: request.method, path: request.path, endpoint: endpoint, fault: fault, arrived: arrived,
                query: request.query, status: response.status, userAgent: request.headers["user-agent"],
                accept: request.headers["accept"],
                authorized: request.headers["authorization"] == "Bearer \(state.token)"))
        response.fault = fault
        return response
    }

    private func garbled(_ body: [UInt8], _ garble: Fault.Garble) -> [UInt8] {
        switch garble {
        case .truncated: Array(body.prefix(body.count / 2))
        case .html: Array("<html><body>Service temporarily unavailable</body></html>".utf8)
        case .wrongShape: Array(#"{"accounts":"none","feedItems":7,"savingsGoalList":{},"scopes":null}"#.utf8)
        case .empty: []
        }
    }

    private func route(_ request: EmulatorRequest, _ endpoint: Endpoint, _ rest: [String]) -> EmulatorResponse {
        guard let authorization = request.headers["authorization"], authorization.hasPrefix("Bearer ") else {
            return oauthError(401, "invalid_token", "No access token was supplied")
        }
        guard authorization == "Bearer \(state.token)" else {
            return oauthError(403, "invalid_token", "The access token is invalid or has expired")
        }
        switch endpoint {
        case .identity:
            return json(200, IdentityBody(scopes: state.scopes))
        case .accounts:
            return requiring(["account:read", "account-list:read"]) { accounts() }
        case .balance:
            return requiring(["balance:read"]) { balance(accountUid: rest[1]) }
        case .confirmationOfFunds:
            return requiring(["confirmation-of-funds:read"]) {
                confirmationOfFunds(accountUid: rest[1], query: request.query)
            }
        case .settledFeed:
            return requiring(["transaction:read"]) { settledFeed(accountUid: rest[2], query: request.query) }
        case .categoryFeed:
            return requiring(["transaction:read"]) {
                categoryFeed(accountUid: rest[2], categoryUid: rest[4], query: request.query)
            }
        case .roundUp:
            return requiring(["savings-goal:read"]) { roundUp(accountUid: rest[2]) }
        case .savingsGoals:
            return requiring(["savings-goal:read"]) { goals(accountUid: rest[1]) }
        case .createGoal:
            return requiring(["savings-goal:create"]) { createGoal(accountUid: rest[1], body: request.body) }
        case .addMoney:
            return requiring(["savings-goal-transfer:create"]) {
                addMoney(accountUid: rest[1], goalUid: rest[3], transferUid: rest[5], body: request.body)
            }
        case .unknown:
            return notFound(request.path)
        }
    }

    private func requiring(_ scopes: [String], _ handler: () -> EmulatorResponse) -> EmulatorResponse {
        let missing = scopes.filter { !state.scopes.contains($0) }
        guard missing.isEmpty else {
            return oauthError(403, "insufficient_scope", "Missing scopes: \(missing.joined(separator: ", "))")
        }
        return handler()
    }

    // MARK: - Endpoints

    private func accounts() -> EmulatorResponse {
        let list = state.accounts.map {
            AccountBody(
                accountUid: $0.uid, accountType: $0.accountType, defaultCategory: $0.defaultCategory,
                currency: $0.currency, createdAt: "2020-01-06T09:30:00.000Z", name: $0.name)
        }
        return json(200, ["accounts": list])
    }

    private func balance(accountUid: String) -> EmulatorResponse {
        guard let account = state.accounts.first(where: { $0.uid == accountUid }) else {
            return errors(404, "UNKNOWN_ACCOUNT")
        }
        let amount = EmulatedAmount(account.currency, account.balance)
        return json(
            200,
            BalanceBody(
                clearedBalance: amount, effectiveBalance: amount,
                pendingTransactions: EmulatedAmount(account.currency, 0),
                acceptedOverdraft: EmulatedAmount(account.currency, account.arrangedOverdraft), amount: amount,
                totalClearedBalance: amount, totalEffectiveBalance: amount))
    }

    /// Whether the account can pay `targetAmountInMinorUnits`: available to spend counts
    /// the arranged overdraft; whether it would then be overdrawn does not.
    private func confirmationOfFunds(accountUid: String, query: [String: String]) -> EmulatorResponse {
        guard let account = state.accounts.first(where: { $0.uid == accountUid }) else {
            return errors(404, "UNKNOWN_ACCOUNT")
        }
        guard let text = query["targetAmountInMinorUnits"], let target = Int64(text), target >= 0 else {
            return errors(400, "INVALID_TARGET_AMOUNT")
        }
        let (left, overflow) = account.balance.subtractingReportingOverflow(target)
        let overdrawn = overflow || left < 0
        return json(
            200,
            FundsBody(
                requestedAmountAvailableToSpend: !overflow && left >= -account.arrangedOverdraft,
                accountWouldBeInOverdraftIfRequestedAmountSpent: overdrawn))
    }

    private func settledFeed(accountUid: String, query: [String: String]) -> EmulatorResponse {
        feed(accountUid: accountUid, query: query) { item in
            item.settlementTime.flatMap { Instant(iso8601: $0) }
        }
    }

    /// The feed items of one category of the account created (by transaction time) between
    /// the bounds, whatever their status: pending, declined and reversed items too.
    private func categoryFeed(accountUid: String, categoryUid: String, query: [String: String]) -> EmulatorResponse {
        feed(accountUid: accountUid, query: query) { item in
            item.categoryUid == categoryUid ? item.transactionTime.flatMap { Instant(iso8601: $0) } : nil
        }
    }

    /// The account's feed items whose instant, by `instant` (nil leaves an item out), lies
    /// between the query's bounds.
    private func feed(
        accountUid: String, query: [String: String], instant: (EmulatedFeedItem) -> Instant?
    ) -> EmulatorResponse {
        guard state.accounts.contains(where: { $0.uid == accountUid }) else {
            return errors(404, "UNKNOWN_ACCOUNT")
        }
        guard let minText = query["minTransactionTimestamp"], let maxText = query["maxTransactionTimestamp"],
            let min = Instant(iso8601: minText), let max = Instant(iso8601: maxText)
        else {
            return errors(400, "minTransactionTimestamp and maxTransactionTimestamp must be ISO 8601 timestamps")
        }
        // Both bounds inclusive: the bank does not say, and the job must not depend on it.
        let items = (state.feeds[accountUid] ?? []).filter { item in
            guard let moment = instant(item) else { return false }
            return min <= moment && moment <= max
        }
        return json(200, ["feedItems": items])
    }

    /// The bank's own round-up for the account, as the spec's `RoundUpGoalResponse`: whether
    /// it is on (off when it was never set up), and, when on, the goal it saves into.
    private func roundUp(accountUid: String) -> EmulatorResponse {
        guard let account = state.accounts.first(where: { $0.uid == accountUid }) else {
            return errors(404, "UNKNOWN_ACCOUNT")
        }
        let active = account.nativeRoundUp ?? false
        let goal = RoundUpGoalBody(
            roundUpGoalUid: "5a1e0000-0000-4000-8000-" + String(account.uid.suffix(12)), roundUpMultiplier: 1,
            primaryCategoryUid: account.defaultCategory, activatedAt: "2026-01-05T09:00:00.000Z",
            activatedBy: "a0000000-0000-4000-8000-000000000001")
        let shown = active ? goal : nil
        let body =
            switch behaviour.roundUpAnswer {
            case .full: RoundUpBody(active: active, roundUpGoalDetails: shown)
            case .activeOnly: RoundUpBody(active: active)
            case .detailsOnly: RoundUpBody(roundUpGoalDetails: shown)
            case .goalOnly: RoundUpBody(roundUpGoal: shown)
            case .empty: RoundUpBody()
            }
        return json(200, body)
    }

    private func goals(accountUid: String) -> EmulatorResponse {
        guard state.accounts.contains(where: { $0.uid == accountUid }) else {
            return errors(404, "UNKNOWN_ACCOUNT")
        }
        let list = (state.goals[accountUid] ?? []).map { goal in
            GoalBody(
                savingsGoalUid: goal.uid, name: goal.name,
                target: goal.target.map { EmulatedAmount(goal.currency, $0) },
                totalSaved: EmulatedAmount(goal.currency, goal.totalSaved),
                savedPercentage: goal.target.map { target in
                    let (hundredfold, overflow) = goal.totalSaved.multipliedReportingOverflow(by: 100)
                    return target > 0
                        ? Int(overflow ? Int64(Int32.max) : min(hundredfold / target, Int64(Int32.max))) : 0
                },
                state: servedState(goal))
        }
        return json(200, ["savingsGoalList": list])
    }

    private func createGoal(accountUid: String, body: [UInt8]) -> EmulatorResponse {
        guard let account = state.accounts.first(where: { $0.uid == accountUid }) else {
            return errors(404, "UNKNOWN_ACCOUNT")
        }
        guard let request = try? JSONDecoder().decode(CreateGoalBody.self, from: Data(body)) else {
            return errors(400, "INVALID_REQUEST_BODY")
        }
        guard !request.name.isEmpty, request.name.count <= 255 else { return errors(400, "INVALID_NAME") }
        guard request.currency == account.currency else { return errors(400, "CURRENCY_MISMATCH") }
        // Derived from the account and the goal's ordinal, so it does not depend on the order
        // in which concurrent requests arrive; never the uid of a goal the account has or had.
        let goals = state.goals[accountUid] ?? []
        var ordinal = goals.count
        var uid: String
        repeat {
            uid = TransferUID.uuidV5(
                namespace: Array(repeating: 0x42, count: 16), name: "goal \(accountUid) \(ordinal)")
            ordinal += 1
        } while deletedGoalUids.contains(uid) || goals.contains(where: { $0.uid == uid })
        state.goals[accountUid, default: []].append(
            EmulatedGoal(
                uid: uid, name: request.name, currency: request.currency, target: request.target?.minorUnits,
                state: behaviour.goalActivationDelay == nil ? "ACTIVE" : "CREATING", createdAt: bankNow()))
        return json(200, CreatedGoalBody(savingsGoalUid: uid, success: true))
    }

    private func addMoney(accountUid: String, goalUid: String, transferUid: String, body: [UInt8]) -> EmulatorResponse {
        guard let accountIndex = state.accounts.firstIndex(where: { $0.uid == accountUid }) else {
            return errors(404, "UNKNOWN_ACCOUNT")
        }
        guard let goalIndex = state.goals[accountUid]?.firstIndex(where: { $0.uid == goalUid }) else {
            return errors(404, "UNKNOWN_SAVINGS_GOAL")
        }
        guard UUID(uuidString: transferUid) != nil else { return errors(400, "INVALID_TRANSFER_UID") }
        guard let request = try? JSONDecoder().decode(TopUpBody.self, from: Data(body)) else {
            return errors(400, "INVALID_REQUEST_BODY")
        }
        let amount = request.amount
        if let reference = request.reference, reference.count > 100 {
            return errors(400, "INVALID_REFERENCE")
        }
        if behaviour.deduplicatesTransfers, let done = state.transfers.first(where: { $0.transferUid == transferUid }) {
            // The same transfer again: answer as before, move nothing.
            guard done.accountUid == accountUid, done.goalUid == goalUid, done.amount == amount else {
                return errors(409, "TRANSFER_UID_ALREADY_USED")
            }
            return json(200, TransferBody(transferUid: transferUid, success: true))
        }
        // Without deduplication a used transfer uid is just another transfer.
        let goal = state.goals[accountUid]![goalIndex]
        let goalState = servedState(goal)
        guard goalState == "ACTIVE" else { return errors(400, "SAVINGS_GOAL_NOT_ACTIVE") }
        guard amount.minorUnits > 0 else { return errors(400, "AMOUNT_MUST_BE_POSITIVE") }
        guard amount.currency == goal.currency else { return errors(400, "CURRENCY_MISMATCH") }
        let payer = state.accounts[accountIndex]
        let (left, overflow) = payer.balance.subtractingReportingOverflow(amount.minorUnits)
        guard !overflow, left >= -payer.arrangedOverdraft else {
            return errors(400, "INSUFFICIENT_FUNDS")
        }
        state.accounts[accountIndex].balance -= amount.minorUnits
        state.goals[accountUid]![goalIndex].totalSaved += amount.minorUnits
        state.transfers.append(
            EmulatedTransfer(
                transferUid: transferUid, accountUid: accountUid, goalUid: goalUid, amount: amount,
                reference: request.reference))
        let moment = bankNow()
        let account = state.accounts[accountIndex]
        // Both sides, as the bank shows a move between categories: out of the account's main
        // category, and into the goal's own (a goal's uid is its category's).
        let reference = behaviour.feedReference ? request.reference : nil
        let status = behaviour.transfersUpcoming ? "UPCOMING" : "SETTLED"
        let settled = behaviour.transfersUpcoming ? nil : moment
        state.feeds[accountUid, default: []] += [
            EmulatedFeedItem(
                uid: makeUid(), categoryUid: account.defaultCategory, amount: amount, status: status,
                transactionTime: moment, settlementTime: settled, source: "INTERNAL_TRANSFER",
                counterPartyType: "CATEGORY",
                counterPartyUid: goalUid, counterPartyName: goal.name, reference: reference, spendingCategory: "SAVING"),
            EmulatedFeedItem(
                uid: makeUid(), categoryUid: goalUid, amount: amount, direction: "IN", status: status,
                transactionTime: moment, settlementTime: settled, source: "INTERNAL_TRANSFER",
                counterPartyType: "CATEGORY",
                counterPartyUid: account.defaultCategory, counterPartyName: account.name, reference: reference,
                spendingCategory: "SAVING"),
        ]
        return json(200, TransferBody(transferUid: transferUid, success: true))
    }

    // MARK: - Bodies

    private func makeUid() -> String {
        defer { nextUid += 1 }
        return String(format: "e0000000-0000-4000-8000-%012x", nextUid)
    }

    private func json(_ status: Int, _ value: some Encodable) -> EmulatorResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
        guard behaviour.upperCaseUids else { return EmulatorResponse(status: status, body: Array(body)) }
        let upper = String(decoding: body, as: UTF8.self).replacing(
            /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/
        ) { $0.output.uppercased() }
        return EmulatorResponse(status: status, body: Array(upper.utf8))
    }

    private func errors(_ status: Int, _ message: String) -> EmulatorResponse {
        json(status, ErrorsBody(errors: [.init(message: message)], success: false))
    }

    private func oauthError(_ status: Int, _ error: String, _ description: String) -> EmulatorResponse {
        json(status, ["error": error, "error_description": description])
    }

    private func notFound(_ path: String) -> EmulatorResponse {
        errors(404, "No such endpoint: \(path)")
    }
}

private struct IdentityBody: Encodable {
    var accountHolderUid = "a0be8f4a-faa9-40f8-a0b8-58205e722cd7"
    var expiresAt = "2099-01-01T00:00:00.000Z"
    var expiresInSeconds = 86_400
    var scopes: [String]
    var authenticated = true
}

private struct AccountBody: Encodable {
    var accountUid: String
    var accountType: String
    var defaultCategory: String
    var currency: String
    var createdAt: String
    var name: String
}

private struct FundsBody: Encodable {
    var requestedAmountAvailableToSpend: Bool
    var accountWouldBeInOverdraftIfRequestedAmountSpent: Bool
}

private struct BalanceBody: Encodable {
    var clearedBalance: EmulatedAmount
    var effectiveBalance: EmulatedAmount
    var pendingTransactions: EmulatedAmount
    var acceptedOverdraft: EmulatedAmount
    var amount: EmulatedAmount
    var totalClearedBalance: EmulatedAmount
    var totalEffectiveBalance: EmulatedAmount
}

/// Fields that are nil are left out.
private struct RoundUpBody: Encodable {
    var active: Bool?
    var roundUpGoal: RoundUpGoalBody?
    var roundUpGoalDetails: RoundUpGoalBody?
}

private struct RoundUpGoalBody: Encodable {
    var roundUpGoalUid: String
    var roundUpMultiplier: Int
    var primaryCategoryUid: String
    var activatedAt: String
    var activatedBy: String
}

private struct GoalBody: Encodable {
    var savingsGoalUid: String
    var name: String
    var target: EmulatedAmount?
    var totalSaved: EmulatedAmount
    var savedPercentage: Int?
    var state: String
}

private struct CreateGoalBody: Decodable {
    var name: String
    var currency: String
    var target: EmulatedAmount?
}

private struct CreatedGoalBody: Encodable {
    var savingsGoalUid: String
    var success: Bool
}

private struct TopUpBody: Decodable {
    var amount: EmulatedAmount
    var reference: String?
}

private struct TransferBody: Encodable {
    var transferUid: String
    var success: Bool
}

private struct ErrorsBody: Encodable {
    struct Detail: Encodable { var message: String }
    var errors: [Detail]
    var success: Bool
}
