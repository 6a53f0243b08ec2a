import CurlHTTP
import Foundation
public import RoundUp

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
    public internal(set) var state: BankState
    public private(set) var requests: [RecordedRequest] = []
    /// Requests that have arrived, including those still being handled.
    public private(set) var arrivals = 0
    /// Requests a stall fault holds now, before they are answered: a test waits for this
    /// rather than for a guessed time.
    public private(set) var stalled = 0
    /// The connections requests came on, by the client's address and port: how many
    /// connections a client opened (and used).
    public private(set) var connections: Set<String> = []
    /// How the bank behaves where banks differ: deduplication, its clock, goal activation.
    public private(set) var behaviour: EmulatorBehaviour
    private var faultRules: [ActiveRule] = []
    private var rateCounter = RateCounter()
    private let now: @Sendable () -> Instant
    /// Uids of goals deleted so far, which a new goal never takes again.
    var deletedGoalUids: Set<String> = []
    /// With a feed lag: when each transfer's feed items show, by uid, on the bank's clock.
    var shownFrom: [String: Instant] = [:]
    /// With a feed lag that goals' totals share: transfers not yet counted in their goal's total.
    var unshownSaved: [(goalUid: String, minorUnits: Int64, from: Instant)] = []
    /// With `scatteredGoalAnswers`: the draws that order goals and delay their answers.
    var scatter: SeededRandom?

    /// A bank holding `state`. `now` is the real clock (tests inject their own); the bank's
    /// own clock is `now` shifted by the behaviour's `clockOffset`.
    public init(
        state: BankState, now: @escaping @Sendable () -> Instant = { Instant.now },
        behaviour: EmulatorBehaviour = EmulatorBehaviour()
    ) {
        self.state = state
        self.now = now
        self.behaviour = behaviour
        self.scatter = behaviour.scatteredGoalAnswers.map { SeededRandom(seed: $0) }
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
        self.scatter = behaviour.scatteredGoalAnswers.map { SeededRandom(seed: $0) }
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

    /// Shows every transfer a feed lag still hides, in the feed and in its goal's total, as
    /// the lag having passed.
    public func showLaggingTransfers() {
        shownFrom = [:]
        unshownSaved = []
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
    func bankNow() -> Instant {
        now().adding(milliseconds: behaviour.clockOffset.wholeMilliseconds)
    }

    /// The state a goal is served in: a goal created CREATING becomes ACTIVE once the
    /// activation delay has passed on the bank's clock since its creation.
    func servedState(_ goal: EmulatedGoal) -> String {
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
        /// The requests answered so far, by the bank's name for what each asks
        /// (`Endpoint`: `settledFeed`, `addMoney`, …).
        public var byEndpoint: [String: Int]
    }

    public var statistics: Statistics {
        Statistics(
            requests: arrivals, connections: connections.count, transfers: state.transfers.count,
            movedMinorUnits: state.transfers.reduce(0) { $0 + $1.amount.minorUnits },
            byEndpoint: requests.reduce(into: [:]) { $0["\($1.endpoint)", default: 0] += 1 })
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

    /// Handles one request, with any fault the rules pick for it. Every answer carries the
    /// bank's clock in its `Date` header (unless the behaviour says otherwise).
    public func handle(_ request: EmulatorRequest) async -> EmulatorResponse {
        var response = await answer(request)
        if behaviour.sendsDate, !response.dropConnection {
            let millis = bankNow().millisecondsSince1970
            response.headers["Date"] = HTTPDate.format(seconds: millis >= 0 ? millis / 1000 : (millis - 999) / 1000)
        }
        return response
    }

    private func answer(_ request: EmulatorRequest) async -> EmulatorResponse {
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
            stalled += 1
            try? await Task.sleep(for: delay)
            stalled -= 1
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
        case .rateLimitedAfterApplying(let retryAfter):
            _ = route(request, endpoint, segments)
            response = errors(429, "TOO_MANY_REQUESTS")
            if let retryAfter { response.headers["Retry-After"] = retryAfter }
        case .malformedBody(let garble):
            response = route(request, endpoint, segments)
            response.body = garbled(response.body, garble)
        case .rewrittenBody(let text, let replacement):
            response = route(request, endpoint, segments)
            response.body = Array(
                String(decoding: response.body, as: UTF8.self).replacing(text, with: replacement).utf8)
        }
        if endpoint == .recurringTransfer, let draw = scatter?.next() {
            response.delay += .milliseconds(Int(draw % 80))
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
        case .savingsGoal:
            return requiring(["savings-goal:read"]) { goal(accountUid: rest[1], goalUid: rest[3]) }
        case .createGoal:
            return requiring(["savings-goal:create"]) { createGoal(accountUid: rest[1], body: request.body) }
        case .addMoney:
            return requiring(["savings-goal-transfer:create"]) {
                addMoney(accountUid: rest[1], goalUid: rest[3], transferUid: rest[5], body: request.body)
            }
        case .standingOrders:
            return requiring(anyOf: ["standing-order:read", "standing-order-own:read"]) {
                standingOrders(accountUid: rest[3], categoryUid: rest[5])
            }
        case .upcomingPayments:
            return requiring(["standing-order:read"]) {
                upcomingPayments(accountUid: rest[3], paymentOrderUid: rest[7], query: request.query)
            }
        case .mandates:
            return requiring(["mandate:read"]) { mandates(accountUid: rest[3]) }
        case .recurringTransfer:
            return requiring(["savings-goal-transfer:read"]) {
                recurringTransfer(accountUid: rest[1], goalUid: rest[3])
            }
        case .spaces:
            return requiring(["space:read"]) { spaces(accountUid: rest[1]) }
        case .unknown:
            return notFound(request.path)
        }
    }

    /// `handler`'s answer when the token has any of `scopes`.
    private func requiring(anyOf scopes: [String], _ handler: () -> EmulatorResponse) -> EmulatorResponse {
        guard scopes.contains(where: state.scopes.contains) else {
            return oauthError(403, "insufficient_scope", "Missing scopes: \(scopes.joined(separator: " or "))")
        }
        return handler()
    }

    private func requiring(_ scopes: [String], _ handler: () -> EmulatorResponse) -> EmulatorResponse {
        let missing = scopes.filter { !state.scopes.contains($0) }
        guard missing.isEmpty else {
            return oauthError(403, "insufficient_scope", "Missing scopes: \(missing.joined(separator: ", "))")
        }
        return handler()
    }
}
