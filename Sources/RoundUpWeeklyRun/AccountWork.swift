import Foundation
import Logging
import RoundUp
import RoundUpHost
import RoundUpLedger
import RoundUpOutput
import RoundUpReports
import RoundUpTransfers
import RoundUpVocabulary
import RoundUpWeek
import StarlingAPI

/// One account's week: take the account's lock, read the week's ledger entry once, read
/// what the decision needs, decide (`AccountDecision`, pure), and carry the decision out,
/// sending through `TransferSender`.
struct AccountWork: Sendable {
    package let bank: BankClient
    let ledger: Ledger
    let rules: RuleSettings
    let sender: TransferSender
    /// What the run has learnt of each account, for its later weeks.
    let memory: AccountMemory
    /// How long a real run waits for another roundup process working on the same account.
    let accountLockWait: Duration
    let logger: Logger
    let now: @Sendable () -> Instant

    /// How `account`'s week ends, and what the job found on the way there. Each step either
    /// adds to the findings or ends the week; a failure ends it with what was found so far.
    func work(on account: Account, week runWeek: Week, dryRun: Bool, scopes: Set<String>) async
        -> (AccountOutcome, AccountFindings)
    {
        var found = AccountFindings()
        // Sends made from here on are this run's: money they may have moved is not in the
        // balance the run read.
        let started = now()
        do throws(AccountFailure) {
            // Held until the week's outcome is recorded; a dry run moves nothing and takes none.
            let lock = dryRun ? nil : try await AccountLock.hold(account, at: bank.baseURL, waiting: accountLockWait)
            defer { withExtendedLifetime(lock) {} }
            // The week as the ledger has it, read once, with the account's lock held: the
            // window, the skips and the decision all follow this one reading.
            let recorded = try AccountFailure.ledgerRead {
                try ledger.accountWeek(accountUid: account.uid, weekEnd: runWeek.endDate)
            }
            // The account's own bounds for the week: those it was decided with, or seven
            // local days that meet the week before it.
            let window = try window(for: account, week: runWeek, recorded: recorded)
            if let note = window.note {
                found.window = window
                logger.info("\(account.label): the week is \(note)")
            }
            let week = WorkingWeek(
                account: account, bounds: window.week, dryRun: dryRun, scopes: scopes, recorded: recorded)
            if memory.nativeRoundUp(of: account.uid) == .active,
                let reason = nativeRoundUpSkip(account, recorded: recorded)
            {
                found.nativeRoundUp = .active
                return (.skipped(reason), found)
            }
            // The week's feed is read while the bank is asked about its own round-up: one
            // round trip less on every account's way to its transfer. A skipped account
            // drops the feed it read.
            async let planned = AccountFailure.result { () async throws(AccountFailure) in
                try await self.plan(for: account, week: week.bounds)
            }
            // What the week's transfer is measured against (the balance, what falls due before
            // payday) is read beside the feed, once per account per run, for a week not yet decided.
            async let ahead = AccountFailure.result { () async throws(AccountFailure) in
                try await self.readForecast(week)
            }
            let native = try await nativeRoundUp(of: account)
            found.nativeRoundUp = native
            if native == .active, let reason = nativeRoundUpSkip(account, recorded: recorded) {
                return (.skipped(reason), found)
            }
            let plan = try await planned.get()
            found.plan = plan
            let reading = try await ahead.get()
            found.forecast = reading.forecast
            let decision = try await decide(week, plan: plan, reading: reading)
            let outcome = try await carryOut(decision, of: week, plan: plan, listedGoals: reading.goals, found: &found)
            return (outcome, legStates(of: found, account: account, week: runWeek, dryRun: dryRun))
        } catch {
            let outcome = ended(by: error, account: account, week: runWeek, dryRun: dryRun, sentFrom: started)
            return (outcome, legStates(of: found, account: account, week: runWeek, dryRun: dryRun))
        }
    }

    /// `found`, with each of the week's transfers into several goals in the state the ledger
    /// now has it in, for the report: a leg's fate is known only once the run is done with
    /// the week.
    private func legStates(of found: AccountFindings, account: Account, week: Week, dryRun: Bool) -> AccountFindings {
        guard !dryRun, let legs = found.movement?.legs, !legs.isEmpty,
            let entry = (try? ledger.accountWeek(accountUid: account.uid, weekEnd: week.endDate)) ?? nil
        else { return found }
        var found = found
        for index in legs.indices where entry.legs.indices.contains(index) {
            found.movement?.legs[index].status = entry.legs[index].status
        }
        return found
    }

    /// How a week that stopped on `error` ends. The week is read again as the failure left it
    /// (it may have been decided, sent or held on the way): a week left with its transfer
    /// recorded and not known to have arrived is unconfirmed, whatever stopped it, as the
    /// ledger, `history` and `resolve` say; and one sent by this run (from `sentFrom`) may
    /// have moved its money, which the run's later weeks measure against.
    private func ended(by error: AccountFailure, account: Account, week: Week, dryRun: Bool, sentFrom started: Instant)
        -> AccountOutcome
    {
        // A held week is said once, in the run's summary; a failure is logged as it happens.
        if error.held {
            logger.info("\(account.label): held for a person: \(error.message)")
        } else {
            logger.error("\(account.label): \(error.message)")
        }
        memory.forgetGoal(of: account.uid)
        let entry = dryRun ? nil : (try? ledger.accountWeek(accountUid: account.uid, weekEnd: week.endDate)) ?? nil
        // Sent by this run and perhaps moved (left unconfirmed, or held for a person): the
        // run's later weeks measure against the balance less it, as they do for a transfer
        // this run confirmed.
        if let entry, [.pending, .held].contains(entry.status), let currency = Currency(code: entry.currency) {
            // Each of its transfers this run sent, whether it arrived or may have.
            let sent = entry.legs.filter { leg in leg.lastSentOn.map { $0 >= started } ?? false }
            let units = sent.reduce(Int64(0)) { Savings.add($0, $1.minorUnits) }
            if units > 0 { memory.count(moved: Money(minorUnits: units, currency: currency), from: account.uid) }
            for leg in sent where leg.status == .done {
                memory.add(
                    moved: Money(minorUnits: leg.minorUnits, currency: currency), into: leg.goalUid, of: account.uid)
            }
        }
        if !error.held, let entry, entry.status == .pending {
            guard entry.isPartlyTransferred else { return .unconfirmed(error.status, error.message) }
            return .partlyTransferred(
                error.status,
                "\(error.message); of \(entry.amountText), \(entry.words(of: entry.doneLegs)) arrived, and the next run "
                    + "finishes \(entry.words(of: entry.openLegs))")
        }
        return AccountOutcome(error)
    }

    /// How much of a week the account can spare, measured with this run's readings.
    var measure: WeekMeasure { WeekMeasure(bank: bank, rules: rules, memory: memory, logger: logger, now: now) }

    /// What to do with `week` (`WeekMeasure.decide`).
    private func decide(_ week: WorkingWeek, plan: RoundUpPlan, reading: ForecastReader.Reading)
        async throws(AccountFailure) -> AccountDecision
    {
        try await measure.decide(
            measure.facts(
                total: plan.total, account: week.account, scopes: week.scopes, reading: reading,
                recorded: week.recorded, dryRun: week.dryRun),
            account: week.account)
    }

    /// The balance and the forecast `week` is measured against (`WeekMeasure.read`), when
    /// the ledger has not decided it; nothing otherwise. A recorded transfer sent again is
    /// measured when it is about to be sent.
    private func readForecast(_ week: WorkingWeek) async throws(AccountFailure) -> ForecastReader.Reading {
        guard week.recorded == nil else { return ForecastReader.Reading() }
        return try await measure.read(week.account, scopes: week.scopes)
    }

    /// Carries `decision` out: the only place a run's week moves money or changes the
    /// ledger, through `TransferSender`.
    private func carryOut(
        _ decision: AccountDecision, of week: WorkingWeek, plan: RoundUpPlan, listedGoals: [SavingsGoal]?,
        found: inout AccountFindings
    ) async throws(AccountFailure) -> AccountOutcome {
        let (account, dryRun) = (week.account, week.dryRun)
        switch decision {
        case .readBalance, .confirmFunds:
            throw AccountFailure(.temporaryFailure, "the balance could not be taken into account; nothing was moved")
        case .alreadyTransferred(let entry), .alreadyNothing(let entry), .abandoned(let entry), .held(let entry),
            .finishUnconfirmed(let entry):
            logger.info("\(account.label): the ledger has this week as \(WeekFate(entry).word)")
            found.movement = Movement(recorded: entry, currency: plan.currency)
            let outcome = try await sender.resume(
                entry, plan: plan, account: account, week: week.bounds, dryRun: dryRun, scopes: week.scopes,
                found: &found)
            found.settledEarlier = [.done, .nothing, .abandoned].contains(entry.status)
            if found.sentAgain, let moved = found.sentAgainAmount ?? found.movement?.amount {
                // The run's later weeks measure against the balance less what was sent again.
                memory.count(moved: moved, from: account.uid)
            }
            return outcome
        case .nothingToMove(let minimum):
            found.balance = minimum
            try recordNothing(
                account: account, week: week.bounds, plan: plan, note: minimum?.note,
                forecast: ForecastSummary(found.forecast, minimum), dryRun: dryRun)
            let why = minimum?.note ?? "no round-up this week: nothing to move"
            if dryRun { return .wouldDo(why) }
            // Held back exactly when the balance left a note, as the ledger records it.
            return minimum?.note == nil ? .nothingToMove(why) : .heldBack(why)
        case .transfer(let amount, let minimum):
            found.balance = minimum
            let intent = try await sender.intent(
                amount, note: minimum?.note, plan: plan, account: account, week: week.bounds, dryRun: dryRun,
                scopes: week.scopes, listedGoals: listedGoals, forecast: ForecastSummary(found.forecast, minimum))
            found.movement = intent.movement
            let outcome = try await sender.transfer(intent, account: account, week: week.bounds, dryRun: dryRun)
            // The run's later weeks measure against the balance less this week's money: moved,
            // would be moved (a dry run), or perhaps moved (an unconfirmed transfer).
            if [.transferred, .dryRun, .unconfirmed].contains(outcome.fate) {
                memory.count(moved: intent.amount, from: account.uid)
            }
            if outcome.fate == .transferred {
                // Each goal holds this week's money too, in this report and the run's later weeks.
                for (index, leg) in intent.legs.enumerated() {
                    memory.add(moved: leg.amount, into: leg.goal.uid, of: account.uid)
                    var goal = leg.goal
                    goal.saved = goal.saved.map { saved in
                        Money(
                            minorUnits: Savings.add(saved.minorUnits, leg.amount.minorUnits), currency: saved.currency)
                    }
                    if index == 0 { found.movement?.goal = goal.report }
                    if intent.hasSeveralLegs { found.movement?.legs[index].goal = goal.report }
                }
            }
            return outcome
        }
    }

    /// `account`'s bounds for `week` (`WeekWindow`): those `recorded` was decided with, else
    /// from the ledger's neighbouring weeks.
    private func window(for account: Account, week: Week, recorded: AccountWeek?) throws(AccountFailure)
        -> WeekWindow
    {
        try AccountFailure.ledgerRead {
            WeekWindow.decide(
                week, scheduled: week.endDate.weekday == rules.weekEndsOn, recorded: recorded,
                neighbours: try ledger.neighbours(accountUid: account.uid, weekEnd: week.endDate, zone: rules.timeZone))
        }
    }

    /// Whether the bank's own round-up is on for `account`: asked once per run. An answer
    /// that cannot tell does not fail the account: the feed marks each payment the bank
    /// rounded up, and those are left out all the same.
    private func nativeRoundUp(of account: Account) async throws(AccountFailure) -> NativeRoundUpState {
        if let known = memory.nativeRoundUp(of: account.uid) { return known }
        let state = try await AccountFailure.bankCall { () async throws(BankError) in
            try await bank.nativeRoundUp(accountUid: account.uid)
        }
        if state == .unknown {
            logger.warning(
                "\(account.label): the bank's answer does not say whether Starling's own round-up is on; the payments its feed shows as rounded up by Starling are left out"
            )
        }
        memory.remember(nativeRoundUp: state, of: account.uid)
        return state
    }

    /// Why the week is skipped although the bank's own round-up is on, or nil to go on:
    /// with `nativeRoundUp: skip` it is skipped, unless the ledger already has it, as a week
    /// begun is finished so that no transfer is left unconfirmed.
    private func nativeRoundUpSkip(_ account: Account, recorded: AccountWeek?) -> String? {
        guard rules.nativeRoundUp == .skip else {
            logger.warning(
                "\(account.label): Starling's own round-up is on too (nativeRoundUp: allow); the payments it rounded up are left out"
            )
            return nil
        }
        guard recorded == nil else { return nil }
        let reason =
            "skipped: Starling's own round-up is on for this account, and both would save the same spending; "
            + "switch one off, or set nativeRoundUp: allow"
        logger.warning("\(account.label): \(reason)")
        return reason
    }

    /// The week's plan, from the account's settled feed.
    private func plan(for account: Account, week: Week) async throws(AccountFailure) -> RoundUpPlan {
        var transactions: [Transaction]
        do throws(BankError) {
            transactions = try await bank.settledTransactions(accountUid: account.uid, from: week.start, to: week.end)
        } catch {
            // A feed item the domain cannot take (a settlement time that is not one).
            if case .malformedResponse = error {
                throw AccountFailure(.dataError, "\(error.description); nothing was moved for this account")
            }
            throw AccountFailure(ExitStatus(error), error.description)
        }
        logger.info("\(account.label): \(transactions.count) settled feed item(s) in the week")
        // Payments any other week counted, ever, are not counted again.
        let counted = try AccountFailure.ledgerRead {
            try ledger.countedElsewhere(
                accountUid: account.uid, weekEnd: week.endDate,
                among: transactions.compactMap { $0.uid.isEmpty ? nil : $0.uid })
        }
        let plan: RoundUpPlan
        do {
            plan = try RoundUpPlan(
                account: account, feed: transactions, week: week, rule: rules.selection, policy: rules.policy,
                alreadyCounted: counted)
        } catch {
            throw AccountFailure(.dataError, "\(error.description); nothing was moved for this account")
        }
        if let unknown = plan.leftOut[.noIdentity] {
            // Named as sent, the first few: a hostile answer could hold thousands.
            let sent = plan.leftOutItems.filter { $0.reason == .noIdentity }.compactMap(\.unreadableUid)
            let more = sent.count > 5 ? " and \(sent.count - 5) more" : ""
            let named =
                sent.isEmpty
                ? "" : " (\(sent.count) sent one that is not a UUID: \(sent.prefix(5).joined(separator: ", "))\(more))"
            logger.warning(
                "\(account.label): \(unknown) payment(s) in the bank's answer have no feed item uid\(named), so nothing could keep them from being counted twice: left out (no-identity in the report)"
            )
        }
        // The plan has what it needs of the feed; a busy week's feed is large.
        transactions = []
        let multiplied = plan.multiplier != 1 ? " × \(plan.multiplier)" : ""
        let capped = plan.capApplied.map { ", capped at \($0)" } ?? ""
        logger.info(
            "\(account.label): \(plan.counted.count) counted, round-up \(plan.roundUpSum)\(multiplied)\(capped) → \(plan.total)"
        )
        return plan
    }

    /// Records that the week had nothing to move (a dry run records nothing).
    private func recordNothing(
        account: Account, week: Week, plan: RoundUpPlan, note: String?, forecast: ForecastSummary?, dryRun: Bool
    ) throws(AccountFailure) {
        guard !dryRun else { return }
        try AccountFailure.ledgerWrite("record the week") {
            var entry = AccountWeek(
                accountUid: account.uid, weekEnd: week.endDate, status: .nothing, currency: plan.currency.code,
                minorUnits: 0, accountName: account.name, note: note)
            entry.forecast = forecast
            entry.bound(to: week)
            try ledger.recordDecision(entry, counting: plan.counted, at: now())
        }
    }
}

/// One account's week as a run works on it, once the account's lock is held: the account,
/// the week's bounds, whether the run is dry, the token's scopes, and what the ledger has
/// of it, read once.
struct WorkingWeek: Sendable {
    package let account: Account
    /// The account's bounds for the week (`WeekWindow`).
    let bounds: Week
    let dryRun: Bool
    let scopes: Set<String>
    let recorded: AccountWeek?
}
