import RoundUp
import StarlingAPI

/// Moving a week's money: the intent recorded before it is sent, the outcome after, and a
/// transfer an earlier run began finished with the same transfer uid and amount.
extension RoundUpJob {
    /// Moves `amount` into the account's goal (a dry run says what it would move).
    func transfer(
        _ amount: Money, note: String?, account: Account, week: Week, dryRun: Bool, scopes: Set<String>,
        report: inout AccountReport
    ) async throws(AccountFailure) {
        let reduced = note.map { " (\($0))" } ?? ""
        let goal = try await goals.resolve(for: account, dryRun: dryRun, scopes: scopes)
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
            accountUid: account.uid, weekEnd: week.endDate, status: .pending, currency: amount.currency.code,
            minorUnits: amount.minorUnits, goalUid: goalUid, goalName: goal.name, transferUid: transferUid,
            accountName: account.name, note: note)
        try AccountFailure.ledgerWrite("record the transfer before sending it") {
            try ledger.recordDecision(entry, at: now())
        }
        logger.info("\(account.label): recorded the transfer of \(amount) before sending it (transfer \(transferUid))")
        try await send(entry, report: &report)
        report.detail = "moved \(amount) into \"\(goal.name)\"\(reduced)"
    }

    /// The week already has a ledger entry: report it, or finish a transfer whose outcome
    /// was never recorded, with the same transfer uid and amount as the first attempt.
    func resume(_ entry: LedgerEntry, plan: RoundUpPlan, dryRun: Bool, report: inout AccountReport)
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
                report.detail =
                    "a real run would resend the unconfirmed transfer of \(recorded) "
                    + "into \"\(entry.goalName ?? "the goal")\" from an earlier run"
                return
            }
            try await send(entry, report: &report)
            report.detail =
                "completed the transfer of \(recorded) into \"\(entry.goalName ?? "the goal")\" "
                + "begun by an earlier run\(differs)"
        }
    }

    /// Sends a recorded transfer and records its outcome.
    private func send(_ entry: LedgerEntry, report: inout AccountReport) async throws(AccountFailure) {
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
        let moved =
            Currency(code: entry.currency).map { Money(minorUnits: entry.minorUnits, currency: $0).description }
            ?? "\(entry.minorUnits) minor units of \(entry.currency)"
        logger.notice(
            "\(entry.label): the bank confirmed \(moved) into \"\(entry.goalName ?? goalUid)\" (transfer \(transferUid))"
        )
    }
}

extension LedgerEntry {
    /// The entry's account as text output names it.
    var label: String { Account.label(name: accountName, uid: accountUid, currencyCode: currency) }
}
