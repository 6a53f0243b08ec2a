import RoundUp
import RoundUpVocabulary
import StarlingAPI

/// What the account's feed says of a week's transfer whose outcome is not known, and what
/// follows from it: recorded as arrived, held for a person, or free to send again.
extension WeeklyJob {
    /// After a send that failed: true when the feed shows that the money arrived (and it
    /// is recorded), false when the feed shows no sign of it, twice, and it may be sent
    /// again; otherwise records why and throws (held, or left for the next run).
    func settleUnanswered(_ entry: LedgerEntry, error: BankError, account: Account, last: Bool)
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
        let since = entry.recordedAt ?? weekEnd(of: entry)
        var unread: String?
        for look in 1...2 {
            // Right after the request, an empty feed proves little: look again after a wait.
            if look == 2 { try? await Task.sleep(for: feedSearch.feedRecheck) }
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
        let (feed, week) = try await transfers(for: entry, account: account, since: since)
        return decide(week, entry: entry, feed: feed, ledger: try entries(of: account))
    }

    /// The transfers into goals the account's feed shows from `since` (or the earlier
    /// `readingFrom`), less the clock-skew margin, until now (plus the margin), and `entry`'s
    /// week as a search for it sees it: from `since`. The `firstTime` a week is seen, a
    /// transfer of its amount into any other goal holds it too.
    func transfers(
        for entry: LedgerEntry, account: Account, since: Instant, firstTime: Bool = false, readingFrom: Instant? = nil
    ) async throws(AccountFailure) -> ([FeedTransfer], TransferCheck.Search) {
        let margin = feedSearch.clockSkewMargin
        let from = min(since, readingFrom ?? since).adding(.zero - margin)
        let to = now().adding(margin)
        let items = try await AccountFailure.bankCall { () async throws(BankError) in
            try await bank.transfersOut(
                accountUid: account.uid, categoryUid: account.defaultCategory, from: from, to: to)
        }
        // The bank's bounds are not documented as inclusive or exact: filtered again here.
        let feed = items.compactMap(FeedTransfer.init).filter { $0.time.map { from <= $0 && $0 <= to } ?? true }
        guard let currency = Currency(code: entry.currency) else {
            throw AccountFailure(
                .dataError, "the ledger entry for this week has the unknown currency \(entry.currency)")
        }
        let week = TransferCheck.Search(
            weekEnd: entry.weekEnd, amount: Money(minorUnits: entry.minorUnits, currency: currency),
            goalUids: entry.goalUids, since: since.adding(.zero - margin), watchesOtherGoals: firstTime)
        return (feed, week)
    }

    /// The account's entries in the ledger, each week's claim on the feed's transfers.
    func entries(of account: Account) throws(AccountFailure) -> [LedgerEntry] {
        try AccountFailure.ledgerRead { try ledger.entries(accountUid: account.uid) }
    }

    /// `TransferCheck.decide`, logged.
    func decide(_ week: TransferCheck.Search, entry: LedgerEntry, feed: [FeedTransfer], ledger others: [LedgerEntry])
        -> TransferCheck
    {
        let check = TransferCheck.decide(week, feed: feed, ledger: others, margin: feedSearch.clockSkewMargin)
        logger.info(
            "\(entry.label): \(feed.count) transfer(s) into goals in the feed since \(week.since): \(check.summary)")
        return check
    }

    func recordFound(_ found: FeedTransfer, for entry: LedgerEntry) throws(AccountFailure) {
        try AccountFailure.ledgerWrite("record that the transfer arrived") {
            try ledger.recordDone(
                accountUid: entry.accountUid, weekEnd: entry.weekEnd, confirmation: .feed,
                feedItemUid: found.feedItemUid, at: now())
        }
    }

    /// Holds `entry`'s week for a person, for `reason`; over another ledger's transfer, noting
    /// the week it names and how much may be saved twice.
    func hold(_ entry: LedgerEntry, reason: String, otherLedger: OtherLedgerHold? = nil) throws(AccountFailure) -> Never
    {
        try AccountFailure.ledgerWrite("hold the week") {
            try ledger.recordHeld(
                accountUid: entry.accountUid, weekEnd: entry.weekEnd, reason: reason,
                otherWeekEnd: otherLedger?.otherWeekEnd, sharedMinorUnits: otherLedger?.shared, at: now())
        }
        throw AccountFailure.held(reason)
    }

    /// Whether `entry`'s goal is no longer among the account's goals (false when unsure).
    func goalIsGone(_ entry: LedgerEntry, account: Account) async -> Bool {
        guard let goalUid = entry.goalUid, let goals = try? await bank.savingsGoals(accountUid: account.uid) else {
            return false
        }
        return !goals.contains { $0.savingsGoalUid == goalUid }
    }
}

extension TransferCheck.Search {
    /// The transfers of `feed` a search for this week looks at: from `since` on.
    func recent(_ feed: [FeedTransfer]) -> [FeedTransfer] { feed.filter { $0.time.map { $0 >= since } ?? true } }
}

extension LedgerEntry {
    /// When the week was first recorded: for a transfer, before its first request went
    /// out, so a search of the feed for it starts here.
    var recordedAt: Instant? { createdAt.flatMap(Instant.init(iso8601:)) }

    /// The entry's account as text output names it.
    var label: String { Account.label(name: accountName, uid: accountUid, currencyCode: currency) }

    /// The entry's amount in words.
    var amountText: String {
        Money.describe(minorUnits: minorUnits, code: currency)
    }
}

extension WeeklyJob {
    /// The end of `entry`'s week: where a feed search starts when the entry has no time
    /// of its own, so that the search is wider, never narrower, than the intent's.
    func weekEnd(of entry: LedgerEntry) -> Instant {
        entry.endsAt ?? Week(endingOn: entry.weekEnd, in: rules.timeZone).end
    }
}

extension FeedTransfer {
    /// "feed item …, on …".
    var described: String { "feed item \(feedItemUid)" + (time.map { ", on \($0.iso8601)" } ?? "") }
}

extension TransferCheck {
    /// Whether the week's transfer is there, and its money moved.
    var hasArrived: Bool {
        if case .arrived = self { return true }
        return false
    }

    /// What a dry run says of a week a real run would hold.
    static func wouldHold(_ reason: String) -> String { "a real run would hold this week for a person: \(reason)" }

    var summary: String {
        switch self {
        case .arrived(let found): "this week's transfer is there (\(found.described))"
        case .absent: "no sign of this week's transfer"
        case .unclear(let reason): "unclear: \(reason)"
        }
    }
}
