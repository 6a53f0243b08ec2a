public import Foundation
public import RoundUp
public import StarlingEmulator
import Synchronization

/// How much of an emulator's traffic the contract check holds to the bank's description.
public enum ContractCheck: Sendable {
    /// Every request and every answer a fault did not alter: the default.
    case whole
    /// The requests only: the test serves, on purpose, values the bank does not define.
    case requestsOnly
    /// Nothing: the test sends, on purpose, requests the bank does not define.
    case none
}

/// A directory under the system's temporary directory, removed when released.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init() throws {
        path = NSTemporaryDirectory() + "roundup-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Starts the emulator with `state` (behaving as `behaviour` says, its clock read from
/// `now`) on a free loopback port, runs `body`, stops it.
///
/// With `ROUNDUP_CONTRACT_TRAFFIC` naming a directory, as `scripts/test` sets it, the
/// emulator writes every exchange there for `scripts/contract` to check against the
/// bank's published description, as far as `contract` says.
public func withEmulator<T>(
    _ state: BankState, behaviour: EmulatorBehaviour = EmulatorBehaviour(), contract: ContractCheck = .whole,
    now: @escaping @Sendable () -> Instant = { Instant.now }, _ body: (EmulatorServer) async throws -> T
) async throws -> T {
    try await gated {
        let directory = ProcessInfo.processInfo.environment["ROUNDUP_CONTRACT_TRAFFIC"]
        let traffic = try directory.flatMap { directory in
            contract == .none ? nil : try TrafficLog(directory: directory, answersOffSpec: contract == .requestsOnly)
        }
        let server = try await EmulatorServer.start(
            bank: EmulatedBank(state: state, now: now, behaviour: behaviour), traffic: traffic)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }
}

/// How many tests may serve an emulator or run a child process at once. `swift test` starts
/// every test at once; each one that serves the bank over loopback, or runs the built
/// binary, needs the machine for a while, and hundreds side by side on a small machine
/// would make each wait past its timeouts. A test waits here for a place instead, taken for
/// as long as `gated`'s body runs. `ROUNDUP_TEST_WIDTH` sets the width (scripts/test sets
/// 16); by default it is twice the processors this process may use.
public actor TestGate {
    public static let shared = TestGate(
        width: ProcessInfo.processInfo.environment["ROUNDUP_TEST_WIDTH"].flatMap(Int.init).map { max(1, $0) }
            ?? max(2, 2 * ProcessInfo.processInfo.activeProcessorCount))

    /// Whether the running task already holds a place: what it starts within it needs no other.
    @TaskLocal static var holding = false

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) { free = width }

    func enter() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}

/// Runs `body` once the test holds a place at `TestGate` (at once, when it holds one already).
public func gated<T>(_ body: () async throws -> T) async throws -> T {
    if TestGate.holding { return try await body() }
    await TestGate.shared.enter()
    let result: Result<T, any Error>
    do {
        result = .success(try await TestGate.$holding.withValue(true) { try await body() })
    } catch {
        result = .failure(error)
    }
    await TestGate.shared.leave()
    return try result.get()
}

/// A clock that stands still at the instant it was last set to, for runs whose reports
/// must come out the same every time: the job and the emulator read it instead of the
/// real clock, and a test moves it on between runs.
public final class StoppedClock: Sendable {
    private let instant: Mutex<Instant>

    public init(_ instant: Instant) { self.instant = Mutex(instant) }

    public func set(_ instant: Instant) { self.instant.withLock { $0 = instant } }

    public var now: Instant { instant.withLock { $0 } }

    /// The clock as the job and the emulator take it.
    public var read: @Sendable () -> Instant { { self.now } }
}

/// Builds a bank state for a test, one account and feed item at a time.
public struct TestBank: Sendable {
    public var state: BankState
    public static let london = TimeZone(identifier: "Europe/London")!

    public init(token: String = "test-token-" + UUID().uuidString) {
        state = BankState(token: token)
    }

    /// Adds an account in `currency`; returns its uid. `nativeRoundUp` is the bank's own
    /// round-up: nil never set up, else whether it is on. `overdraft` is the arranged
    /// overdraft, in minor units.
    @discardableResult
    public mutating func account(
        _ currency: String, name: String? = nil, balance: Int64 = 1_000_000_00, type: String = "PRIMARY",
        nativeRoundUp: Bool? = nil, overdraft: Int64 = 0
    ) -> String {
        let index = state.accounts.count + 1
        let uid = String(format: "acc00000-0000-4000-8000-%012d", index)
        state.accounts.append(
            EmulatedAccount(
                uid: uid, defaultCategory: category(of: uid), currency: currency,
                name: name ?? "\(currency) account", balance: balance, accountType: type,
                nativeRoundUp: nativeRoundUp, arrangedOverdraft: overdraft))
        return uid
    }

    /// The default category of an account added by `account(_:)`.
    public func category(of accountUid: String) -> String { "ca7" + accountUid.dropFirst(3) }

    /// Adds a settled outgoing card payment, or whatever `change` makes of it.
    public mutating func spend(
        _ accountUid: String, _ minorUnits: Int64, settled: Instant, currency: String? = nil,
        _ change: (inout EmulatedFeedItem) -> Void = { _ in }
    ) {
        let account = state.accounts.first { $0.uid == accountUid }!
        let count = state.feeds.values.reduce(0) { $0 + $1.count } + 1
        var item = EmulatedFeedItem(
            uid: String(format: "feed0000-0000-4000-8000-%012d", count), categoryUid: account.defaultCategory,
            amount: EmulatedAmount(currency ?? account.currency, minorUnits), transactionTime: settled,
            settlementTime: settled, counterPartyName: "Shop \(count)", spendingCategory: "SHOPPING")
        change(&item)
        state.feeds[accountUid, default: []].append(item)
    }

    /// Adds a goal to an account, holding `saved` minor units, with a target of `target`.
    public mutating func goal(
        _ accountUid: String, name: String, uid: String, state goalState: String = "ACTIVE", target: Int64? = nil,
        saved: Int64 = 0
    ) {
        let currency = state.accounts.first { $0.uid == accountUid }!.currency
        state.goals[accountUid, default: []].append(
            EmulatedGoal(
                uid: uid, name: name, currency: currency, target: target, totalSaved: saved, state: goalState))
    }
}

extension TestBank {
    /// Adds a standing order of `minorUnits` paid from `accountUid`'s main balance (or from
    /// `category`), next on `next`, repeating by `frequency` (nil: no recurrence given).
    public mutating func standingOrder(
        _ accountUid: String, _ minorUnits: Int64, next: LocalDate?, frequency: String? = "MONTHLY",
        interval: Int? = nil, reference: String = "Rent", category: String? = nil, cancelled: Bool = false,
        start: LocalDate? = nil
    ) {
        let account = state.accounts.first { $0.uid == accountUid }!
        let count = state.schedule.standingOrders.values.reduce(0) { $0 + $1.count } + 1
        state.schedule.standingOrders[accountUid, default: []].append(
            EmulatedStandingOrder(
                paymentOrderUid: String(format: "50000000-0000-4000-8000-%012d", count),
                amount: EmulatedAmount(account.currency, minorUnits), reference: reference,
                recurrence: frequency.map {
                    EmulatedRecurrence(
                        startDate: (start ?? next ?? LocalDate(iso: "2026-01-01")!).description, frequency: $0,
                        interval: interval)
                },
                nextDate: next?.description, categoryUid: category ?? account.defaultCategory,
                cancelledAt: cancelled ? "2026-01-01T09:00:00.000Z" : nil))
    }

    /// Adds a direct debit mandate on `accountUid`, last paid `lastAmount` minor units (nil:
    /// never paid), next on `next`.
    public mutating func mandate(
        _ accountUid: String, lastAmount: Int64?, next: LocalDate?, lastDate: LocalDate? = nil,
        status: String = "LIVE", name: String = "Octopus Energy", currency: String? = nil
    ) {
        let account = state.accounts.first { $0.uid == accountUid }!
        let count = state.schedule.mandates.values.reduce(0) { $0 + $1.count } + 1
        let last: EmulatedMandate.LastPayment? =
            lastAmount == nil && lastDate == nil
            ? nil
            : .init(
                lastDate: lastDate?.description,
                lastAmount: lastAmount.map { EmulatedAmount(currency ?? account.currency, $0) })
        state.schedule.mandates[accountUid, default: []].append(
            EmulatedMandate(
                uid: String(format: "6d000000-0000-4000-8000-%012d", count), reference: "REF-\(count)", status: status,
                nextDate: next?.description, originatorName: name, lastPayment: last, accountUid: accountUid,
                categoryUid: account.defaultCategory))
    }

    /// Adds a recurring transfer of `minorUnits` into the goal `goalUid`, next on `next`.
    public mutating func recurringTransfer(
        into goalUid: String, _ minorUnits: Int64, currency: String = "GBP", next: LocalDate,
        frequency: String = "MONTHLY"
    ) {
        state.schedule.recurringTransfers[goalUid] = EmulatedRecurringTransfer(
            transferUid: "7e000000-0000-4000-8000-000000000001",
            recurrenceRule: EmulatedRecurrence(startDate: next.description, frequency: frequency),
            currencyAndAmount: EmulatedAmount(currency, minorUnits), nextPaymentDate: next.description)
    }
}

/// The week ending `endDate` (YYYY-MM-DD) in London, for tests.
public func londonWeek(_ endDate: String) -> Week {
    Week(endingOn: LocalDate(iso: endDate)!, in: TestBank.london)
}

/// The cells of the summary table's row for `account` (`Personal (GBP)`): account,
/// transactions, amount, goal, status; nil when there is no such row.
public func summaryRow(_ output: String, _ account: String) -> [String]? {
    output.split(separator: "\n").first { $0.hasPrefix(account + "  ") }.map { line in
        line.split(separator: "  ", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces) }
    }
}

/// The project's checkout, where the schemas, the docs and the example config are.
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Waits until `condition` holds, looking every `interval`, for at most `limit`; whether it
/// came to hold. A test waits for what it waits for, never a guessed time, so that a slow or
/// loaded machine only makes it slower.
public func eventually(
    within limit: Duration = .seconds(30), every interval: Duration = .milliseconds(25),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: interval)
    }
}
