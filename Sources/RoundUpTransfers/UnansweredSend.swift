import CurlHTTP
import RoundUp
import RoundUpVocabulary
import RoundUpWeek
import StarlingAPI

/// What the evidence says of a send the bank did not answer with success, when it neither
/// holds the week nor leaves it for a later run.
enum UnansweredSend: Equatable {
    /// The feed shows the transfer: it is recorded as arrived.
    case arrived
    /// The bank answered that it failed, the goal's total did not move, and the feed shows
    /// nothing, twice: it may be sent again, once, measured against `goalTotal`.
    case sendAgain(goalTotal: Int64)
}

/// A send the bank did not answer with success: what the account's feed and the goal's
/// total say of it decides whether it is recorded as arrived, held for a person, left for a
/// later run, or sent again at once.
extension TransferSender {
    /// The most times a run sends a week's transfer, over all runs: the first send and 3
    /// more. A week that would need another is held for a person.
    static let maxSends = 4

    /// After a send that failed: `.arrived` when the feed shows that the money arrived (and
    /// it is recorded); `.sendAgain` only on evidence that it did not move (the bank
    /// answered 5xx or 429, the goal's total stayed `goalBefore`, and the feed, read twice
    /// a short wait apart, shows nothing this week could claim) and when `mayResend` (this
    /// run has not sent it again yet). Otherwise it records why and throws: held (a goal
    /// that changed by another amount, a feed that could be read two ways), or left
    /// unconfirmed for a later run, which sends it only on a feed read `feedSettleMinutes`
    /// after this send.
    /// `previous` is the send before this one (on the bank's clock and this machine's), the
    /// last again if the bank refused this one.
    func settleUnanswered(
        _ entry: AccountWeek, leg: TransferLeg, error: BankError, account: Account, goalBefore: Int64?, mayResend: Bool,
        previous: (bank: Instant?, local: Instant?)
    ) async throws(AccountFailure) -> UnansweredSend {
        guard error.transferMayHaveMoved else {
            // Refused before it moved anything: it counts as no send, and an earlier send
            // whose answer was lost is the last again.
            try? ledger.recordSendRefused(
                accountUid: entry.accountUid, weekEnd: entry.weekEnd, leg: leg.index, previous: previous,
                at: now())
            if let reason = Self.needsAPerson(error, goalName: leg.goalName) {
                try records.hold(entry, reason: reason)
            }
            let earlier =
                previous.bank == nil
                ? "" : "; an earlier send of it went unanswered, so the next run waits for the feed to show that one"
            try? ledger.recordFailure(
                accountUid: entry.accountUid, weekEnd: entry.weekEnd, leg: leg.index,
                error: error.description + earlier, at: now())
            throw AccountFailure(
                ExitStatus(error),
                "\(error.description); the transfer is recorded as unconfirmed, and the next run looks for it in "
                    + "the feed and sends it only if it is not there\(earlier)")
        }
        let cause = error.description
        logger.warning(
            "\(entry.label): the bank may have carried out the transfer (\(cause)); looking in the feed first")
        let since = search.ownSearchStart(entry)
        var unread: String?
        var totals: [Int64?] = []
        for look in 1...2 {
            // Right after the request, an empty feed proves little: look again after a wait.
            if look == 2 { try? await Task.sleep(for: search.waits.feedRecheck) }
            // Beside the feed, in a task of its own, awaited before anything is thrown.
            let totalRead = Task { await goalTotal(of: entry, leg: leg) }
            let looked = await AccountFailure.result { () async throws(AccountFailure) in
                try await search.lookInFeed(for: entry, account: account, since: since)
            }
            let goal = await totalRead.value
            guard case .success(let check) = looked else {
                if case .failure(let error) = looked { unread = error.message }
                break
            }
            totals.append(goal)
            switch check {
            case .arrived(let found):
                try records.recordFound(found, for: entry, leg: leg)
                logger.notice(
                    "\(entry.label): the feed shows \(entry.amountText(of: leg)) arrived (\(found.described))")
                return .arrived
            case .unclear(let reason):
                try records.hold(entry, reason: reason)
            case .absent:
                continue
            }
        }
        if let goalBefore, let changed = totals.compactMap({ $0 }).first(where: { $0 != goalBefore }) {
            try goalMoved(entry, leg: leg, from: goalBefore, to: changed, cause: cause)
        }
        let why: String? =
            if let unread { "the feed could not be read (\(unread))" } else if !error.bankAnsweredFailure {
                "no answer came, and the feed does not show it yet"
            } else if let wait = longWait(error) {
                "the feed does not show it, and the bank asked to wait \(wait.inSeconds)"
            } else if !mayResend {
                "the feed does not show it, and it was sent again once in this run already"
            } else if goalBefore == nil || totals.contains(where: { $0 == nil }) || totals.isEmpty {
                "the feed does not show it, and the goal's total could not be read before and after it"
            } else { nil }
        if let why { try leaveForLaterRun(entry, leg: leg, cause: cause, why: why, error: error) }
        logger.warning(
            "\(entry.label): the goal's total did not move and the feed shows nothing; sending it again with the same transfer uid"
        )
        return .sendAgain(goalTotal: totals.last.flatMap { $0 } ?? goalBefore ?? 0)
    }

    /// Throws for a week whose goal's total moved while its transfer went unanswered and the
    /// feed shows nothing: by this week's amount, the money moved and the feed lags, so the
    /// week is left for a later run (75); by anything else, it is held for a person.
    private func goalMoved(_ entry: AccountWeek, leg: TransferLeg, from before: Int64, to after: Int64, cause: String)
        throws(AccountFailure) -> Never
    {
        let amounts = (
            Money.describe(minorUnits: before, code: entry.currency),
            Money.describe(minorUnits: after, code: entry.currency)
        )
        if after - before == leg.minorUnits {
            let reason =
                "\(cause); the goal's total went from \(amounts.0) to \(amounts.1), this week's \(entry.amountText(of: leg)): "
                + "the money moved, though the feed does not show it yet, so it is not sent again; the next run "
                + "looks in the feed again, and holds the week if the feed never shows it"
            try? ledger.recordGoalGrew(
                accountUid: entry.accountUid, weekEnd: entry.weekEnd, leg: leg.index, at: now())
            try? ledger.recordFailure(
                accountUid: entry.accountUid, weekEnd: entry.weekEnd, leg: leg.index, error: reason,
                at: now())
            throw AccountFailure(.temporaryFailure, reason)
        }
        try records.hold(
            entry,
            reason: "\(cause); the goal's total went from \(amounts.0) to \(amounts.1) while this week's "
                + "\(entry.amountText(of: leg)) was sent, and the feed shows no transfer of it: nothing was sent again. "
                + "`roundup resolve --check` records it once the feed shows it; `--retry` sends it again")
    }

    /// Records why an unanswered send is not sent again in this run, and throws: the next
    /// run looks in the feed again and sends it only on a read `feedSettleMinutes` after it.
    private func leaveForLaterRun(_ entry: AccountWeek, leg: TransferLeg, cause: String, why: String, error: BankError)
        throws(AccountFailure) -> Never
    {
        try? ledger.recordFailure(
            accountUid: entry.accountUid, weekEnd: entry.weekEnd, leg: leg.index, error: "\(cause); \(why)",
            at: now())
        let minutes = search.waits.feedSettle.components.seconds / 60
        throw AccountFailure(
            ExitStatus(error),
            "\(cause); the bank may have carried it out: \(why), so it was not sent again. The next run looks in the "
                + "feed again and sends it only if the feed still shows nothing"
                + (minutes > 0 ? " \(minutes) minutes after this send" : ""))
    }

    /// How long a 429 asked to wait, when that is longer than the run waits.
    private func longWait(_ error: BankError) -> Duration? {
        guard case .rateLimited(_, let header?) = error.underlying,
            let wait = RetryAfter(header)?.delay(from: bank.retrier.clock.now()),
            wait > bank.retrier.policy.maxRetryAfter || !(bank.deadline?.allows(waiting: wait) ?? true)
        else { return nil }
        return wait
    }

    /// Why `entry`'s transfer, sent before and unanswered, may not be sent again yet: its
    /// last send (one the bank did not refuse) was less than `feedSettleMinutes` ago on the
    /// bank's clock, and a feed that shows nothing so soon proves little. Nil when it may be
    /// sent.
    func tooSoonToSendAgain(_ entry: AccountWeek, leg: TransferLeg) -> String? {
        let time = search.time
        guard search.waits.feedSettle > .zero, let last = leg.lastSentAt else { return nil }
        let settled = last.adding(search.waits.feedSettle)
        // By both clocks: a `Date` header that jumps does not cut the wait short.
        let settledHere = leg.lastSentOn.map { $0.adding(search.waits.feedSettle) }
        guard time.bank(now()) < settled || settledHere.map({ now() < $0 }) == true else { return nil }
        // Said on the clock still waited for: this machine's once the bank's has passed.
        let from =
            time.bank(now()) >= settled
            ? "\((settledHere ?? settled).iso8601) on this machine's clock" : "\(settled.iso8601) on the bank's clock"
        return
            "the transfer of \(entry.amountText(of: leg)) sent at \(last.iso8601) (the bank's clock) went unanswered, and "
            + "the feed does not show it yet; it is sent again only if the feed still shows nothing from \(from) "
            + "(feedSettleMinutes)"
    }

    /// Why a run does not send `entry`'s transfer again though the feed does not show it:
    /// after an earlier send, the goal's total grew by the week's amount. Nil otherwise.
    static func goalGrewReason(_ entry: AccountWeek, leg: TransferLeg) -> String? {
        guard leg.goalGrew else { return nil }
        return "after a send of this week's whose answer was lost, the goal's total grew by this week's "
            + "\(entry.amountText(of: leg)), but the feed does not show the transfer: the money moved, so it is not sent "
            + "again. `roundup resolve --check` records it once the feed shows it; `--retry` sends it anyway; "
            + "`--abandon REASON` leaves it"
    }

    /// The goal's total saved, in minor units, or nil when it cannot be read.
    func goalTotal(of entry: AccountWeek, leg: TransferLeg) async -> Int64? {
        guard let goalUid = leg.goalUid,
            let goal = try? await bank.savingsGoal(accountUid: entry.accountUid, goalUid: goalUid),
            goal.savingsGoalUid == goalUid, let total = goal.totalSaved, total.currency == entry.currency
        else { return nil }
        return total.minorUnits
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
        if messages.contains("SAVINGS_GOAL_NOT_ACTIVE") {
            return
                "the bank refused the transfer into \"\(goalName ?? "the goal")\" with HTTP \(status)\(said) (the goal "
                + "takes no money: restore it in the app and --retry, or --redirect it)"
        }
        return "the bank refused the transfer with HTTP \(status)\(said)"
    }
}
