/// The endpoints the emulator serves, for choosing where faults go.
public enum Endpoint: String, Sendable, CaseIterable, Hashable {
    case identity, accounts, balance, confirmationOfFunds, settledFeed, categoryFeed, roundUp, savingsGoals, createGoal
    case savingsGoal, addMoney, standingOrders, upcomingPayments, mandates, recurringTransfer, spaces, unknown

    /// The endpoint `method` and `path` address, and the path's segments after `/api/v2`
    /// (where the account, goal and transfer uids are).
    static func parse(method: String, path: String) -> (Endpoint, [String]) {
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count >= 2, parts[0] == "api", parts[1] == "v2" else { return (.unknown, []) }
        let rest = Array(parts.dropFirst(2))
        let endpoint: Endpoint =
            switch (method, rest.count) {
            case ("GET", 2) where rest == ["identity", "token"]: .identity
            case ("GET", 1) where rest[0] == "accounts": .accounts
            case ("GET", 3) where rest[0] == "accounts" && rest[2] == "balance": .balance
            case ("GET", 3) where rest[0] == "accounts" && rest[2] == "confirmation-of-funds": .confirmationOfFunds
            case ("GET", 4)
            where rest[0] == "feed" && rest[1] == "account" && rest[3] == "settled-transactions-between":
                .settledFeed
            case ("GET", 4) where rest[0] == "feed" && rest[1] == "account" && rest[3] == "round-up": .roundUp
            case ("GET", 6)
            where rest[0] == "feed" && rest[1] == "account" && rest[3] == "category"
                && rest[5] == "transactions-between":
                .categoryFeed
            case ("GET", 3) where rest[0] == "account" && rest[2] == "savings-goals": .savingsGoals
            case ("PUT", 3) where rest[0] == "account" && rest[2] == "savings-goals": .createGoal
            case ("GET", 4) where rest[0] == "account" && rest[2] == "savings-goals": .savingsGoal
            case ("GET", 3) where rest[0] == "account" && rest[2] == "spaces": .spaces
            case ("PUT", 6) where rest[0] == "account" && rest[2] == "savings-goals" && rest[4] == "add-money":
                .addMoney
            case ("GET", 7)
            where rest[0] == "payments" && rest[1] == "local" && rest[2] == "account" && rest[4] == "category"
                && rest[6] == "standing-orders":
                .standingOrders
            case ("GET", 9)
            where rest[0] == "payments" && rest[1] == "local" && rest[2] == "account" && rest[4] == "category"
                && rest[6] == "standing-orders" && rest[8] == "upcoming-payments":
                .upcomingPayments
            case ("GET", 4) where rest[0] == "direct-debit" && rest[1] == "mandates" && rest[2] == "account": .mandates
            case ("GET", 5) where rest[0] == "account" && rest[2] == "savings-goals" && rest[4] == "recurring-transfer":
                .recurringTransfer
            default: .unknown
            }
        return (endpoint, rest)
    }
}

/// Something going wrong with one request, as it does between a client and a bank.
public enum Fault: Sendable, Hashable, CustomStringConvertible {
    /// The answer is right but comes late.
    case latency(Duration)
    /// The request waits this long before the bank acts on it, then is answered normally.
    case stall(Duration)
    /// The bank fails with this 5xx status and does nothing.
    case serverError(Int)
    /// A proxy in front of the bank answers 502 with an HTML page; the bank never sees it.
    case proxyError
    /// 429, with this `Retry-After` header if any; nothing is done.
    case rateLimited(retryAfter: String?)
    /// The connection is closed with no answer; the bank never acted.
    case dropConnection
    /// The bank acts (money moves, a goal is made), then the connection is closed with no
    /// answer: the client cannot know that it worked.
    case dropAfterApplying
    /// The bank acts, then answers with this 5xx status.
    case failAfterApplying(Int)
    /// The bank acts, then answers 429 with this `Retry-After` header if any, as a rate
    /// limiter that counts requests after they were carried out would.
    case rateLimitedAfterApplying(retryAfter: String?)
    /// The bank acts and answers, but the body arrives garbled.
    case malformedBody(Garble)
    /// The bank acts and answers, with every `text` in the body replaced by `replacement`:
    /// a precise way to serve a wrong type, an impossible number or a cut.
    case rewrittenBody(_ text: String, _ replacement: String)

    /// The ways a body can be garbled.
    public enum Garble: String, Sendable, Hashable, CaseIterable {
        /// Cut off half way.
        case truncated
        /// Not JSON at all.
        case html
        /// Valid JSON of the wrong shape.
        case wrongShape
        /// Nothing at all.
        case empty
    }

    /// A short name for the kind of fault, for counting.
    public var kind: String {
        switch self {
        case .latency: "latency"
        case .stall: "stall"
        case .serverError: "5xx"
        case .proxyError: "HTML 502 from a proxy"
        case .rateLimited: "429"
        case .dropConnection: "dropped connection"
        case .dropAfterApplying: "dropped after the bank acted"
        case .failAfterApplying: "5xx after the bank acted"
        case .rateLimitedAfterApplying: "429 after the bank acted"
        case .malformedBody, .rewrittenBody: "malformed body"
        }
    }

    public var description: String {
        switch self {
        case .latency(let delay): "latency \(delay)"
        case .stall(let delay): "stall \(delay)"
        case .serverError(let status): "HTTP \(status)"
        case .proxyError: "HTML 502 from a proxy"
        case .rateLimited(let retryAfter): "HTTP 429" + (retryAfter.map { ", Retry-After: \($0)" } ?? "")
        case .dropConnection: "dropped connection"
        case .dropAfterApplying: "dropped connection after the bank acted"
        case .failAfterApplying(let status): "HTTP \(status) after the bank acted"
        case .rateLimitedAfterApplying(let retryAfter):
            "HTTP 429 after the bank acted" + (retryAfter.map { ", Retry-After: \($0)" } ?? "")
        case .malformedBody(let garble): "malformed body (\(garble.rawValue))"
        case .rewrittenBody(let text, let replacement): "body with '\(text)' replaced by '\(replacement)'"
        }
    }

    /// Every kind of transient fault, with short delays, for fault matrices.
    public static let transientKinds: [Fault] = [
        .latency(.milliseconds(30)), .serverError(500), .serverError(503), .proxyError,
        .rateLimited(retryAfter: "0"), .rateLimited(retryAfter: nil), .dropConnection, .dropAfterApplying,
        .failAfterApplying(502), .malformedBody(.truncated), .malformedBody(.html), .malformedBody(.wrongShape),
        .malformedBody(.empty),
    ]
}

/// When and where a fault is injected.
public struct FaultRule: Sendable {
    /// Which requests are counted and may fail; all of them when nil.
    public var endpoints: Set<Endpoint>?
    /// If set, only requests whose path contains this (an account uid, say) are counted.
    public var pathContains: String?
    /// Which of the counted requests fail.
    public var when: Trigger
    /// The faults to inject, taken in turn (or at random, for `.randomly`).
    public var faults: [Fault]

    public enum Trigger: Sendable {
        /// The n-th counted requests, from 1.
        case onRequests(Set<Int>)
        /// The first n counted requests.
        case first(Int)
        /// Every counted request.
        case always
        /// Each counted request with this probability, drawn from a generator seeded with
        /// `seed`, so that a failing run can be repeated exactly.
        case randomly(probability: Double, seed: UInt64)
    }

    public init(endpoints: Set<Endpoint>? = nil, pathContains: String? = nil, when: Trigger, faults: [Fault]) {
        self.endpoints = endpoints
        self.pathContains = pathContains
        self.when = when
        self.faults = faults
    }

    /// Shorthand: `fault` on the first `count` requests to `endpoints`.
    public static func first(_ count: Int, _ endpoints: Set<Endpoint>? = nil, _ fault: Fault) -> FaultRule {
        FaultRule(endpoints: endpoints, when: .first(count), faults: [fault])
    }
}

/// A fault the emulator injected, for tests to count.
public struct InjectedFault: Sendable, Hashable {
    public var endpoint: Endpoint
    public var fault: Fault

    public init(endpoint: Endpoint, fault: Fault) {
        self.endpoint = endpoint
        self.fault = fault
    }
}

/// The state of one rule while requests arrive.
struct ActiveRule {
    let rule: FaultRule
    var seen = 0
    var injected = 0
    var random: SeededRandom

    init(_ rule: FaultRule) {
        self.rule = rule
        if case .randomly(_, let seed) = rule.when {
            random = SeededRandom(seed: seed)
        } else {
            random = SeededRandom(seed: 0)
        }
    }

    /// Counts a request to `endpoint` and says whether it fails, and how.
    mutating func fault(for endpoint: Endpoint, path: String) -> Fault? {
        guard !rule.faults.isEmpty, rule.endpoints?.contains(endpoint) ?? true,
            rule.pathContains.map({ path.contains($0) }) ?? true
        else { return nil }
        seen += 1
        let fails: Bool
        var pick = injected
        switch rule.when {
        case .onRequests(let numbers): fails = numbers.contains(seen)
        case .first(let count): fails = seen <= count
        case .always: fails = true
        case .randomly(let probability, _):
            fails = random.nextUnit() < probability
            pick = Int(random.next() % UInt64(rule.faults.count))
        }
        guard fails else { return nil }
        injected += 1
        return rule.faults[pick % rule.faults.count]
    }
}

/// A small, fast, seedable generator (Steele, Lea and Flood's SplitMix64), so that fault
/// sequences and generated test data repeat exactly for a given seed.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<1.
    public mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
