import RoundUp
import RoundUpReports
import StarlingAPI
import Synchronization

/// What a run has learnt of each account that does not change from one week to the next
/// within the run: whether the bank's own round-up is on, and the goal the account saves
/// into. A catch-up of several weeks then asks the bank once per account, not once per week.
final class AccountMemory: Sendable {
    private struct Known {
        var nativeRoundUp: [String: NativeRoundUpState] = [:]
        var goals: [String: GoalChoice] = [:]
    }

    private let known = Mutex(Known())

    /// Whether the bank's own round-up is on for `accountUid`, if the run has asked.
    func nativeRoundUp(of accountUid: String) -> NativeRoundUpState? { known.withLock { $0.nativeRoundUp[accountUid] } }

    func remember(nativeRoundUp state: NativeRoundUpState, of accountUid: String) {
        known.withLock { $0.nativeRoundUp[accountUid] = state }
    }

    /// The goal `accountUid` saves into, if the run has found it.
    func goal(of accountUid: String) -> GoalChoice? { known.withLock { $0.goals[accountUid] } }

    /// Forgets the goal of `accountUid`, so that the next week finds it again: after a week
    /// failed or was held, the goal may be gone (deleted or archived during the run).
    func forgetGoal(of accountUid: String) {
        _ = known.withLock { $0.goals.removeValue(forKey: accountUid) }
    }

    /// Adds `moved` to what the remembered goal of `accountUid` holds: later weeks of the
    /// run report the goal's balance with it.
    func add(moved: Money, of accountUid: String) {
        known.withLock { known in
            guard let saved = known.goals[accountUid]?.saved, saved.currency == moved.currency else { return }
            known.goals[accountUid]?.saved = Money(
                minorUnits: Savings.add(saved.minorUnits, moved.minorUnits),
                currency: saved.currency)
        }
    }

    /// Remembers `goal` for later weeks, where it is found, not created, whichever week made it.
    func remember(goal: GoalChoice, of accountUid: String) {
        var found = goal
        found.created = false
        known.withLock { $0.goals[accountUid] = found }
    }
}
