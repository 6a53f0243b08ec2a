import Foundation
public import Logging
public import RoundUp
public import RoundUpHost
package import RoundUpReports
public import StarlingAPI

/// The goal an account's week goes into, and its report entry.
package struct GoalChoice {
    /// Nil when the goal does not exist yet and a dry run would create it.
    package var uid: String?
    package var name: String
    package var created = false
    /// What the goal holds, as the bank said when the run read it, with the run's transfers
    /// into it since; nil when the bank did not say.
    package var saved: Money?
    /// The goal's own target, else the configured `newGoalTarget` for its currency.
    var target: Money?
    /// The goal's own target, as the bank says it (or, for a goal this run creates, the
    /// target it is created with): what `saveInto` fills it up to. Nil for a goal without one.
    package var ownTarget: Money?

    /// How much more the goal takes before its target, in minor units (none below zero);
    /// nil for a goal without a target. Throws when the goal has a target but the bank did
    /// not say what it holds.
    package func room() throws(AccountFailure) -> Int64? {
        guard let ownTarget else { return nil }
        guard let saved, saved.currency == ownTarget.currency else {
            throw AccountFailure(
                .dataError,
                "the bank did not say what the goal \"\(printable(name))\" holds, so its room to its target of "
                    + "\(ownTarget) is not known; nothing was moved")
        }
        return max(0, ownTarget.minorUnits - saved.minorUnits)
    }

    package var report: GoalReport {
        GoalReport(uid: uid, name: name, created: created, wouldCreate: uid == nil, saved: saved, target: target)
    }
}

/// Finds the goal each account saves into: the one configured by uid for the account, or
/// the goal in the account's currency with the configured name (an active one first),
/// created when there is none (except in a dry run).
public struct GoalResolver: Sendable {
    package let bank: BankClient
    /// The goals the settings choose.
    package let configured: GoalSettings
    let logger: Logger

    public init(bank: BankClient, goals: GoalSettings, logger: Logger) {
        self.bank = bank
        self.configured = goals
        self.logger = logger
    }

    /// For `roundup check`: which goal a run would use for `account`, said in words, or
    /// what is wrong. Reads only.
    public func describe(for account: Account, scopes: Set<String>) async -> (ok: Bool, text: String) {
        do throws(AccountFailure) {
            if let several = try await resolveSeveral(for: account, dryRun: true, scopes: scopes) {
                return describe(several, account: account, scopes: scopes)
            }
            let goal = try await resolve(for: account, dryRun: true, scopes: scopes)
            if let uid = goal.uid { return (true, "saves into \"\(goal.name)\" (\(uid))") }
            guard scopes.contains(TokenScopes.createGoalScope) else {
                return (
                    false,
                    "has no active \(account.currencyCode) goal named \"\(goal.name)\", and the token lacks "
                        + "\(TokenScopes.createGoalScope) to create one: create the goal in the app, or use a token with that scope"
                )
            }
            return (true, "has no goal named \"\(goal.name)\" yet; the first run creates it")
        } catch {
            return (false, error.message)
        }
    }

    /// `fill: app`: the account's goals with a target, in the order the app shows them
    /// (`getSpaces`, one request instead of the goals list), then the first without one, which
    /// takes the rest. Without the token's `space:read` the order cannot be known: refused.
    private func inAppOrder(_ account: Account, dryRun: Bool, scopes: Set<String>) async throws(AccountFailure)
        -> [GoalChoice]
    {
        guard scopes.contains(TokenScopes.spaceScope) else {
            throw AccountFailure(
                .configuration,
                "saveInto: fill: app fills the goals in the order the app shows them, which the bank gives only to a "
                    + "token with \(TokenScopes.spaceScope): add that scope to the token, or list the goals in order")
        }
        let spaces = try await AccountFailure.bankCall { () async throws(BankError) in
            try await bank.spaces(accountUid: account.uid)
        }
        let ordered = spaces.enumerated().filter { _, goal in
            !goal.isArchived && (goal.totalSaved?.currency ?? goal.target?.currency) == account.currencyCode
        }.sorted { ($0.element.sortOrder ?? Int.max, $0.offset) < ($1.element.sortOrder ?? Int.max, $1.offset) }
            .map(\.element)
        let targeted = ordered.filter { ($0.target?.minorUnits ?? 0) > 0 }
        let rest = ordered.first { $0.target == nil }
        let goals = targeted + (rest.map { [$0] } ?? [])
        guard !goals.isEmpty else {
            throw AccountFailure(
                .configuration,
                "saveInto: fill: app found no \(account.currencyCode) goal in this account to fill: create one in the app, "
                    + "or list the goals")
        }
        var chosen: [GoalChoice] = []
        for goal in goals { chosen.append(try await usable(goal, of: account, dryRun: dryRun)) }
        return chosen
    }

    /// For `roundup check`: the goals `saveInto` divides `account`'s weeks among, in order,
    /// each with its room to its target (or its share), and what is wrong with them.
    private func describe(_ goals: [GoalChoice], account: Account, scopes: Set<String>) -> (ok: Bool, text: String) {
        guard let saveInto = configured.saveInto else { return (false, "saveInto is not set") }
        var shares: [String: Int] = [:]
        if case .shares(let written) = saveInto.division {
            for share in written { shares[share.goal.lowercased()] = share.percent }
        }
        var problems: [String] = []
        let words = goals.enumerated().map { place, goal in
            var said = "\(place + 1). \"\(printable(goal.name))\""
            if let percent = shares[goal.name.lowercased()] { said += " \(percent) %" }
            let room: Int64?
            switch Result(catching: { () throws(AccountFailure) in try goal.room() }) {
            case .success(let value): room = value
            case .failure(let failure):
                problems.append(failure.message)
                return said + " (what it holds is not known)"
            }
            let new = goal.uid == nil ? ", created by the first run" : ""
            switch (goal.ownTarget, room) {
            case (let target?, 0): said += " (at its target of \(target)\(new))"
            case (let target?, let room?):
                said += " (\(Money(minorUnits: room, currency: target.currency)) to its target of \(target)\(new))"
            default:
                said += " (no target: takes any amount\(new))"
                if case .fill = saveInto.division, place < goals.count - 1 {
                    problems.append(
                        "under fill, \"\(printable(goal.name))\" has no target, so it would take everything left: give it "
                            + "a target in the app, or list it last")
                }
            }
            return said
        }
        if goals.contains(where: { $0.uid == nil }), !scopes.contains(TokenScopes.createGoalScope) {
            problems.append("the token lacks \(TokenScopes.createGoalScope) to create the goals not there yet")
        }
        let how =
            switch saveInto.division {
            case .fill, .fillInAppOrder: "fills, in order, each up to its target"
            case .shares: "shares by percent" + (saveInto.whenFull == .keep ? ", full goals too (whenFull: keep)" : "")
            }
        let rest = saveInto.whenAllFull == .last ? "the last goal" : "the account"
        let text =
            "\(how): \(words.joined(separator: ", ")); what no goal has room for goes to \(rest)"
            + (problems.isEmpty ? "" : ": " + problems.joined(separator: "; "))
        return (problems.isEmpty, text)
    }

    /// The goal for `account`, created if needed unless `dryRun`. A goal of that name that
    /// is being created, is pending or is being restored is waited for and used, never
    /// duplicated; one still not active after `configured.activationWait` holds the week.
    package func resolve(for account: Account, dryRun: Bool, scopes: Set<String>, listed: [SavingsGoal]? = nil)
        async throws(AccountFailure) -> GoalChoice
    {
        let goals = try await AccountFailure.bankCall { () async throws(BankError) in
            try await liveGoals(of: account, listed: listed)
        }
        if let wanted = configured.goalUids[account.uid] {
            guard let goal = goals.first(where: { $0.savingsGoalUid == wanted }) else {
                throw AccountFailure(
                    .configuration,
                    "the goal \(wanted) configured for this account is not one of its \(account.currencyCode) goals "
                        + "(archived goals do not count)")
            }
            return try await usable(goal, of: account, dryRun: dryRun)
        }
        let name = configured.savingsGoalName
        let matches = goals.filter { $0.isNamed(name) }
        if let goal = matches.first(where: \.isActive) ?? matches.first {
            if matches.count > 1 {
                logger.warning(
                    "\(account.label): \(matches.count) goals are named \"\(name)\"; using \(goal.savingsGoalUid)")
            }
            logger.info("\(account.label): saves into \"\(goal.name)\" (\(goal.savingsGoalUid))")
            return try await usable(goal, of: account, dryRun: dryRun)
        }
        if dryRun {
            return GoalChoice(
                uid: nil, name: bank.redacted(name), target: configuredTarget(for: account),
                ownTarget: configuredTarget(for: account))
        }
        return try await createActive(name, for: account, scopes: scopes)
    }

    /// The goals `account` saves into under `saveInto`, in its order, each found by name in
    /// the account's currency (an active one first) or created when none is named so (a dry
    /// run says it would create it, as holding nothing yet); nil when the account saves into
    /// one goal (no `saveInto`, or a goal chosen for it by uid). A goal of that name that is
    /// archived, or in another currency, with none that can take the money, is a mistake in
    /// the config, named.
    package func resolveSeveral(for account: Account, dryRun: Bool, scopes: Set<String>, listed: [SavingsGoal]? = nil)
        async throws(AccountFailure) -> [GoalChoice]?
    {
        guard let saveInto = configured.saveInto, configured.goalUids[account.uid] == nil else { return nil }
        if case .fillInAppOrder = saveInto.division {
            return try await inAppOrder(account, dryRun: dryRun, scopes: scopes)
        }
        let all = try await AccountFailure.bankCall { () async throws(BankError) in
            if let listed { return listed }
            return try await bank.savingsGoals(accountUid: account.uid)
        }
        let live = all.filter {
            !$0.isArchived && ($0.totalSaved?.currency ?? $0.target?.currency) == account.currencyCode
        }
        var chosen: [GoalChoice] = []
        var waiting: [GoalChoice] = []
        for name in saveInto.named {
            let matches = live.filter { $0.isNamed(name) }
            if let goal = matches.first(where: \.isActive) ?? matches.first {
                if matches.count > 1 {
                    logger.warning(
                        "\(account.label): \(matches.count) goals are named \"\(name)\"; using \(goal.savingsGoalUid)")
                }
                // Found now, waited for (when it is being created or restored) once all are found.
                let found = try await usable(goal, of: account, dryRun: true)
                chosen.append(found)
                if !goal.isActive, !dryRun { waiting.append(found) }
                continue
            }
            if let other = all.first(where: { $0.isNamed(name) }) {
                let currency = other.totalSaved?.currency ?? other.target?.currency
                throw AccountFailure(
                    .configuration,
                    other.isArchived
                        ? "saveInto names the goal \"\(printable(name))\" (\(other.savingsGoalUid)), which is archived: "
                            + "restore it in the app, or take it out of saveInto"
                        : "saveInto names the goal \"\(printable(name))\" (\(other.savingsGoalUid)), which is in "
                            + "\(currency.map { printable(String($0.prefix(12))) } ?? "another currency"), not this account's "
                            + "\(account.currencyCode): take it out of saveInto, or give this account a goal of that name"
                )
            }
            if dryRun {
                let zero = Currency(code: account.currencyCode).map { Money(minorUnits: 0, currency: $0) }
                chosen.append(
                    GoalChoice(
                        uid: nil, name: bank.redacted(name), saved: zero, target: configuredTarget(for: account),
                        ownTarget: configuredTarget(for: account)))
                continue
            }
            // Every missing goal is created before any is waited for: a week held for one that
            // is slow to become active has all of its goals, and no later run creates another.
            let created = try await create(name, for: account, scopes: scopes)
            chosen.append(created)
            waiting.append(created)
        }
        for goal in waiting {
            do throws(AccountFailure) {
                _ = try await waitUntilActive(goal, of: account)
            } catch {
                var failure = error
                if failure.held { failure.goals = chosen }
                throw failure
            }
        }
        return chosen
    }

    /// For `roundup resolve --redirect`: the account's goal `wanted` (a uid, or a name in any
    /// case), once it is active.
    package func named(_ wanted: String, for account: Account) async throws(AccountFailure) -> (
        uid: String, name: String
    ) {
        let goals = try await AccountFailure.bankCall { () async throws(BankError) in
            try await liveGoals(of: account)
        }
        let byUid = Uid.uuid(wanted).flatMap { uid in goals.first { $0.savingsGoalUid == uid } }
        guard let goal = byUid ?? goals.first(where: { $0.isNamed(wanted) }) else {
            throw AccountFailure(
                .configuration,
                "\(account.label) has no \(account.currencyCode) goal named or with the uid \"\(wanted)\" "
                    + "(archived goals do not count)")
        }
        let choice = try await usable(goal, of: account, dryRun: false)
        return (choice.uid ?? goal.savingsGoalUid, choice.name)
    }

    /// `goal`, once it can take money: at once when active, after a bounded wait when it
    /// is being created, pending or being restored (a dry run does not wait).
    private func usable(_ goal: SavingsGoal, of account: Account, dryRun: Bool) async throws(AccountFailure)
        -> GoalChoice
    {
        let choice = GoalChoice(
            uid: goal.savingsGoalUid, name: goal.name, saved: money(goal.totalSaved, of: account),
            target: money(goal.target, of: account) ?? configuredTarget(for: account),
            ownTarget: money(goal.target, of: account))
        guard !goal.isActive, !dryRun else { return choice }
        logger.info("\(account.label): the goal \"\(goal.name)\" is \(goal.state ?? "not active"); waiting for it")
        return try await waitUntilActive(choice, of: account)
    }

    /// Reads the account's goals until `choice` is active, for at most `configured.activationWait`.
    private func waitUntilActive(_ choice: GoalChoice, of account: Account) async throws(AccountFailure)
        -> GoalChoice
    {
        let deadline = ContinuousClock.now + configured.activationWait
        var state = "not active"
        while true {
            let goals = try await AccountFailure.bankCall { () async throws(BankError) in
                try await bank.savingsGoals(accountUid: account.uid)
            }
            guard let goal = goals.first(where: { $0.savingsGoalUid == choice.uid })
            else {
                // Just created: the bank may not list it yet.
                state = "not listed yet"
                guard ContinuousClock.now < deadline else { break }
                try? await Task.sleep(for: .milliseconds(500))
                continue
            }
            if goal.isActive { return choice }
            state = goal.state ?? state
            guard !goal.isArchived else {
                throw AccountFailure(.configuration, "the goal \"\(choice.name)\" was archived while the job waited")
            }
            guard ContinuousClock.now < deadline else { break }
            try? await Task.sleep(for: .milliseconds(500))
        }
        throw AccountFailure.held(
            "the goal \"\(choice.name)\" (\(choice.uid ?? "new")) is still \(state) after "
                + "\(configured.activationWait.inSeconds); nothing was moved",
            goal: choice)
    }

    /// The goal `name`, created in `account` and waited for until active, when the token may
    /// create goals.
    private func createActive(_ name: String, for account: Account, scopes: Set<String>)
        async throws(AccountFailure) -> GoalChoice
    {
        let created = try await create(name, for: account, scopes: scopes)
        return try await waitUntilActive(created, of: account)
    }

    /// The goal `name`, created in `account`, when the token may create goals.
    private func create(_ name: String, for account: Account, scopes: Set<String>) async throws(AccountFailure)
        -> GoalChoice
    {
        guard scopes.contains(TokenScopes.createGoalScope) else {
            throw AccountFailure(
                .permissionDenied,
                "there is no active \(account.currencyCode) goal named \"\(name)\" and the token lacks "
                    + "\(TokenScopes.createGoalScope) to create one")
        }
        let target = configured.newGoalTargets[account.currencyCode].map {
            CurrencyAndAmount(currency: $0.currency.code, minorUnits: $0.minorUnits)
        }
        let uid = try await AccountFailure.bankCall { () async throws(BankError) in
            try await bank.createSavingsGoal(
                accountUid: account.uid, name: name, currency: account.currencyCode, target: target,
                existing: { () async throws(BankError) in
                    try await liveGoals(of: account).first { $0.isNamed(name) }?.savingsGoalUid
                })
        }
        logger.notice("\(account.label): created the goal \"\(name)\" (\(uid))")
        let zero = Currency(code: account.currencyCode).map { Money(minorUnits: 0, currency: $0) }
        // The ledger keeps the name: never the token, even where the config's name holds it.
        return GoalChoice(
            uid: uid, name: bank.redacted(name), created: true, saved: zero, target: configuredTarget(for: account),
            ownTarget: configuredTarget(for: account))
    }

    /// The `newGoalTarget` configured for the account's currency.
    private func configuredTarget(for account: Account) -> Money? {
        configured.newGoalTargets[account.currencyCode]
    }

    /// The bank's `amount`, when it is in the account's currency.
    private func money(_ amount: CurrencyAndAmount?, of account: Account) -> Money? {
        guard let amount, amount.currency == account.currencyCode, let currency = Currency(code: amount.currency)
        else { return nil }
        return Money(minorUnits: amount.minorUnits, currency: currency)
    }

    /// The account's goals in its currency that are not archived or being archived: the
    /// active ones, and those being created, pending or being restored.
    private func liveGoals(of account: Account, listed: [SavingsGoal]? = nil) async throws(BankError) -> [SavingsGoal] {
        let goals: [SavingsGoal]
        if let listed { goals = listed } else { goals = try await bank.savingsGoals(accountUid: account.uid) }
        return goals.filter { goal in
            !goal.isArchived && (goal.totalSaved?.currency ?? goal.target?.currency) == account.currencyCode
        }
    }
}

extension SavingsGoal {
    fileprivate func isNamed(_ wanted: String) -> Bool {
        name.compare(wanted, options: [.caseInsensitive]) == .orderedSame
    }

    /// Takes money: ACTIVE, or no state at all (older API versions).
    fileprivate var isActive: Bool { state == nil || state == "ACTIVE" }

    var isArchived: Bool { state == "ARCHIVED" || state == "ARCHIVING" }
}
