import Foundation
package import Logging
package import RoundUp
package import RoundUpHost
package import RoundUpLedger
import RoundUpOutput
import RoundUpReports
package import RoundUpVocabulary
package import RoundUpWeek
package import StarlingAPI

/// Moving a week's money: look in the feed first when its outcome is not known, record the
/// intent before sending, and the outcome after. A transfer whose outcome is unknown is
/// never sent again blindly: the bank does not promise to recognise a repeated transfer uid.
package struct TransferSender: Sendable {
    package let bank: BankClient
    let ledger: Ledger
    let rules: RuleSettings
    /// Searches of the feed, which write nothing, and what is written of a week they settle.
    package let search: FeedSearch
    let records: WeekRecords
    package let goals: GoalResolver
    /// What the run has learnt of each account, for its later weeks.
    let memory: AccountMemory
    let logger: Logger
    let now: @Sendable () -> Instant

    package init(
        bank: BankClient, ledger: Ledger, rules: RuleSettings, search: FeedSearch, records: WeekRecords,
        goals: GoalResolver, memory: AccountMemory, logger: Logger, now: @escaping @Sendable () -> Instant
    ) {
        self.bank = bank
        self.ledger = ledger
        self.rules = rules
        self.search = search
        self.records = records
        self.goals = goals
        self.memory = memory
        self.logger = logger
        self.now = now
    }

    /// How much the account can spare, measured before a recorded transfer is sent again.
    var measure: WeekMeasure { WeekMeasure(bank: bank, rules: rules, memory: memory, logger: logger, now: now) }

    /// The week's transfer with its goal: the goal found (once per run), or created unless
    /// `dryRun`. A goal that did not become active holds the week (a real run records it for
    /// a person).
    package func intent(
        _ amount: Money, note: String?, plan: RoundUpPlan, account: Account, week: Week, dryRun: Bool,
        scopes: Set<String>, listedGoals: [SavingsGoal]? = nil, forecast: ForecastSummary? = nil
    ) async throws(AccountFailure) -> TransferIntent {
        let several: [GoalChoice]?
        do {
            several = try await severalGoals(of: account, dryRun: dryRun, scopes: scopes, listed: listedGoals)
        } catch {
            // A goal that did not become active holds the week, divided among its goals as it
            // would have been and recorded so: a later run never divides it again.
            if error.held, let goals = error.goals, !dryRun {
                let held = try divided(
                    amount, among: goals, note: note, plan: plan, account: account, week: week, forecast: forecast)
                var entry = held.entry(status: .held)
                entry.reason = error.reason
                try AccountFailure.ledgerWrite("record the held week") {
                    try ledger.recordDecision(entry, counting: held.payments, at: now())
                }
            }
            throw error
        }
        if let several {
            return try divided(
                amount, among: several, note: note, plan: plan, account: account, week: week, forecast: forecast)
        }
        do {
            let goal: GoalChoice
            if let known = memory.goal(of: account.uid) {
                goal = known
            } else {
                goal = try await goals.resolve(for: account, dryRun: dryRun, scopes: scopes, listed: listedGoals)
                memory.remember(goal: goal, of: account.uid)
            }
            return TransferIntent(
                amount: amount, note: note, account: account, week: week, goal: goal, payments: plan.counted,
                forecast: forecast)
        } catch {
            if error.held, let waited = error.goal, waited.uid != nil, !dryRun {
                let held = TransferIntent(
                    amount: amount, note: note, account: account, week: week, goal: waited, payments: plan.counted,
                    forecast: forecast)
                var entry = held.entry(status: .held)
                entry.reason = error.reason
                try AccountFailure.ledgerWrite("record the held week") {
                    try ledger.recordDecision(entry, counting: held.payments, at: now())
                }
            }
            throw error
        }
    }

    /// The goals `account` saves into under `saveInto` (found once per run, as one goal
    /// is), with what this run's earlier weeks moved into each; nil when it saves into one.
    private func severalGoals(of account: Account, dryRun: Bool, scopes: Set<String>, listed: [SavingsGoal]?)
        async throws(AccountFailure) -> [GoalChoice]?
    {
        guard goals.configured.saveInto != nil, goals.configured.goalUids[account.uid] == nil else { return nil }
        if let known = memory.goals(of: account.uid) { return known }
        guard let found = try await goals.resolveSeveral(for: account, dryRun: dryRun, scopes: scopes, listed: listed)
        else { return nil }
        memory.remember(goals: found, of: account.uid)
        return found
    }

    /// The week's `amount` divided among `goals` as `saveInto` says (`GoalSplit`), each up
    /// to its room under `fill`: a leg for each goal that takes part of it. What no goal has
    /// room for stays in the account, and the note says so.
    private func divided(
        _ amount: Money, among goals: [GoalChoice], note: String?, plan: RoundUpPlan, account: Account, week: Week,
        forecast: ForecastSummary?
    ) throws(AccountFailure) -> TransferIntent {
        guard let saveInto = self.goals.configured.saveInto else {
            throw AccountFailure(.configuration, "saveInto is not set, yet several goals were chosen")
        }
        var rooms: [Int64?] = []
        for goal in goals { rooms.append(try goal.room()) }
        if case .fill = saveInto.division, let open = rooms.dropLast().firstIndex(where: { $0 == nil }) {
            throw AccountFailure(
                .configuration,
                "saveInto: under fill, \"\(printable(goals[open].name))\" has no target, so it would take everything "
                    + "left and the goals after it nothing: give it a target in the app, or list it last")
        }
        let split = GoalSplit.divide(
            amount.minorUnits, rooms: rooms, by: saveInto.division, whenFull: saveInto.whenFull,
            whenAllFull: saveInto.whenAllFull)
        let legs = zip(goals, split.amounts).compactMap { goal, part in
            part > 0 ? IntendedLeg(goal: goal, amount: Money(minorUnits: part, currency: amount.currency)) : nil
        }
        var notes = note.map { [$0] } ?? []
        if split.stays > 0 {
            let stays = Money(minorUnits: split.stays, currency: amount.currency)
            notes.append(
                legs.isEmpty
                    ? "held back \(amount): every goal is at its target, so it stays in the account (whenAllFull: stay)"
                    : "\(stays) stays in the account: every goal is at its target (whenAllFull: stay)")
        }
        return TransferIntent(
            note: notes.isEmpty ? nil : notes.joined(separator: "; "), account: account, week: week, legs: legs,
            goals: goals, currency: amount.currency, payments: plan.counted, forecast: forecast)
    }

    /// Moves the week's money into its goal, or its goals (a dry run says what it would do).
    /// A week whose goals are all full moves nothing, and is recorded held back.
    package func transfer(_ intent: TransferIntent, account: Account, week: Week, dryRun: Bool)
        async throws(AccountFailure)
        -> AccountOutcome
    {
        guard !intent.legs.isEmpty else {
            let why = intent.note ?? "every goal is at its target"
            if dryRun { return .wouldDo(why) }
            try AccountFailure.ledgerWrite("record the week") {
                try ledger.recordDecision(intent.entry(status: .nothing), counting: intent.payments, at: now())
            }
            return .heldBack(why)
        }
        // A dry run says which goals a real run would create, those that take nothing too.
        let missing = intent.goals.filter { $0.uid == nil }
        guard missing.isEmpty else {
            let named = missing.map { "\"\(printable($0.name))\"" }
            let goals = named.count == 1 ? "the goal \(named[0])" : "the goals \(named.joined(separator: ", "))"
            let into =
                intent.hasSeveralLegs
                ? "move \(intent.intoWords)"
                : intent.goals.count == 1
                    ? "move \(intent.amount) into it"
                    : "move \(intent.amount) into \"\(printable(intent.goal.name))\""
            return .wouldDo("a real run would create \(goals) and \(into)" + intent.reduced)
        }
        return try await transferNew(
            intent.entry(status: .pending), intent: intent, account: account, week: week, dryRun: dryRun)
    }

    /// The first transfer of a week this ledger has never seen. The feed is searched first:
    /// a transfer there that looks like this week's is another week's or another ledger's
    /// (another state directory, or this one before it was restored from a backup), and
    /// holds the week for a person, who may say it is this week's (`resolve --check --accept`).
    /// A week into several goals is looked for leg by leg in one reading of the feed, recorded
    /// with all its legs, then sent leg by leg: a leg that fails ends the run's work on the
    /// week, and the next run finishes the legs still open.
    private func transferNew(
        _ entry: AccountWeek, intent: TransferIntent, account: Account, week: Week, dryRun: Bool
    ) async throws(AccountFailure) -> AccountOutcome {
        let into = intent.hasSeveralLegs ? intent.intoWords : "\(intent.amount) into \"\(intent.goal.name)\""
        var entry = entry
        let time = search.time
        let (checks, other, goalTotals) = try await lookBeforeSending(
            entry, firstTime: true, payments: intent.payments,
            amount: intent.amount, account: account, week: week, dryRun: dryRun)
        entry.otherWeekEnd = other?.otherWeekEnd
        entry.sharedMinorUnits = other?.shared
        // Before its first send a week has no transfer of its own: one that looks like it is
        // another week's, or another ledger's, and never "already moved".
        let check: TransferCheck =
            checks.lazy.compactMap { leg, check -> TransferCheck? in
                switch check {
                case .absent: nil
                case .arrived(let found): .unclear(TransferCheck.lookAlike(found, of: entry.view(of: leg)))
                case .unclear: check
                }
            }.first ?? other.map { .unclear($0.reason) } ?? .absent
        if dryRun {
            let preview =
                switch check {
                case .arrived, .absent:
                    time.tooFar.map { "a real run would send nothing: \($0)" }
                        ?? "a real run would move \(into)\(intent.reduced)"
                case .unclear(let reason): TransferCheck.wouldHold(reason)
                }
            return .wouldDo(preview)
        }
        if let refusal = time.refusal { throw AccountFailure(.temporaryFailure, refusal) }
        if case .unclear(let reason) = check {
            entry.decide(.held)
            entry.reason = reason
            try AccountFailure.ledgerWrite("record the held week") {
                try ledger.recordDecision(entry, counting: intent.payments, at: now())
            }
            throw AccountFailure.held(reason)
        }
        let recordedAt = now()
        try AccountFailure.ledgerWrite("record the transfer before sending it") {
            try ledger.recordDecision(entry, counting: intent.payments, at: recordedAt)
        }
        // A feed search after a failed send starts from here: before the request went out.
        entry.createdAt = recordedAt.iso8601
        let uids = entry.legs.compactMap(\.transferUid).joined(separator: ", ")
        let (transfers, them) = entry.hasSeveralLegs ? ("transfers", "them") : ("transfer", "it")
        logger.info(
            "\(account.label): recorded the \(transfers) of \(intent.amount) before sending \(them) (\(transfers) \(uids))"
        )
        for leg in entry.legs {
            try await send(entry.view(of: leg), leg: leg, account: account, goalBefore: goalTotals[leg.index] ?? nil)
        }
        // A goal this run made is said where the dry run said it would make it.
        let created = intent.goals.filter(\.created).map { "\"\(printable($0.name))\"" }
        let made =
            intent.goals.count == 1
            ? (intent.goal.created ? ", a goal this run created" : "")
            : created.isEmpty ? "" : ", creating \(created.joined(separator: ", "))"
        return .transferred("moved \(into)\(made)\(intent.reduced)")
    }

    /// What the feed says before `entry`'s week is sent, first or again, of each of its
    /// `legs` (all of them unless given): `TransferCheck.decide` on the transfers since the
    /// week's end (the `firstTime` it is sent), or since the leg's own first send
    /// (`FeedSearch.ownSearchStart`), on the bank's clock; and
    /// when that shows no sign of any of them, another ledger's transfer since the week
    /// began that names a week sharing its days (`otherLedgersHold`), which holds it, with
    /// that week and how much of this week's amount its days may account for.
    /// Unless `dryRun`, each leg's goal's total is read beside the feed: what a send is
    /// measured against if its answer is lost (nil when it could not be read). The feed is
    /// read once for all the legs, and for a week of several, the goals once for all of them.
    func lookBeforeSending(
        _ entry: AccountWeek, legs: [TransferLeg]? = nil, firstTime: Bool,
        payments: [CountedTransaction], amount: Money, account: Account, week: Week, dryRun: Bool
    ) async throws(AccountFailure) -> (
        checks: [(leg: TransferLeg, check: TransferCheck)], other: OtherLedgerHold?, goalTotals: [Int: Int64?]
    ) {
        let legs = legs ?? entry.legs
        let several = entry.hasSeveralLegs
        // Beside the feed, in a task of its own, awaited before anything is thrown.
        let totalsRead = Task { () -> [Int: Int64?] in
            guard !dryRun else { return [:] }
            if !several, let leg = legs.first { return [leg.index: await self.goalTotal(of: entry, leg: leg)] }
            return await self.goalTotals(of: entry, legs: legs)
        }
        let views = legs.map(entry.view(of:))
        let starts = views.map { firstTime ? search.time.bank(week.end) : search.ownSearchStart($0) }
        let readFrom = min(starts.min() ?? search.time.bank(week.start), search.time.bank(week.start))
        let read = await AccountFailure.result { () async throws(AccountFailure) in
            try await search.feed(of: account, from: readFrom)
        }
        let totals = await totalsRead.value
        let feed = try read.get()
        let others = try search.entries(of: account)
        var checks: [(leg: TransferLeg, check: TransferCheck)] = []
        for (place, (leg, view)) in zip(legs, views).enumerated() {
            var sought = try search.sought(view, since: starts[place], firstTime: firstTime)
            if several { sought.weekAmount = amount }
            checks.append((leg, search.decide(sought, entry: view, feed: sought.recent(feed), ledger: others)))
        }
        guard checks.allSatisfy({ if case .absent = $0.check { true } else { false } }),
            let hold = OtherLedgerHold.find(
                in: feed, ledger: others, week: week, payments: payments, amount: amount,
                multiplier: rules.policy.multiplier)
        else { return (checks, nil, totals) }
        return (checks.map { ($0.leg, .unclear(hold.reason)) }, hold, totals)
    }

    /// The totals saved of the goals of `entry`'s `legs`, in minor units, by leg index, from
    /// one reading of the account's goals (nil for a goal it does not show in the week's
    /// currency): a week into several goals asks for its goals once, not once per leg.
    private func goalTotals(of entry: AccountWeek, legs: [TransferLeg]) async -> [Int: Int64?] {
        let listed = try? await bank.savingsGoals(accountUid: entry.accountUid)
        var totals: [Int: Int64?] = [:]
        for leg in legs {
            let goal = listed?.first { $0.savingsGoalUid == leg.goalUid }
            totals[leg.index] = goal?.totalSaved.flatMap { $0.currency == entry.currency ? $0.minorUnits : nil }
        }
        return totals
    }

    /// The week already has a ledger entry: say what it holds, or finish a transfer whose
    /// outcome was never recorded: found in the feed, or sent with the same transfer uid and amount.
    /// A transfer sent again is measured first (`WeekMeasure.resend`); what it was measured
    /// against goes into `found`, for the report.
    package func resume(
        _ entry: AccountWeek, plan: RoundUpPlan, account: Account, week: Week, dryRun: Bool, scopes: Set<String>,
        found: inout AccountFindings
    ) async throws(AccountFailure) -> AccountOutcome {
        let recorded = Money(minorUnits: entry.minorUnits, currency: plan.currency)
        let differs = recorded != plan.total ? " (this week's feed now gives \(plan.total))" : ""
        let goalName = entry.firstLeg.goalName ?? "the goal"
        switch entry.status {
        case .done where entry.hasSeveralLegs:
            // What arrived, then what a person gave up or the balance held back.
            let given = entry.legs.filter { $0.status == .abandoned }
            let up = given.isEmpty ? "" : "; \(entry.words(of: given)) given up by a person"
            let held = entry.note.map { "; \($0)" } ?? ""
            return .alreadyTransferred(
                "an earlier run moved \(recorded): \(entry.words(of: entry.doneLegs))\(up)\(held)\(differs)")
        case .done:
            let how = entry.firstLeg.confirmation == .feed ? ", found in the feed" : ""
            return .alreadyTransferred("an earlier run moved \(recorded) into \"\(goalName)\"\(how)\(differs)")
        case .nothing:
            // A week whose round-up was held back says why, not that there was none.
            if let note = entry.note { return .heldBack("an earlier run moved nothing: \(note)") }
            return .nothingToMove("an earlier run found nothing to move\(differs)")
        case .abandoned:
            return .abandoned("a person abandoned this week: \(entry.reason ?? "no reason given")")
        case .held:
            return .held(AccountFailure.heldForAPerson(entry.reason ?? "no reason recorded"))
        case .pending:
            var outcome = try await finishUnconfirmed(
                entry, recorded: recorded, payments: plan.counted, account: account, week: week, dryRun: dryRun,
                scopes: scopes, found: &found)
            // Money that moved, now or before, is told against what the feed gives today.
            if outcome.fate.kind == .moved { outcome.detail += differs }
            return outcome
        }
    }

    /// A transfer an earlier run recorded but never saw confirmed: found in the feed, sent
    /// again with the same transfer uid when the feed shows no sign of it, or held.
    private func finishUnconfirmed(
        _ entry: AccountWeek, recorded: Money, payments: [CountedTransaction], account: Account, week: Week,
        dryRun: Bool, scopes: Set<String>, found: inout AccountFindings
    ) async throws(AccountFailure) -> AccountOutcome {
        if entry.hasSeveralLegs {
            return try await finishLegs(
                entry, payments: payments, account: account, week: week, dryRun: dryRun, scopes: scopes, found: &found)
        }
        // The transfer to finish: a week's one leg.
        let leg = entry.firstLeg
        let goalName = leg.goalName ?? "the goal"
        // Another ledger's transfer may have come since the intent.
        let (checks, other, goalTotals) = try await lookBeforeSending(
            entry, firstTime: false, payments: payments, amount: recorded,
            account: account, week: week, dryRun: dryRun)
        var check = checks[0].check
        let goalTotal = goalTotals[leg.index] ?? nil
        let tooSoon = tooSoonToSendAgain(entry, leg: leg)
        // A week recorded but never sent has no transfer of its own in the feed.
        if case .arrived(let found) = check, !leg.mayHaveBeenSent {
            check = .unclear(TransferCheck.lookAlike(found, of: entry))
        }
        let begun = "the transfer of \(recorded) into \"\(goalName)\" begun by an earlier run"
        if dryRun {
            let preview =
                switch check {
                case .arrived(let found):
                    "\(begun) arrived (\(found.described)); a real run would record it and send nothing"
                case .unclear(let reason): TransferCheck.wouldHold(reason)
                case .absent:
                    search.time.tooFar.map { "a real run would send nothing: \($0)" }
                        ?? tooSoon.map { "\($0): a real run would wait" }
                        ?? Self.goalGrewReason(entry, leg: leg).map(TransferCheck.wouldHold)
                }
            if let preview { return .wouldDo(preview) }
            let absent =
                "the feed does not show the unconfirmed transfer of \(recorded) into \"\(goalName)\" from an earlier run"
            if case .heldBack(let outcome, let forecast) = try await measure.resend(
                entry, account: account, scopes: scopes, dryRun: true)
            {
                (found.balance, found.forecast) = (outcome, forecast)
                return .wouldDo("\(absent); a real run would not send it again: \(outcome.note ?? "")")
            }
            found.sentAgain = true
            return .wouldDo("\(absent); a real run would send it again with the same transfer uid")
        }
        switch check {
        case .arrived(let found):
            try records.recordFound(found, for: entry, leg: leg)
            let gone = await search.goalIsGone(entry, account: account) ? "; the goal no longer exists" : ""
            return .alreadyTransferred(
                "\(begun) arrived: found in the feed (\(found.described)); nothing was sent\(gone)")
        case .unclear(let reason):
            try records.hold(entry, reason: reason, otherLedger: other)
        case .absent:
            if let tooSoon {
                try? ledger.recordFailure(
                    accountUid: entry.accountUid, weekEnd: entry.weekEnd, leg: leg.index, error: tooSoon,
                    at: now())
                throw AccountFailure(.temporaryFailure, "\(tooSoon): the next run looks again")
            }
            if let grew = Self.goalGrewReason(entry, leg: leg) { try records.hold(entry, reason: grew) }
            switch try await measure.resend(entry, account: account, scopes: scopes, dryRun: false) {
            case .heldBack(let outcome, let forecast):
                (found.balance, found.forecast, found.movement) = (outcome, forecast, nil)
                return .heldBack("\(begun) was not sent again: \(try holdBack(entry, outcome, forecast))")
            case .fits(let forecast):
                found.forecast = forecast
            }
            try await send(entry, leg: leg, account: account, goalBefore: goalTotal)
            found.sentAgain = true
            return .transferred("completed \(begun)")
        }
    }

    /// Ends `entry`'s week held back: its recorded transfer, about to be sent again, no
    /// longer fits (`outcome` says why). Nothing moved and its payments stay counted, as for a
    /// week decided without room. Returns the reason, as the ledger records it.
    func holdBack(_ entry: AccountWeek, _ outcome: BalanceOutcome, _ forecast: Forecast?) throws(AccountFailure)
        -> String
    {
        let note = outcome.note ?? "held back \(entry.amountText)"
        try AccountFailure.ledgerWrite("record the week held back") {
            try ledger.recordHeldBack(
                accountUid: entry.accountUid, weekEnd: entry.weekEnd, note: note,
                forecast: ForecastSummary(forecast, outcome), at: now())
        }
        logger.notice("\(entry.label): \(entry.amountText) not sent again: \(note)")
        return note
    }

    /// Sends a recorded transfer and records its outcome. When the bank may have acted
    /// without saying so, it is sent again in this run only on evidence that the money did
    /// not move (`settleUnanswered`), and at most once. `goalBefore` is the goal's total read
    /// just before (nil when it could not be read). A run (`byRun`) sends a week at most
    /// `maxSends` times in all, then holds it, and each of its sends leaves the week owing
    /// its report until the run writes it; a person's `resolve --retry` is not capped, and
    /// says what it did itself. Returns once the money has arrived.
    func send(_ entry: AccountWeek, leg: TransferLeg, account: Account, goalBefore: Int64?, byRun: Bool = true)
        async throws(AccountFailure)
    {
        guard let goalUid = leg.goalUid, let transferUid = leg.transferUid,
            let place = entry.legs.firstIndex(where: { $0.index == leg.index })
        else {
            throw AccountFailure(.dataError, "the ledger entry for this week has no goal or transfer uid")
        }
        let amount = CurrencyAndAmount(currency: entry.currency, minorUnits: leg.minorUnits)
        var (before, sends, resent) = (goalBefore, leg.sends, false)
        // The week and the leg as each send leaves them: feed searches look up to the latest send.
        var (entry, leg) = (entry, leg)
        while true {
            let time = search.time
            if let refusal = time.refusal {
                try? ledger.recordFailure(
                    accountUid: entry.accountUid, weekEnd: entry.weekEnd, leg: leg.index, error: refusal,
                    at: now())
                throw AccountFailure(.temporaryFailure, refusal)
            }
            if byRun, sends >= Self.maxSends {
                try records.hold(
                    entry,
                    reason:
                        "the transfer of \(entry.amountText(of: leg)) was sent \(sends) times without the bank confirming "
                        + "it, and the feed shows none of them: it is not sent again by a run. `roundup resolve "
                        + "--check` records it once the feed shows it; `--retry` sends it once more; `--abandon "
                        + "REASON` gives it up")
            }
            // Each send is recorded, on the bank's clock, before it goes out.
            let previous = (bank: leg.lastSentAt, local: leg.lastSentOn)
            let sentAt = time.bank(now())
            try AccountFailure.ledgerWrite("record the send before it goes out") {
                try ledger.recordSend(
                    accountUid: entry.accountUid, weekEnd: entry.weekEnd, leg: leg.index, bankTime: sentAt,
                    owesReport: byRun, at: now()
                )
            }
            sends += 1
            (leg.sends, leg.lastSentAt, leg.lastSentOn) = (sends, sentAt, now())
            leg.firstSentAt = leg.firstSentAt ?? sentAt
            entry.legs[place] = leg
            do throws(BankError) {
                let answer = try await bank.addMoney(
                    accountUid: entry.accountUid, goalUid: goalUid, transferUid: transferUid, amount: amount,
                    reference: leg.reference)
                guard answer.success != false else {
                    throw BankError.refused(
                        endpoint: "PUT add-money", status: 200, messages: ["the bank answered success: false"])
                }
            } catch {
                switch try await settleUnanswered(
                    entry, leg: leg, error: error, account: account, goalBefore: before, mayResend: !resent,
                    previous: previous)
                {
                case .arrived: return
                case .sendAgain(let total):
                    (before, resent) = (total, true)
                    continue
                }
            }
            break
        }
        do {
            try ledger.recordDone(
                accountUid: entry.accountUid, weekEnd: entry.weekEnd, leg: leg.index,
                confirmedAt: search.time.bank(now()), at: now())
        } catch {
            throw AccountFailure(
                .temporaryFailure,
                "the bank confirmed the transfer, but the ledger could not record it (\(plainDescription(error))); "
                    + "the next run finds it in the feed and does not send it again")
        }
        let goal = leg.goalName ?? goalUid
        logger.notice(
            "\(entry.label): the bank confirmed \(entry.amountText(of: leg)) into \"\(goal)\" (transfer \(transferUid))"
        )
    }
}

/// One of a week's transfers once its goal is chosen: the goal, and the part of the week's
/// amount it takes.
package struct IntendedLeg {
    package let goal: GoalChoice
    package let amount: Money

    /// Whether this part takes the goal to its target.
    var fillsGoal: Bool { ((try? goal.room()) ?? nil) == amount.minorUnits }
}

/// A week's transfer once its goals are chosen: what moves, where to, and under which uids.
package struct TransferIntent {
    package let amount: Money
    /// Why less than the week's round-up moves (a minimum balance held some back, or every
    /// goal was at its target).
    let note: String?
    package let account: Account
    let week: Week
    /// The goals that take part of the week, each with its part, in order: one for a week
    /// saved into one goal. Empty when every goal of `saveInto` is at its target.
    package let legs: [IntendedLeg]
    /// Every goal the week could have gone to, in order (those that take nothing too).
    let goals: [GoalChoice]
    /// The payments the week counted, recorded with its decision.
    let payments: [CountedTransaction]
    /// What the bank had scheduled before payday, in sum, when the week was measured against it.
    var forecast: ForecastSummary? = nil

    /// A week into one goal.
    init(
        amount: Money, note: String?, account: Account, week: Week, goal: GoalChoice, payments: [CountedTransaction],
        forecast: ForecastSummary? = nil
    ) {
        (self.amount, self.note, self.account, self.week) = (amount, note, account, week)
        (legs, goals, self.payments, self.forecast) = (
            [IntendedLeg(goal: goal, amount: amount)], [goal], payments, forecast
        )
    }

    /// A week divided among `goals`, whose parts are `legs`.
    init(
        note: String?, account: Account, week: Week, legs: [IntendedLeg], goals: [GoalChoice], currency: Currency,
        payments: [CountedTransaction], forecast: ForecastSummary?
    ) {
        amount = Money(minorUnits: legs.reduce(0) { $0 + $1.amount.minorUnits }, currency: currency)
        (self.note, self.account, self.week, self.legs, self.goals) = (note, account, week, legs, goals)
        (self.payments, self.forecast) = (payments, forecast)
    }

    /// The week's first goal: the one it moves into first, or would have.
    package var goal: GoalChoice { legs.first?.goal ?? goals[0] }

    /// Whether the week moves into more than one goal.
    package var hasSeveralLegs: Bool { legs.count > 1 }

    /// Whether every goal the week moves into exists (a dry run may only say it would create one).
    var allGoalsExist: Bool { legs.allSatisfy { $0.goal.uid != nil } }

    /// The first leg's transfer uid; nil while a goal does not exist.
    package var transferUid: String? { allGoalsExist ? transferUid(of: 0) : nil }

    /// Leg `index`'s transfer uid, derived from the account, its goal, the week and its
    /// index; nil while its goal does not exist.
    func transferUid(of index: Int) -> String? {
        guard legs.indices.contains(index) else { return nil }
        return legs[index].goal.uid.map {
            TransferUID.transferUid(accountUid: account.uid, goalUid: $0, weekEnd: week.endDate, leg: index)
        }
    }

    /// What the report shows of it.
    package var movement: Movement {
        var movement = Movement(amount: amount, goal: goal.report, transferUid: transferUid)
        if hasSeveralLegs {
            movement.legs = legs.enumerated().map { index, leg in
                Movement.Leg(amount: leg.amount, goal: leg.goal.report, transferUid: transferUid(of: index))
            }
        }
        return movement
    }

    /// Each leg in words, after the week's amount: `2.29 GBP: 1.00 into "Emergency fund" (now
    /// full), 1.29 into "Round-ups"`.
    var intoWords: String {
        "\(amount): "
            + legs.map { leg in
                "\(leg.amount.formattedAmount) into \"\(printable(leg.goal.name))\""
                    + (leg.fillsGoal ? " (now full)" : "")
            }.joined(separator: ", ")
    }

    /// The note as the end of a sentence: " (reduced from …)".
    var reduced: String { note.map { " (\($0))" } ?? "" }

    /// The reference the saver sees on the transfer: the week, in words.
    var reference: String { TransferReference.forWeek(endingOn: week.endDate) }

    /// The ledger entry that records it, with `status`: a leg for each goal that takes part of
    /// the week, or, when none does, one leg of no amount to the first goal.
    func entry(status: WeekState) -> AccountWeek {
        let parts =
            legs.isEmpty ? [IntendedLeg(goal: goal, amount: Money(minorUnits: 0, currency: amount.currency))] : legs
        var entry = AccountWeek(
            accountUid: account.uid, weekEnd: week.endDate, status: status, currency: amount.currency.code,
            legs: parts.enumerated().map { index, part in
                var leg = TransferLeg(index: index, status: status, minorUnits: part.amount.minorUnits)
                leg.goalUid = part.goal.uid
                leg.goalName = part.goal.name
                leg.transferUid = legs.isEmpty ? nil : transferUid(of: index)
                leg.reference = reference
                return leg
            }, accountName: account.name, note: note)
        entry.forecast = forecast
        entry.bound(to: week)
        return entry
    }
}
