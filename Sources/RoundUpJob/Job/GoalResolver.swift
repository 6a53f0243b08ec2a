import Foundation
public import Logging
public import RoundUp
public import StarlingAPI

/// The goal an account's week goes into, and its report entry.
struct GoalChoice {
    /// Nil when the goal does not exist yet and a dry run would create it.
    var uid: String?
    var name: String
    var created = false

    var report: GoalReport { GoalReport(uid: uid, name: name, created: created, wouldCreate: uid == nil) }
}

/// Finds the goal each account saves into: the one configured by uid for the account, or
/// the active goal in the account's currency with the configured name, created when there
/// is none (except in a dry run).
public struct GoalResolver: Sendable {
    let bank: BankClient
    let settings: Settings
    let logger: Logger

    public init(bank: BankClient, settings: Settings, logger: Logger) {
        self.bank = bank
        self.settings = settings
        self.logger = logger
    }

    /// For `roundup check`: which goal a run would use for `account`, said in words, or
    /// what is wrong. Reads only.
    public func describe(for account: Account, scopes: Set<String>) async -> (ok: Bool, text: String) {
        do throws(AccountFailure) {
            let goal = try await resolve(for: account, dryRun: true, scopes: scopes)
            if let uid = goal.uid { return (true, "saves into \"\(goal.name)\" (\(uid))") }
            guard scopes.contains(RoundUpJob.createGoalScope) else {
                return (
                    false,
                    "has no active \(account.currencyCode) goal named \"\(goal.name)\", and the token lacks "
                        + "\(RoundUpJob.createGoalScope) to create one: create the goal in the app, or use a token with that scope"
                )
            }
            return (true, "has no goal named \"\(goal.name)\" yet; the first run creates it")
        } catch {
            return (false, error.message)
        }
    }

    /// The goal for `account`, created if needed unless `dryRun`.
    func resolve(for account: Account, dryRun: Bool, scopes: Set<String>) async throws(AccountFailure) -> GoalChoice {
        let usable = try await AccountFailure.bankCall { () async throws(BankError) in
            try await activeGoals(of: account)
        }
        if let wanted = settings.goalUids[account.uid] {
            guard let goal = usable.first(where: { $0.savingsGoalUid.lowercased() == wanted.lowercased() }) else {
                throw AccountFailure(
                    .configuration,
                    "the goal \(wanted) configured for this account is not one of its active \(account.currencyCode) goals"
                )
            }
            return GoalChoice(uid: goal.savingsGoalUid, name: goal.name)
        }
        let name = settings.savingsGoalName
        let matches = usable.filter { $0.isNamed(name) }
        if let goal = matches.first {
            if matches.count > 1 {
                logger.warning(
                    "\(account.label): \(matches.count) goals are named \"\(name)\"; using \(goal.savingsGoalUid)")
            }
            logger.info("\(account.label): saves into \"\(goal.name)\" (\(goal.savingsGoalUid))")
            return GoalChoice(uid: goal.savingsGoalUid, name: goal.name)
        }
        if dryRun { return GoalChoice(uid: nil, name: name) }
        guard scopes.contains(RoundUpJob.createGoalScope) else {
            throw AccountFailure(
                .permissionDenied,
                "there is no active \(account.currencyCode) goal named \"\(name)\" and the token lacks "
                    + "\(RoundUpJob.createGoalScope) to create one")
        }
        return try await create(name, for: account)
    }

    private func create(_ name: String, for account: Account) async throws(AccountFailure) -> GoalChoice {
        let target = settings.newGoalTargets[account.currencyCode].map {
            CurrencyAndAmount(currency: $0.currency.code, minorUnits: $0.minorUnits)
        }
        let uid = try await AccountFailure.bankCall { () async throws(BankError) in
            try await bank.createSavingsGoal(
                accountUid: account.uid, name: name, currency: account.currencyCode, target: target,
                existing: { () async throws(BankError) in
                    try await activeGoals(of: account).first { $0.isNamed(name) }?.savingsGoalUid
                })
        }
        logger.notice("\(account.label): created the goal \"\(name)\" (\(uid))")
        return GoalChoice(uid: uid, name: name, created: true)
    }

    /// The account's goals that can take its money: active, in its currency.
    private func activeGoals(of account: Account) async throws(BankError) -> [SavingsGoal] {
        try await bank.savingsGoals(accountUid: account.uid).filter { goal in
            (goal.state == nil || goal.state == "ACTIVE")
                && (goal.totalSaved?.currency ?? goal.target?.currency) == account.currencyCode
        }
    }
}

extension SavingsGoal {
    fileprivate func isNamed(_ wanted: String) -> Bool {
        name.compare(wanted, options: [.caseInsensitive]) == .orderedSame
    }
}
