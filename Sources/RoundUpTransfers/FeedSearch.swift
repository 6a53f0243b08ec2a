package import Foundation
package import Logging
package import RoundUp
package import RoundUpHost
package import RoundUpLedger
package import RoundUpVocabulary
package import RoundUpWeek
package import StarlingAPI

/// Searches of an account's feed for a week's transfer: what the feed shows, and what the
/// ledger's other weeks claim of it. It reads the bank and the ledger, and writes only the
/// claims of weeks the bank confirmed on the feed items that show them (`claimConfirmed`).
/// Every instant it takes or compares is on the bank's clock (`time`).
package struct FeedSearch: Sendable {
    package let bank: BankClient
    let ledger: Ledger
    let waits: FeedSearchWaits
    /// As long as one request may take: a transfer is made while its request is answered.
    let requestTimeout: Duration
    /// The zone a week without bounds of its own is counted in.
    let timeZone: TimeZone
    let logger: Logger
    let now: @Sendable () -> Instant

    package init(
        bank: BankClient, ledger: Ledger, waits: FeedSearchWaits, requestTimeout: Duration, timeZone: TimeZone,
        logger: Logger, now: @escaping @Sendable () -> Instant
    ) {
        self.bank = bank
        self.ledger = ledger
        self.waits = waits
        self.requestTimeout = requestTimeout
        self.timeZone = timeZone
        self.logger = logger
        self.now = now
    }

    /// This machine's instants on the bank's clock, as the answers so far show it.
    package var time: BankTime { BankTime(bank.clock.reading, floor: waits.clockSkewMargin) }

    /// What the account's feed says of `entry`'s transfer, from `since` (on the bank's
    /// clock; less the margin) until now (plus the margin).
    func lookInFeed(for entry: AccountWeek, account: Account, since: Instant) async throws(AccountFailure)
        -> TransferCheck
    {
        let (feed, week) = try await transfers(for: entry, account: account, since: since)
        return decide(week, entry: entry, feed: feed, ledger: try entries(of: account))
    }

    /// The transfers into goals the account's feed shows from `since` (or the earlier
    /// `readingFrom`), both on the bank's clock, less the margin, until now (plus the
    /// margin), and `entry`'s week as a search for it sees it: from `since`. The
    /// `firstTime` a week is seen, a transfer of its amount into any other goal holds it too.
    /// Weeks the bank confirmed claim their items on the way (`claimConfirmed`).
    func transfers(
        for entry: AccountWeek, account: Account, since: Instant, firstTime: Bool = false, readingFrom: Instant? = nil
    ) async throws(AccountFailure) -> ([FeedTransfer], TransferCheck.Search) {
        let feed = try await feed(of: account, from: min(since, readingFrom ?? since))
        return (feed, try sought(entry, since: since, firstTime: firstTime))
    }

    /// The transfers into goals the account's feed shows from `from` (on the bank's clock,
    /// less the margin) until now (plus the margin). Weeks the bank confirmed claim their
    /// items on the way (`claimConfirmed`).
    func feed(of account: Account, from start: Instant) async throws(AccountFailure) -> [FeedTransfer] {
        let time = self.time
        let from = start.adding(.zero - time.margin)
        let to = time.bank(now()).adding(time.margin)
        let items = try await AccountFailure.bankCall { () async throws(BankError) in
            try await bank.transfersOut(
                accountUid: account.uid, categoryUid: account.defaultCategory, from: from, to: to)
        }
        // The bank's bounds are not documented as inclusive or exact: filtered again here.
        let feed = items.compactMap(FeedTransfer.init).filter { $0.time.map { from <= $0 && $0 <= to } ?? true }
        claimConfirmed(in: feed, read: from...to, account: account, time: time)
        return feed
    }

    /// `entry`'s transfer (a week of one leg, or a view of one leg) as a search of the feed
    /// sees it: from `since` (on the bank's clock), of its amount, into its goals. The
    /// `firstTime` a week is seen, a transfer of its amount into any other goal holds it too.
    func sought(_ entry: AccountWeek, since: Instant, firstTime: Bool = false) throws(AccountFailure)
        -> TransferCheck.Search
    {
        let time = self.time
        guard let currency = Currency(code: entry.currency) else {
            throw AccountFailure(
                .dataError, "the ledger entry for this week has the unknown currency \(entry.currency)")
        }
        var week = TransferCheck.Search(
            weekEnd: entry.weekEnd, amount: Money(minorUnits: entry.minorUnits, currency: currency),
            goalUids: entry.goalUids, since: since.adding(.zero - time.margin), watchesOtherGoals: firstTime,
            until: entry.lastSentAt.map { $0.adding(requestTimeout).adding(time.margin) })
        week.sent = entry.mayHaveBeenSent
        week.leg = entry.firstLeg.index
        return week
    }

    /// Each week the bank confirmed without a feed item claims, once the `feed` (read over
    /// `read`, which ends the margin after now) covers its send and its confirmation, the
    /// item that shows it: of its goal
    /// and amount, claimed by no other week, the one nearest its confirmation
    /// (`TransferCheck.confirmedTransfer`), unless a week whose transfer is not confirmed
    /// could be that item too. Until then the window rule stands for it. A claim the ledger
    /// cannot write is left for a later read: the window rule still holds.
    func claimConfirmed(in feed: [FeedTransfer], read: ClosedRange<Instant>, account: Account, time: BankTime) {
        guard let entries = try? ledger.accountWeeks(accountUid: account.uid).flatMap(\.legViews) else { return }
        let claimed = Set(entries.flatMap(\.feedItemUids))
        var free = feed.filter { $0.hasMoved && $0.time != nil && !claimed.contains($0.feedItemUid) }
        for entry in entries where entry.status == .done && entry.firstLeg.feedItemUid == nil {
            guard let sent = entry.firstSend(time), let confirmed = entry.confirmation(time),
                read.contains(sent.adding(.zero - time.margin)), read.contains(confirmed),
                let index = TransferCheck.confirmedTransfer(of: entry, among: free, time: time)
            else { continue }
            let item = free[index]
            guard TransferCheck.unconfirmed(entries, couldBe: item, time: time) == nil else { continue }
            free.remove(at: index)
            if (try? ledger.recordClaim(
                accountUid: entry.accountUid, weekEnd: entry.weekEnd, leg: entry.firstLeg.index,
                feedItemUid: item.feedItemUid))
                == true
            {
                logger.debug("\(entry.label), week ending \(entry.weekEnd): its transfer is \(item.described)")
            }
        }
    }

    /// Where the feed is searched for `entry`'s own transfer, on the bank's clock: from its
    /// first send, or with none recorded, its intent or the end of its week.
    func ownSearchStart(_ entry: AccountWeek) -> Instant {
        let time = self.time
        return entry.firstSend(time) ?? time.bank(weekEnd(of: entry))
    }

    /// The account's entries in the ledger, each leg of each week as a view of its own
    /// (`AccountWeek.view(of:)`): each transfer's claim on the feed's transfers.
    func entries(of account: Account) throws(AccountFailure) -> [AccountWeek] {
        try AccountFailure.ledgerRead { try ledger.accountWeeks(accountUid: account.uid).flatMap(\.legViews) }
    }

    /// `TransferCheck.decide`, logged.
    package func decide(
        _ week: TransferCheck.Search, entry: AccountWeek, feed: [FeedTransfer], ledger others: [AccountWeek]
    )
        -> TransferCheck
    {
        let check = TransferCheck.decide(week, feed: feed, ledger: others, time: time)
        logger.info(
            "\(entry.label): \(feed.count) transfer(s) into goals in the feed since \(week.since): \(check.summary)")
        return check
    }

    /// Whether `entry`'s goal is no longer among the account's goals (false when unsure).
    func goalIsGone(_ entry: AccountWeek, account: Account) async -> Bool {
        guard let goalUid = entry.firstLeg.goalUid, let goals = try? await bank.savingsGoals(accountUid: account.uid)
        else {
            return false
        }
        return !goals.contains { $0.savingsGoalUid == goalUid }
    }

    /// The end of `entry`'s week: where a feed search starts when the entry has no time
    /// of its own, so that the search is wider, never narrower, than the intent's.
    func weekEnd(of entry: AccountWeek) -> Instant {
        entry.endsAt ?? Week(endingOn: entry.weekEnd, in: timeZone).end
    }
}

extension TransferCheck.Search {
    /// The transfers of `feed` a search for this week looks at: from `since` on.
    func recent(_ feed: [FeedTransfer]) -> [FeedTransfer] { feed.filter { $0.time.map { $0 >= since } ?? true } }
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
