package import RoundUp
import RoundUpReports
package import StarlingAPI
import Synchronization

/// What a run has learnt of each account that does not change from one week to the next
/// within the run: whether the bank's own round-up is on, the goal the account saves into,
/// the balance as first read, what the bank has scheduled before payday, and what the run
/// has moved so far. A catch-up of several weeks then asks the bank once per account, not
/// once per week.
package final class AccountMemory: Sendable {
    private struct Known {
        package var nativeRoundUp: [String: NativeRoundUpState] = [:]
        /// The goal each account saves into, or its goals under `saveInto`, in their order.
        package var goals: [String: [GoalChoice]] = [:]
        var balances: [String: Money] = [:]
        var forecasts: [String: Forecast] = [:]
        var moved: [String: Money] = [:]
    }

    private let known = Mutex(Known())

    package init() {}

    /// Whether the bank's own round-up is on for `accountUid`, if the run has asked.
    package func nativeRoundUp(of accountUid: String) -> NativeRoundUpState? {
        known.withLock { $0.nativeRoundUp[accountUid] }
    }

    package func remember(nativeRoundUp state: NativeRoundUpState, of accountUid: String) {
        known.withLock { $0.nativeRoundUp[accountUid] = state }
    }

    /// The goal `accountUid` saves into, if the run has found it.
    package func goal(of accountUid: String) -> GoalChoice? { known.withLock { $0.goals[accountUid]?.first } }

    /// The goals `accountUid` saves into, in order, if the run has found them.
    package func goals(of accountUid: String) -> [GoalChoice]? { known.withLock { $0.goals[accountUid] } }

    /// Forgets the goal of `accountUid`, so that the next week finds it again: after a week
    /// failed or was held, the goal may be gone (deleted or archived during the run).
    package func forgetGoal(of accountUid: String) {
        _ = known.withLock { $0.goals.removeValue(forKey: accountUid) }
    }

    /// Adds `moved` to what the remembered goal `goalUid` of `accountUid` (its first, when
    /// nil) holds: later weeks of the run report the goal's balance with it, and fill it up to
    /// its target less it.
    package func add(moved: Money, into goalUid: String? = nil, of accountUid: String) {
        known.withLock { known in
            guard let goals = known.goals[accountUid],
                let place = goalUid.map({ uid in goals.firstIndex { $0.uid == uid } }) ?? goals.indices.first,
                let saved = goals[place].saved, saved.currency == moved.currency
            else { return }
            known.goals[accountUid]?[place].saved = Money(
                minorUnits: Savings.add(saved.minorUnits, moved.minorUnits),
                currency: saved.currency)
        }
    }

    /// Remembers `goal` for later weeks, where it is found, not created, whichever week made it.
    package func remember(goal: GoalChoice, of accountUid: String) {
        remember(goals: [goal], of: accountUid)
    }

    /// Remembers the goals an account saves into under `saveInto`, as `remember(goal:of:)` does one.
    package func remember(goals: [GoalChoice], of accountUid: String) {
        let found = goals.map { goal in
            var found = goal
            found.created = false
            return found
        }
        known.withLock { $0.goals[accountUid] = found }
    }

    /// The account's effective balance as the run first read it.
    package func balance(of accountUid: String) -> Money? { known.withLock { $0.balances[accountUid] } }

    /// Remembers the balance first read; a second reading (two weeks of one account never
    /// run at once, but if they did) keeps the first. Returns the one remembered.
    package func remember(balance: Money, of accountUid: String) -> Money {
        first(balance, in: \.balances, of: accountUid)
    }

    /// What the bank has scheduled before payday, as the run first read it.
    package func forecast(of accountUid: String) -> Forecast? { known.withLock { $0.forecasts[accountUid] } }

    /// Remembers the forecast first read, as `remember(balance:of:)` does the balance.
    package func remember(forecast: Forecast, of accountUid: String) -> Forecast {
        first(forecast, in: \.forecasts, of: accountUid)
    }

    /// The value `readings` holds for `accountUid`, or `value`, which it then holds.
    private func first<Value: Sendable>(
        _ value: Value, in readings: WritableKeyPath<Known, [String: Value]>, of accountUid: String
    ) -> Value {
        known.withLock { known in
            if let first = known[keyPath: readings][accountUid] { return first }
            known[keyPath: readings][accountUid] = value
            return value
        }
    }

    /// What this run's earlier weeks moved (or, in a dry run, would have moved) from the account.
    func moved(from accountUid: String, in currency: Currency) -> Money {
        known.withLock { $0.moved[accountUid] } ?? Money(minorUnits: 0, currency: currency)
    }

    /// Adds `amount` to what the run moved from the account, for its later weeks' forecast.
    package func count(moved amount: Money, from accountUid: String) {
        known.withLock { known in
            let before = known.moved[accountUid]?.minorUnits ?? 0
            known.moved[accountUid] = Money(
                minorUnits: Savings.add(before, amount.minorUnits), currency: amount.currency)
        }
    }
}
