import Foundation
import Logging
import RoundUp
import RoundUpLedger
import RoundUpVocabulary
import StarlingAPI

/// Searches of an account's feed for a week's transfer: what the feed shows, and what the
/// ledger's other weeks claim of it. It reads the bank and the ledger, and writes neither.
struct FeedSearch: Sendable {
    let bank: BankClient
    let ledger: Ledger
    let waits: FeedSearchWaits
    /// The zone a week without bounds of its own is counted in.
    let timeZone: TimeZone
    let logger: Logger
    let now: @Sendable () -> Instant

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
        let margin = waits.clockSkewMargin
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
        let check = TransferCheck.decide(week, feed: feed, ledger: others, margin: waits.clockSkewMargin)
        logger.info(
            "\(entry.label): \(feed.count) transfer(s) into goals in the feed since \(week.since): \(check.summary)")
        return check
    }

    /// Whether `entry`'s goal is no longer among the account's goals (false when unsure).
    func goalIsGone(_ entry: LedgerEntry, account: Account) async -> Bool {
        guard let goalUid = entry.goalUid, let goals = try? await bank.savingsGoals(accountUid: account.uid) else {
            return false
        }
        return !goals.contains { $0.savingsGoalUid == goalUid }
    }

    /// The end of `entry`'s week: where a feed search starts when the entry has no time
    /// of its own, so that the search is wider, never narrower, than the intent's.
    func weekEnd(of entry: LedgerEntry) -> Instant {
        entry.endsAt ?? Week(endingOn: entry.weekEnd, in: timeZone).end
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
