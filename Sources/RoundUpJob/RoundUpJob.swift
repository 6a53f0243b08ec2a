import Foundation
public import Logging
public import RoundUp
public import StarlingAPI

/// The weekly job: preflight → accounts → settled feed per account → plan → goal →
/// ledger intent → transfer → ledger outcome → report.
///
/// Accounts are worked on concurrently; one account's failure is recorded in its part
/// of the report and does not stop the others.
public struct RoundUpJob: Sendable {
    /// Scopes every run needs.
    public static let readScopes = ["account:read", "account-list:read", "transaction:read", "savings-goal:read"]
    /// Scopes a real run needs on top of the read scopes.
    public static let writeScopes = ["savings-goal-transfer:create"]
    /// Needed only when a goal has to be created.
    public static let createGoalScope = "savings-goal:create"
    /// Needed only when a minimum balance is configured.
    public static let balanceScope = "balance:read"

    /// The scopes a run with `settings` cannot do without.
    public static func neededScopes(settings: Settings, dryRun: Bool) -> [String] {
        readScopes + (settings.minimumBalances.isEmpty ? [] : [balanceScope]) + (dryRun ? [] : writeScopes)
    }

    private let bank: BankClient
    private let ledger: Ledger
    private let settings: Settings
    private let logger: Logger
    private let now: @Sendable () -> Instant
    private let version: String

    public init(bank: BankClient, ledger: Ledger, settings: Settings, logger: Logger, version: String,
                now: @escaping @Sendable () -> Instant) {
        self.bank = bank
        self.ledger = ledger
        self.settings = settings
        self.logger = logger
        self.version = version
        self.now = now
    }

    /// Runs the job for `week`. A dry run reads everything and writes nothing: no goal is
    /// created, no money moves, and the ledger is not touched.
    public func run(week: Week, dryRun: Bool) async -> RunReport {
        var report = RunReport(
            generator: "roundup \(version)", generatedAt: now().iso8601, dryRun: dryRun, week: WeekReport(week),
            accounts: [], error: nil, exitCode: .ok)
        let scopes: Set<String>
        let accounts: [BankAccount]
        do {
            scopes = Set(try await bank.tokenIdentity().scopes)
            logger.info("token: accepted, with \(scopes.count) scope(s)")
            let needed = RoundUpJob.neededScopes(settings: settings, dryRun: dryRun)
            let missing = needed.filter { !scopes.contains($0) }
            guard missing.isEmpty else {
                report.error = "the access token lacks the scopes \(missing.joined(separator: ", ")); "
                    + "create a token that has them"
                report.exitCode = .permissionDenied
                return report
            }
            if dryRun, let missing = RoundUpJob.writeScopes.first(where: { !scopes.contains($0) }) {
                logger.warning("the token lacks \(missing): a real run would fail")
            }
            accounts = try await bank.accounts()
            logger.info("week \(week)\(dryRun ? ", dry run" : ""): \(accounts.count) account(s)")
        } catch {
            report.error = error.description
            report.exitCode = ExitStatus(error)
            return report
        }

        report.accounts = await withTaskGroup(of: (Int, AccountReport).self) { group in
            for (index, account) in accounts.enumerated() {
                group.addTask {
                    (index, await process(account, week: week, dryRun: dryRun, scopes: scopes))
                }
            }
            var results: [(Int, AccountReport)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
        report.exitCode = report.accounts.first { $0.exitCode != .ok }?.exitCode ?? .ok
        return report
    }

    // MARK: - One account

    private func process(_ bankAccount: BankAccount, week: Week, dryRun: Bool, scopes: Set<String>) async
        -> AccountReport
    {
        let account = bankAccount.account
        var report = AccountReport(
            accountUid: account.uid, name: account.name, currency: account.currencyCode, status: .failed)
        do throws(AccountFailure) {
            try await work(on: account, week: week, dryRun: dryRun, scopes: scopes, report: &report)
        } catch {
            report.status = .failed
            report.detail = error.message
            report.exitCode = error.status
            logger.error("\(label(account)): \(error.message)")
        }
        return report
    }

    private func work(on account: Account, week: Week, dryRun: Bool, scopes: Set<String>, report: inout AccountReport)
        async throws(AccountFailure)
    {
        var transactions: [Transaction]
        do throws(BankError) {
            transactions = try await bank.settledTransactions(accountUid: account.uid, from: week.start, to: week.end)
        } catch {
            // A feed item the domain cannot take (a settlement time that is not one).
            if case .malformedResponse = error { throw AccountFailure(.dataError, "skipped: \(error.description)") }
            throw AccountFailure(ExitStatus(error), error.description)
        }
        logger.info("\(label(account)): \(transactions.count) settled feed item(s) in the week")
        let plan: RoundUpPlan
        do {
            plan = try RoundUpPlan(
                account: account, feed: transactions, week: week, rule: settings.rule, policy: settings.policy)
        } catch {
            throw AccountFailure(.dataError, "skipped: \(error.description)")
        }
        // The plan has what it needs of the feed; a busy week's feed is large.
        transactions = []
        report.fill(from: plan)
        let multiplied = plan.multiplier != 1 ? " × \(plan.multiplier)" : ""
        let capped = plan.capApplied.map { ", capped at \($0)" } ?? ""
        logger.info(
            "\(label(account)): \(plan.counted.count) counted, round-up \(plan.roundUpSum)\(multiplied)\(capped) → \(plan.total)")

        let existing: LedgerEntry?
        let overlapping: [LedgerEntry]
        do {
            existing = try ledger.entry(accountUid: account.uid, weekEnd: week.endDate)
            overlapping = try ledger.overlapping(accountUid: account.uid, weekEnd: week.endDate)
        } catch {
            throw AccountFailure(.temporaryFailure, "could not read the ledger: \(error)")
        }
        // Weeks must not share days, or those days' spending would be rounded up twice.
        if existing == nil, let other = overlapping.first {
            throw AccountFailure(
                .usage,
                "the week ending \(week.endDate) shares days with the week ending \(other.weekEnd), which is "
                    + "already in the ledger; choose an end date a multiple of 7 days from \(other.weekEnd)")
        }
        if let existing {
            logger.info("\(label(account)): the ledger has this week as \(existing.status.rawValue)")
            try await resume(existing, plan: plan, dryRun: dryRun, report: &report)
            return
        }
        // A minimum balance may hold back some or all of the round-up.
        var amount = plan.total
        var note: String?
        if plan.total.minorUnits > 0, let minimum = settings.minimumBalances[plan.currency.code] {
            (amount, note) = try await applying(minimum, to: plan, account: account, report: &report)
        }
        guard amount.minorUnits > 0 else {
            report.status = dryRun ? .dryRun : .nothingToDo
            report.detail = note ?? "no round-up this week: nothing to move"
            if !dryRun {
                try record("record the week") {
                    try ledger.recordDecision(
                        LedgerEntry(
                            accountUid: account.uid, weekEnd: week.endDate, status: .nothing,
                            currency: plan.currency.code, minorUnits: 0, accountName: account.name, note: note),
                        at: now())
                }
            }
            return
        }
        let reduced = note.map { " (\($0))" } ?? ""

        let goal = try await resolveGoal(for: account, dryRun: dryRun, scopes: scopes)
        report.goal = goal.report
        guard let goalUid = goal.uid else {
            report.status = .dryRun
            report.detail = "a real run would create the goal \"\(goal.name)\" and move \(amount) into it\(reduced)"
            return
        }
        let transferUid = TransferUID.transferUid(accountUid: account.uid, goalUid: goalUid, weekEnd: week.endDate)
        report.transferUid = transferUid
        if dryRun {
            report.status = .dryRun
            report.detail = "a real run would move \(amount) into \"\(goal.name)\"\(reduced)"
            return
        }
        let entry = LedgerEntry(
            accountUid: account.uid, weekEnd: week.endDate, status: .pending, currency: plan.currency.code,
            minorUnits: amount.minorUnits, goalUid: goalUid, goalName: goal.name, transferUid: transferUid,
            accountName: account.name, note: note)
        try record("record the transfer before sending it") { try ledger.recordDecision(entry, at: now()) }
        logger.info("\(label(account)): recorded the transfer of \(amount) before sending it (transfer \(transferUid))")
        try await transfer(entry, report: &report)
        report.detail = "moved \(amount) into \"\(goal.name)\"\(reduced)"
    }

    /// What may move once `minimum` is kept in the account, read from its balance now, and
    /// why less than the round-up moves, if it does.
    private func applying(
        _ minimum: MinimumBalance, to plan: RoundUpPlan, account: Account, report: inout AccountReport
    ) async throws(AccountFailure) -> (Money, String?) {
        let balance = try await bankCall { () async throws(BankError) in
            try await bank.balance(accountUid: account.uid).effectiveBalance
        }
        guard balance.currency == plan.currency.code else {
            throw AccountFailure(
                .dataError,
                "skipped: the bank gave the balance in '\(balance.currency.prefix(12))', but the account is in "
                    + plan.currency.code)
        }
        let balanceMoney = Money(minorUnits: balance.minorUnits, currency: plan.currency)
        let (move, heldBack) = minimum.apply(total: plan.total, balance: balanceMoney)
        report.balance = balanceMoney.formattedAmount
        report.minimumBalance = minimum.minimum.formattedAmount
        report.total = move.formattedAmount
        report.totalMinorUnits = move.minorUnits
        logger.info(
            "\(label(account)): balance \(balanceMoney), minimum \(minimum.minimum): \(move) of \(plan.total) may move")
        guard heldBack.minorUnits > 0 else { return (move, nil) }
        report.heldBack = heldBack.formattedAmount
        let why =
            if move.minorUnits > 0 {
                "reduced from \(plan.total) to keep the balance of \(balanceMoney) at or above the minimum of \(minimum.minimum)"
            } else if balanceMoney.minorUnits <= minimum.minimum.minorUnits {
                "held back \(plan.total): the balance of \(balanceMoney) is not above the minimum of \(minimum.minimum)"
            } else {
                "held back \(plan.total): moving it would take the balance of \(balanceMoney) below the minimum of "
                    + "\(minimum.minimum) (belowMinimumBalance: skip)"
            }
        return (move, why)
    }

    /// The week already has a ledger entry: report it, or finish a transfer whose outcome
    /// was never recorded, with the same transfer uid and amount as the first attempt.
    private func resume(_ entry: LedgerEntry, plan: RoundUpPlan, dryRun: Bool, report: inout AccountReport)
        async throws(AccountFailure)
    {
        let recorded = Money(minorUnits: entry.minorUnits, currency: plan.currency)
        report.total = recorded.formattedAmount
        report.totalMinorUnits = recorded.minorUnits
        report.transferUid = entry.transferUid
        report.goal = entry.goalName.map { GoalReport(uid: entry.goalUid, name: $0) }
        let differs = recorded != plan.total ? " (this week's feed now gives \(plan.total))" : ""
        switch entry.status {
        case .done:
            report.status = .alreadyTransferred
            report.detail = "an earlier run moved \(recorded) into \"\(entry.goalName ?? "the goal")\"\(differs)"
        case .nothing:
            report.status = .nothingToDo
            report.detail = "an earlier run found nothing to move\(differs)"
        case .pending:
            if dryRun {
                report.status = .dryRun
                report.detail = "a real run would resend the unconfirmed transfer of \(recorded) "
                    + "into \"\(entry.goalName ?? "the goal")\" from an earlier run"
                return
            }
            try await transfer(entry, report: &report)
            report.detail = "completed the transfer of \(recorded) into \"\(entry.goalName ?? "the goal")\" "
                + "begun by an earlier run\(differs)"
        }
    }

    /// Sends a recorded transfer and records its outcome.
    private func transfer(_ entry: LedgerEntry, report: inout AccountReport) async throws(AccountFailure) {
        guard let goalUid = entry.goalUid, let transferUid = entry.transferUid else {
            throw AccountFailure(.dataError, "the ledger entry for this week has no goal or transfer uid")
        }
        let amount = CurrencyAndAmount(currency: entry.currency, minorUnits: entry.minorUnits)
        do throws(BankError) {
            let answer = try await bank.addMoney(
                accountUid: entry.accountUid, goalUid: goalUid, transferUid: transferUid, amount: amount)
            guard answer.success != false else {
                throw BankError.refused(
                    endpoint: "PUT add-money", status: 200, messages: ["the bank answered success: false"])
            }
        } catch {
            try? ledger.recordFailure(
                accountUid: entry.accountUid, weekEnd: entry.weekEnd, error: error.description, at: now())
            throw AccountFailure(
                ExitStatus(error),
                "\(error.description); the transfer is recorded as unconfirmed and the next run will resend it "
                    + "with the same transfer uid, so it cannot happen twice")
        }
        do {
            try ledger.recordDone(accountUid: entry.accountUid, weekEnd: entry.weekEnd, at: now())
        } catch {
            report.status = .transferred
            throw AccountFailure(
                .temporaryFailure,
                "the bank confirmed the transfer, but the ledger could not record it (\(error)); "
                    + "the next run will resend it with the same transfer uid, which the bank does not repeat")
        }
        report.status = .transferred
        let who = "\(entry.accountName ?? entry.accountUid) (\(entry.currency))"
        let moved = Currency(code: entry.currency).map { Money(minorUnits: entry.minorUnits, currency: $0).description }
            ?? "\(entry.minorUnits) minor units of \(entry.currency)"
        logger.notice(
            "\(who): the bank confirmed \(moved) into \"\(entry.goalName ?? goalUid)\" (transfer \(transferUid))")
    }

    // MARK: - The goal

    /// For `roundup check`: which goal a run would use for `account`, said in words, or
    /// what is wrong. Reads only.
    public func describeGoal(for account: Account, scopes: Set<String>) async -> (ok: Bool, text: String) {
        do throws(AccountFailure) {
            let goal = try await resolveGoal(for: account, dryRun: true, scopes: scopes)
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

    private struct GoalChoice {
        var uid: String?
        var name: String
        var created = false

        var report: GoalReport { GoalReport(uid: uid, name: name, created: created, wouldCreate: uid == nil) }
    }

    /// The goal the week's money goes into: the one configured by uid for this account, or
    /// the active goal in the account's currency with the configured name, created if
    /// there is none (except in a dry run).
    private func resolveGoal(for account: Account, dryRun: Bool, scopes: Set<String>) async throws(AccountFailure)
        -> GoalChoice
    {
        let usable = try await bankCall { () async throws(BankError) in try await activeGoals(of: account) }
        if let wanted = settings.goalUids[account.uid] {
            guard let goal = usable.first(where: { $0.savingsGoalUid.lowercased() == wanted.lowercased() }) else {
                throw AccountFailure(
                    .configuration,
                    "the goal \(wanted) configured for this account is not one of its active \(account.currencyCode) goals")
            }
            return GoalChoice(uid: goal.savingsGoalUid, name: goal.name)
        }
        let name = settings.savingsGoalName
        let matches = usable.filter { $0.isNamed(name) }
        if let goal = matches.first {
            if matches.count > 1 {
                logger.warning("\(label(account)): \(matches.count) goals are named \"\(name)\"; using \(goal.savingsGoalUid)")
            }
            logger.info("\(label(account)): saves into \"\(goal.name)\" (\(goal.savingsGoalUid))")
            return GoalChoice(uid: goal.savingsGoalUid, name: goal.name)
        }
        if dryRun { return GoalChoice(uid: nil, name: name) }
        guard scopes.contains(RoundUpJob.createGoalScope) else {
            throw AccountFailure(
                .permissionDenied,
                "there is no active \(account.currencyCode) goal named \"\(name)\" and the token lacks "
                    + "\(RoundUpJob.createGoalScope) to create one")
        }
        let target = settings.newGoalTargets[account.currencyCode].map {
            CurrencyAndAmount(currency: $0.currency.code, minorUnits: $0.minorUnits)
        }
        let uid = try await bankCall { () async throws(BankError) in
            try await bank.createSavingsGoal(
                accountUid: account.uid, name: name, currency: account.currencyCode, target: target,
                existing: { () async throws(BankError) in
                    try await activeGoals(of: account).first { $0.isNamed(name) }?.savingsGoalUid
                })
        }
        logger.notice("\(label(account)): created the goal \"\(name)\" (\(uid))")
        return GoalChoice(uid: uid, name: name, created: true)
    }

    /// The account's goals that can take its money: active, in its currency.
    private func activeGoals(of account: Account) async throws(BankError) -> [SavingsGoal] {
        try await bank.savingsGoals(accountUid: account.uid).filter { goal in
            (goal.state == nil || goal.state == "ACTIVE")
                && (goal.totalSaved?.currency ?? goal.target?.currency) == account.currencyCode
        }
    }

    // MARK: - Helpers

    private func bankCall<T>(_ body: () async throws(BankError) -> T) async throws(AccountFailure) -> T {
        do {
            return try await body()
        } catch {
            throw AccountFailure(ExitStatus(error), error.description)
        }
    }

    private func record(_ what: String, _ body: () throws -> Void) throws(AccountFailure) {
        do {
            try body()
        } catch {
            throw AccountFailure(.temporaryFailure, "could not \(what) in the ledger (\(error)); nothing was moved")
        }
    }

    private func label(_ account: Account) -> String {
        "\(account.name ?? account.uid) (\(account.currencyCode))"
    }
}

/// Why one account's week did not complete.
struct AccountFailure: Error {
    let status: ExitStatus
    let message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}

extension SavingsGoal {
    fileprivate func isNamed(_ wanted: String) -> Bool {
        name.compare(wanted, options: [.caseInsensitive]) == .orderedSame
    }
}

extension AccountReport {
    mutating func fill(from plan: RoundUpPlan) {
        transactions = plan.counted.map { counted in
            TransactionReport(
                feedItemUid: counted.uid,
                settlementTime: counted.settlementTime?.iso8601 ?? "",
                counterParty: counted.counterPartyName, amount: counted.amount.formattedAmount,
                roundUp: counted.roundUp.formattedAmount)
        }
        leftOut = Dictionary(uniqueKeysWithValues: plan.leftOut.map { ($0.key.rawValue, $0.value) })
        roundUpSum = plan.roundUpSum.formattedAmount
        multiplier = plan.multiplier
        capApplied = plan.capApplied?.formattedAmount
        total = plan.total.formattedAmount
        totalMinorUnits = plan.total.minorUnits
    }
}

extension WeekReport {
    init(_ week: Week) {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = week.timeZone
        formatter.formatOptions = [.withInternetDateTime]
        self.init(
            startDate: week.startDate.description, endDate: week.endDate.description,
            timeZone: week.timeZone.identifier, startLocal: formatter.string(from: week.start.date),
            endLocal: formatter.string(from: week.end.date), startUTC: week.start.iso8601, endUTC: week.end.iso8601,
            hours: week.hours)
    }
}
