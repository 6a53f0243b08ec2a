import RoundUp
public import StarlingEmulator

/// A bank for robustness tests: several accounts in currencies with 0, 2 and 3 decimals,
/// each with card payments of generated amounts in one week, and the round-up each account
/// should save, worked out here from integer minor units alone, independently of the job.
public struct GeneratedWeek: Sendable {
    public var bank: TestBank
    /// The round-up each account should move, in minor units, by account uid.
    public var expected: [String: Int64]
    public let weekEnd: String

    /// - Parameters:
    ///   - seed: the same seed gives the same accounts and payments.
    ///   - withGoals: whether the "Round-ups" goals exist already; if not the job creates them.
    public init(seed: UInt64, weekEnd: String = "2026-11-15", withGoals: Bool = false, token: String) {
        var random = SeededRandom(seed: seed)
        var bank = TestBank(token: token)
        var expected: [String: Int64] = [:]
        let week = londonWeek(weekEnd)
        let span = week.end.millisecondsSince1970 - week.start.millisecondsSince1970
        for (currency, unit) in [("GBP", Int64(100)), ("EUR", 100), ("JPY", 1), ("KWD", 1000)] {
            let account = bank.account(currency)
            if withGoals {
                bank.goal(
                    account, name: "Round-ups", uid: "90a10000-0000-4000-8000-00000000000\(bank.state.accounts.count)")
            }
            var total: Int64 = 0
            for _ in 0..<Int(random.next() % 12) {
                let minorUnits = Int64(random.next() % UInt64(unit * 300)) + 1
                let settled = Instant(
                    millisecondsSince1970: week.start.millisecondsSince1970 + Int64(random.next() % UInt64(span)))
                bank.spend(account, minorUnits, settled: settled)
                total += (unit - minorUnits % unit) % unit
            }
            expected[account] = total
        }
        self.bank = bank
        self.expected = expected
        self.weekEnd = weekEnd
    }

    /// What is wrong with the money in `state`: each account must have exactly one transfer
    /// of exactly its round-up (none when it is zero), into exactly one "Round-ups" goal.
    public func problems(in state: BankState) -> MoneyProblems {
        var problems = MoneyProblems()
        for (account, amount) in expected.sorted(by: { $0.key < $1.key }) {
            let transfers = state.transfers.filter { $0.accountUid == account }
            let moved = transfers.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
            if moved < amount { problems.lost += amount - moved }
            if moved > amount { problems.doubled += moved - amount }
            if transfers.count > (amount > 0 ? 1 : 0) {
                problems.notes.append("\(account): \(transfers.count) transfers for one week")
            }
            let goals = (state.goals[account] ?? []).filter { $0.name == "Round-ups" }
            if goals.count > 1 { problems.notes.append("\(account): \(goals.count) goals named Round-ups") }
            if moved != amount { problems.notes.append("\(account): moved \(moved), expected \(amount)") }
        }
        return problems
    }
}

/// Money moved wrongly, in minor units of each account's currency, and what was seen.
public struct MoneyProblems: Sendable, CustomStringConvertible {
    public var lost: Int64 = 0
    public var doubled: Int64 = 0
    public var notes: [String] = []

    public var none: Bool { lost == 0 && doubled == 0 && notes.isEmpty }
    public var description: String { notes.isEmpty ? "none" : notes.joined(separator: "; ") }
}
