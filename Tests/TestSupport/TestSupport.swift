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
