import RoundUp
import StarlingAPI

/// Moving a week's money: look in the feed first when its outcome is not known, record the
/// intent before sending, and the outcome after. A transfer whose outcome is unknown is
/// never sent again blindly: the bank does not promise to recognise a repeated transfer uid.
extension RoundUpJob {
    /// Moves `amount` into the account's goal (a dry run says what it would move).
    func transfer(
        _ amount: Money, note: String?, account: Account, week: Week, dryRun: Bool, scopes: Set<String>,
        report: inout AccountReport
    ) async throws(AccountFailure) {
        let reduced = note.map { " (\($0))" } ?? ""
        let goal: GoalChoice
        do {
            goal = try await goals.resolve(for: account, dryRun: dryRun, scopes: scopes)
        } catch {
            if error.held, let waited = error.goal, !dryRun {
                try holdNew(amount, note: note, account: account, week: week, goal: waited, reason: error.reason)
            }
            throw error
        }
        report.goal = goal.report
        guard let goalUid = goal.uid else {
            return report.dryRun(
                "a real run would create the goal \"\(goal.name)\" and move \(amount) into it\(reduced)")
        }
        let transferUid = TransferUID.transferUid(accountUid: account.uid, goalUid: goalUid, weekEnd: week.endDate)
        report.transferUid = transferUid
        let entry = LedgerEntry(
            accountUid: account.uid, weekEnd: week.endDate, status: .pending, currency: amount.currency.code,
            minorUnits: amount.minorUnits, goalUid: goalUid, goalName: goal.name, transferUid: transferUid,
            accountName: account.name, note: note)
        try await transferNew(entry, amount: amount, account: account, week: week, dryRun: dryRun, report: &report)
    }

    /// The first transfer of a week this ledger has never seen: another state directory,
    /// or this one before it was restored from a backup, may have sent it, so the feed is
    /// searched first.
    private func transferNew(
        _ entry: LedgerEntry, amount: Money, account: Account, week: Week, dryRun: Bool, report: inout AccountReport
    ) async throws(AccountFailure) {
        var entry = entry
        let goalName = entry.goalName ?? "the goal"
        let reduced = entry.note.map { " (\($0))" } ?? ""
        switch try await lookInFeed(for: entry, account: account, since: week.end) {
        case .arrived(let found):
            let detail = "\(amount) already moved into \"\(goalName)\" (\(found.described)); nothing was sent"
            if dryRun { return report.dryRun("the feed shows that \(detail)") }
            entry.status = .done
            entry.confirmation = .feed
            entry.feedItemUid = found.feedItemUid
            try AccountFailure.ledgerWrite("record the week") { try ledger.recordDecision(entry, at: now()) }
            report.status = .alreadyTransferred
            report.detail = "found in the feed: \(detail)"
        case .unclear(let reason):
            if dryRun { return report.dryRun("a real run would hold this week for a person: \(reason)") }
            entry.status = .held
            entry.reason = reason
            try AccountFailure.ledgerWrite("record the held week") { try ledger.recordDecision(entry, at: now()) }
            throw AccountFailure.held(reason)
        case .absent:
            if dryRun { return report.dryRun("a real run would move \(amount) into \"\(goalName)\"\(reduced)") }
            let recordedAt = now()
            try AccountFailure.ledgerWrite("record the transfer before sending it") {
                try ledger.recordDecision(entry, at: recordedAt)
            }
            // A feed search after a failed send starts from here: before the request went out.
            entry.createdAt = recordedAt.iso8601
            logger.info(
                "\(account.label): recorded the transfer of \(amount) before sending it (transfer \(entry.transferUid ?? ""))"
            )
            try await send(entry, account: account, report: &report)
            report.detail = "moved \(amount) into \"\(goalName)\"\(reduced)"
        }
    }

    /// Records a week that cannot go ahead without a person (its goal did not become
    /// active), with everything a later `roundup resolve --retry` needs to send it.
    private func holdNew(
        _ amount: Money, note: String?, account: Account, week: Week, goal: GoalChoice, reason: String
    ) throws(AccountFailure) {
        guard let goalUid = goal.uid else { return }
        var entry = LedgerEntry(
            accountUid: account.uid, weekEnd: week.endDate, status: .held, currency: amount.currency.code,
            minorUnits: amount.minorUnits, goalUid: goalUid, goalName: goal.name,
            transferUid: TransferUID.transferUid(accountUid: account.uid, goalUid: goalUid, weekEnd: week.endDate),
            accountName: account.name, note: note)
        entry.reason = reason
        try AccountFailure.ledgerWrite("record the held week") { try ledger.recordDecision(entry, at: now()) }
    }

    /// The week already has a ledger entry: report it, or finish a transfer whose outcome
    /// was never recorded: found in the feed, or sent with the same transfer uid and amount.
    func resume(
        _ entry: LedgerEntry, plan: RoundUpPlan, account: Account, week: Week, dryRun: Bool,
        report: inout AccountReport
    ) async throws(AccountFailure) {
        let recorded = Money(minorUnits: entry.minorUnits, currency: plan.currency)
        report.total = recorded.formattedAmount
        report.totalMinorUnits = recorded.minorUnits
        report.transferUid = entry.transferUid
        report.goal = entry.goalName.map { GoalReport(uid: entry.goalUid, name: $0) }
        let differs = recorded != plan.total ? " (this week's feed now gives \(plan.total))" : ""
        let goalName = entry.goalName ?? "the goal"
        switch entry.status {
        case .done:
            report.status = .alreadyTransferred
            let how = entry.confirmation == .feed ? ", found in the feed" : ""
            report.detail = "an earlier run moved \(recorded) into \"\(goalName)\"\(how)\(differs)"
        case .nothing:
            report.status = .nothingToDo
            report.detail = "an earlier run found nothing to move\(differs)"
        case .abandoned:
            report.status = .abandoned
            report.detail = "a person abandoned this week: \(entry.reason ?? "no reason given")"
        case .held:
            report.status = .held
            report.exitCode = .configuration
            report.detail =
                "held for a person: \(entry.reason ?? "no reason recorded"); `roundup resolve` lists it and settles it"
        case .pending:
            try await finishUnconfirmed(
                entry, recorded: recorded, account: account, week: week, dryRun: dryRun, report: &report)
            if report.status == .transferred || report.status == .alreadyTransferred { report.detail! += differs }
        }
    }

    /// A transfer an earlier run recorded but never saw confirmed: found in the feed, sent
    /// again with the same transfer uid when the feed shows no sign of it, or held.
    private func finishUnconfirmed(
        _ entry: LedgerEntry, recorded: Money, account: Account, week: Week, dryRun: Bool,
        report: inout AccountReport
    ) async throws(AccountFailure) {
        let goalName = entry.goalName ?? "the goal"
        let since = entry.createdAt.flatMap(Instant.init(iso8601:)) ?? week.end
        switch try await lookInFeed(for: entry, account: account, since: since) {
        case .arrived(let found):
            let detail = "the transfer of \(recorded) into \"\(goalName)\" begun by an earlier run arrived"
            if dryRun {
                return report.dryRun("\(detail) (\(found.described)); a real run would record it and send nothing")
            }
            try recordFound(found, for: entry)
            let gone = await goalIsGone(entry, account: account) ? "; the goal no longer exists" : ""
            report.status = .alreadyTransferred
            report.detail = "\(detail): found in the feed (\(found.described)); nothing was sent\(gone)"
        case .unclear(let reason):
            if dryRun { return report.dryRun("a real run would hold this week for a person: \(reason)") }
            try hold(entry, reason: reason)
        case .absent:
            if dryRun {
                return report.dryRun(
                    "the feed does not show the unconfirmed transfer of \(recorded) into \"\(goalName)\" from an "
                        + "earlier run; a real run would send it again with the same transfer uid")
            }
            try await send(entry, account: account, report: &report)
            report.detail = "completed the transfer of \(recorded) into \"\(goalName)\" begun by an earlier run"
        }
    }

    /// Sends a recorded transfer and records its outcome. When the bank may have acted
    /// without saying so, the feed is read, twice and a short wait apart, before the
    /// transfer is sent again (at most as many times as a request is tried).
    func send(_ entry: LedgerEntry, account: Account, report: inout AccountReport) async throws(AccountFailure) {
        guard let goalUid = entry.goalUid, let transferUid = entry.transferUid else {
            throw AccountFailure(.dataError, "the ledger entry for this week has no goal or transfer uid")
        }
        let amount = CurrencyAndAmount(currency: entry.currency, minorUnits: entry.minorUnits)
        let attempts = settings.retryPolicy.maxAttempts
        for attempt in 1...attempts {
            do throws(BankError) {
                let answer = try await bank.addMoney(
                    accountUid: entry.accountUid, goalUid: goalUid, transferUid: transferUid, amount: amount)
                guard answer.success != false else {
                    throw BankError.refused(
                        endpoint: "PUT add-money", status: 200, messages: ["the bank answered success: false"])
                }
            } catch {
                guard try await settleUnanswered(entry, error: error, account: account, last: attempt == attempts)
                else {
                    logger.warning(
                        "\(entry.label): the feed does not show the transfer; sending it again with the same transfer uid (attempt \(attempt + 1) of \(attempts))"
                    )
                    continue
                }
                report.status = .transferred
                return
            }
            break
        }
        report.status = .transferred
        do {
            try ledger.recordDone(accountUid: entry.accountUid, weekEnd: entry.weekEnd, at: now())
        } catch {
            throw AccountFailure(
                .temporaryFailure,
                "the bank confirmed the transfer, but the ledger could not record it (\(plainDescription(error))); "
                    + "the next run finds it in the feed and does not send it again")
        }
        let goal = entry.goalName ?? goalUid
        logger.notice(
            "\(entry.label): the bank confirmed \(entry.amountText) into \"\(goal)\" (transfer \(transferUid))")
    }

    /// After a send that failed: true when the feed shows that the money arrived (and it
    /// is recorded), false when the feed shows no sign of it, twice, and it may be sent
    /// again; otherwise records why and throws (held, or left for the next run).
    private func settleUnanswered(_ entry: LedgerEntry, error: BankError, account: Account, last: Bool)
        async throws(AccountFailure) -> Bool
    {
        guard error.mayHaveActed else {
            if let reason = Self.needsAPerson(error, goalName: entry.goalName) { try hold(entry, reason: reason) }
            try? ledger.recordFailure(
                accountUid: entry.accountUid, weekEnd: entry.weekEnd, error: error.description, at: now())
            throw AccountFailure(
                ExitStatus(error),
                "\(error.description); the transfer is recorded as unconfirmed, and the next run looks for it in "
                    + "the feed and sends it only if it is not there")
        }
        let cause = error.description
        logger.warning(
            "\(entry.label): the bank may have carried out the transfer (\(cause)); looking in the feed first")
        let since = entry.createdAt.flatMap(Instant.init(iso8601:)) ?? now()
        var unread: String?
        for look in 1...2 {
            // Right after the request, an empty feed proves little: look again after a wait.
            if look == 2 { try? await Task.sleep(for: settings.waits.feedRecheck) }
            let check: TransferCheck
            do {
                check = try await lookInFeed(for: entry, account: account, since: since)
            } catch {
                unread = error.message
                break
            }
            switch check {
            case .arrived(let found):
                try recordFound(found, for: entry)
                logger.notice("\(entry.label): the feed shows \(entry.amountText) arrived (\(found.described))")
                return true
            case .unclear(let reason):
                try hold(entry, reason: reason)
            case .absent:
                continue
            }
        }
        guard unread != nil || last else { return false }
        let why = unread.map { "the feed could not be read (\($0))" } ?? "its feed does not show it"
        try? ledger.recordFailure(
            accountUid: entry.accountUid, weekEnd: entry.weekEnd, error: "\(cause); \(why)", at: now())
        throw AccountFailure(
            ExitStatus(error),
            "\(cause); the bank may have carried it out and \(why), so it was not sent again: the next run looks "
                + "in the feed again and sends it only if it is not there")
    }

    /// Why the bank's refusal needs a person, or nil when it may pass (insufficient funds, a
    /// rate limit, no connection, a rejected token: each has its own exit code).
    static func needsAPerson(_ error: BankError, goalName: String?) -> String? {
        guard case .refused(_, let status, let messages) = error.underlying,
            !messages.contains("INSUFFICIENT_FUNDS")
        else { return nil }
        if messages.contains("UNKNOWN_SAVINGS_GOAL") {
            return "the goal \"\(goalName ?? "of this transfer")\" no longer exists (the bank answered "
                + "UNKNOWN_SAVINGS_GOAL); send the week to another goal with --redirect, or abandon it"
        }
        let said = messages.isEmpty ? "" : ": " + messages.joined(separator: "; ")
        return "the bank refused the transfer with HTTP \(status)\(said)"
    }

    /// What the account's feed says of `entry`'s transfer, from `since` (less the clock-skew
    /// margin) until now (plus the margin).
    func lookInFeed(for entry: LedgerEntry, account: Account, since: Instant) async throws(AccountFailure)
        -> TransferCheck
    {
        let margin = settings.waits.clockSkewMargin
        let from = since.adding(.zero - margin)
        let to = now().adding(margin)
        let items = try await AccountFailure.bankCall { () async throws(BankError) in
            try await bank.categoryTransactions(
                accountUid: account.uid, categoryUid: account.defaultCategory, from: from, to: to)
        }
        // The bank's bounds are not documented as inclusive or exact: filtered again here.
        let feed = items.compactMap(FeedTransfer.init).filter { $0.time.map { from <= $0 && $0 <= to } ?? true }
        let others: [LedgerEntry]
        do {
            others = try ledger.entries(accountUid: account.uid)
        } catch {
            throw AccountFailure(
                .temporaryFailure, "could not read the ledger: \(plainDescription(error)); nothing was moved")
        }
        guard let currency = Currency(code: entry.currency) else {
            throw AccountFailure(
                .dataError, "the ledger entry for this week has the unknown currency \(entry.currency)")
        }
        let week = TransferCheck.Week(
            weekEnd: entry.weekEnd, amount: Money(minorUnits: entry.minorUnits, currency: currency),
            goalUids: entry.goalUids, since: from)
        let check = TransferCheck.decide(week, feed: feed, ledger: others, margin: margin)
        logger.info("\(entry.label): \(feed.count) transfer(s) into goals in the feed since \(from): \(check.summary)")
        return check
    }

    private func recordFound(_ found: FeedTransfer, for entry: LedgerEntry) throws(AccountFailure) {
        try AccountFailure.ledgerWrite("record that the transfer arrived") {
            try ledger.recordDone(
                accountUid: entry.accountUid, weekEnd: entry.weekEnd, confirmation: .feed,
                feedItemUid: found.feedItemUid, at: now())
        }
    }

    func hold(_ entry: LedgerEntry, reason: String) throws(AccountFailure) -> Never {
        try AccountFailure.ledgerWrite("hold the week") {
            try ledger.recordHeld(accountUid: entry.accountUid, weekEnd: entry.weekEnd, reason: reason, at: now())
        }
        throw AccountFailure.held(reason)
    }

    /// Whether `entry`'s goal is no longer among the account's goals (false when unsure).
    func goalIsGone(_ entry: LedgerEntry, account: Account) async -> Bool {
        guard let goalUid = entry.goalUid, let goals = try? await bank.savingsGoals(accountUid: account.uid) else {
            return false
        }
        return !goals.contains { $0.savingsGoalUid.lowercased() == goalUid.lowercased() }
    }
}

extension AccountReport {
    /// A dry run's account: what a real run would do.
    mutating func dryRun(_ detail: String) {
        status = .dryRun
        self.detail = detail
    }
}

extension LedgerEntry {
    /// The entry's account as text output names it.
    var label: String { Account.label(name: accountName, uid: accountUid, currencyCode: currency) }

    /// The entry's amount in words.
    var amountText: String {
        Currency(code: currency).map { Money(minorUnits: minorUnits, currency: $0).description }
            ?? "\(minorUnits) minor units of \(currency)"
    }
}

extension FeedTransfer {
    /// "feed item …, on …".
    var described: String { "feed item \(feedItemUid)" + (time.map { ", on \($0.iso8601)" } ?? "") }
}

extension TransferCheck {
    var summary: String {
        switch self {
        case .arrived(let found): "this week's transfer is there (\(found.described))"
        case .absent: "no sign of this week's transfer"
        case .unclear(let reason): "unclear: \(reason)"
        }
    }
}
