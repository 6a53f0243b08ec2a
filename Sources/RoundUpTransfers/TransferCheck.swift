public import RoundUp
public import RoundUpVocabulary
public import RoundUpWeek
public import StarlingAPI

/// A transfer into a savings goal as the account's feed shows it: OUT, an internal
/// transfer, to a goal, and not one the bank says did not happen.
public struct FeedTransfer: Sendable, Equatable {
    public var feedItemUid: String
    public var goalUid: String
    public var currency: String
    public var minorUnits: Int64
    /// The transaction time; nil when the bank sent none that reads as a time.
    public var time: Instant?
    /// The week the item's reference names, when it carries one this job writes as it
    /// wrote it (in any case and spacing): the only reading that tells this ledger's own
    /// transfers apart (`mayBelong`).
    public var referencedWeek: LocalDate?
    /// The week the reference mentions, read wherever the bank may have put it
    /// (`TransferReference.weekMentioned`): only ever to hold a week over another ledger's
    /// transfer, never to rule a transfer out of a week.
    public var mentionedWeek: MentionedWeek?
    /// The feed item's status. Only `SETTLED` and `PENDING` are money that moved
    /// (`hasMoved`); any other this type keeps (`UPCOMING`, `RETRYING`, …) may still move it.
    public var status: String
    /// The goal's name, as the feed item's counterparty.
    public var goalName: String?

    /// The statuses of money that moved.
    static let movedStatuses: Set<String> = ["SETTLED", "PENDING"]
    /// The statuses of a transfer that did not happen and never will: it is no transfer.
    static let goneStatuses: Set<String> = ["DECLINED", "REVERSED", "UPCOMING_CANCELLED"]

    public init(
        feedItemUid: String, goalUid: String, currency: String, minorUnits: Int64, time: Instant?,
        referencedWeek: LocalDate? = nil, mentionedWeek: MentionedWeek? = nil, status: String = "SETTLED",
        goalName: String? = nil
    ) {
        self.mentionedWeek = mentionedWeek ?? referencedWeek.map { .date($0) }
        self.feedItemUid = feedItemUid
        self.goalUid = goalUid
        self.currency = currency
        self.minorUnits = minorUnits
        self.time = time
        self.referencedWeek = referencedWeek
        self.status = status
        self.goalName = goalName
    }

    /// The transfer `item` shows, or nil when it is not a transfer into a goal, or is one
    /// the bank says did not happen (declined, reversed, cancelled before it moved).
    public init?(_ item: FeedItem) {
        guard item.direction == "OUT", item.source == "INTERNAL_TRANSFER", let goalUid = item.counterPartyUid,
            !FeedTransfer.goneStatuses.contains(item.status)
        else { return nil }
        self.init(
            feedItemUid: item.feedItemUid, goalUid: goalUid, currency: item.amount.currency,
            minorUnits: item.amount.minorUnits, time: item.transactionTime.flatMap(Instant.init(iso8601:)),
            referencedWeek: item.reference.flatMap(TransferReference.weekEnd(namedBy:)),
            mentionedWeek: item.reference.flatMap(TransferReference.weekMentioned(in:)), status: item.status,
            goalName: item.counterPartyName)
    }

    /// Whether the money moved: settled, or pending (taken from the balance).
    public var hasMoved: Bool { FeedTransfer.movedStatuses.contains(status) }

    /// Whether this can be the transfer of the week ending `weekEnd`: not when its
    /// reference names another week. A reference only ever rules a transfer out of a week,
    /// never into one: the goal, the amount and the time must match all the same.
    func mayBelong(to weekEnd: LocalDate) -> Bool {
        referencedWeek.map { $0 == weekEnd } ?? true
    }

    package func amount(in currency: Currency) -> Money? {
        self.currency == currency.code ? Money(minorUnits: minorUnits, currency: currency) : nil
    }

    var amountText: String {
        Money.describe(minorUnits: minorUnits, code: currency)
    }
}

/// What the account's feed says of a week's transfer whose outcome is not known, decided
/// from the feed and the ledger alone. It never guesses: when the feed could be read more
/// than one way, a person decides.
public enum TransferCheck: Sendable, Equatable {
    /// Exactly one transfer in the feed, claimed by no other week, is this week's, and its
    /// money moved (settled or pending).
    case arrived(FeedTransfer)
    /// No sign of it: sending it (with the same transfer uid) cannot move money twice.
    case absent
    /// The feed could be read more than one way, or shows this week's transfer in a state
    /// that may still move money; the week is held for a person.
    case unclear(String)

    /// A search of the feed for one week's transfer: the week, its amount and goals, and
    /// from when a transfer would be its.
    public struct Search: Sendable {
        public var weekEnd: LocalDate
        public var amount: Money
        /// The goal the transfer goes to, and any an earlier attempt went to.
        public var goalUids: Set<String>
        /// From when a transfer would be this week's: the intent's time, or with no
        /// intent the end of the week (less the clock-skew margin, already taken off).
        public var since: Instant
        /// Whether a transfer of this week's amount into another of the account's goals
        /// holds the week: so for a week this ledger has never seen, which another config
        /// or state directory, saving into another goal, may have moved.
        public var watchesOtherGoals: Bool
        /// Until when a transfer would be this week's, for a week already sent: its last send,
        /// plus as long as a request may take and the margin. The bank makes a transfer while
        /// it answers the request; one made later is another's. Nil when not known.
        public var until: Instant?
        /// Whether this week's transfer may have been sent: before that, none is its own.
        public var sent = true
        /// Which of the week's legs is sought: the ledger's other legs, of this week or
        /// another, claim their own transfers as other weeks do.
        public var leg = 0
        /// For a leg of a week into several goals, the week's whole amount: the first time
        /// the week is seen, a transfer of it, or transfers adding up to it, hold the week.
        public var weekAmount: Money?

        /// Whether `entry`, one leg of a week (`AccountWeek.view(of:)`), is the one sought.
        func isSought(_ entry: AccountWeek) -> Bool { entry.weekEnd == weekEnd && entry.firstLeg.index == leg }

        /// Whether `transfer` can be this week's, its amount aside: into one of its goals,
        /// since the search's start (and until its end), and named for no other week.
        func mayBeItsTransfer(_ transfer: FeedTransfer) -> Bool {
            guard goalUids.contains(transfer.goalUid), transfer.mayBelong(to: weekEnd) else { return false }
            guard let time = transfer.time else { return true }
            return time >= since && until.map { time <= $0 } ?? true
        }

        /// Whether `transfer` looks like this week's but was made after the last send could
        /// have made it.
        func isLate(_ transfer: FeedTransfer) -> Bool {
            guard let until, let time = transfer.time else { return false }
            return time > until && goalUids.contains(transfer.goalUid) && transfer.mayBelong(to: weekEnd)
                && transfer.amount(in: amount.currency) == amount
        }

        public init(
            weekEnd: LocalDate, amount: Money, goalUids: Set<String>, since: Instant, watchesOtherGoals: Bool = false,
            until: Instant? = nil
        ) {
            self.weekEnd = weekEnd
            self.amount = amount
            self.goalUids = goalUids
            self.since = since
            self.watchesOtherGoals = watchesOtherGoals
            self.until = until
        }
    }

    /// Decides from the `feed`'s transfers and the account's other ledger entries
    /// (`ledger`, a view of each leg; the sought leg's own is left out). `time` puts the entries' moments on
    /// the bank's clock, with how far they may be off.
    public static func decide(_ week: Search, feed: [FeedTransfer], ledger: [AccountWeek], time: BankTime)
        -> TransferCheck
    {
        let (others, unclaimed) = unclaimedTransfers(for: week, feed: feed, ledger: ledger, time: time)
        let candidates = unclaimed.filter(week.mayBeItsTransfer)
        let matches = candidates.filter { $0.amount(in: week.amount.currency) == week.amount }
        if matches.count > 1 {
            let times = matches.compactMap(\.time).map(\.iso8601).joined(separator: ", ")
            return .unclear(
                "the feed shows \(matches.count) transfers of \(week.amount) into the goal since "
                    + "\(week.since.iso8601) (\(times)), and none is recorded for another week")
        }
        if let match = matches.first {
            guard match.hasMoved else {
                return .unclear(
                    "the feed shows a transfer of \(week.amount) into the goal on \(match.time?.iso8601 ?? "an unknown date") "
                        + "whose status is \(TransferCheck.quoted(match.status)): it may still move the money, so "
                        + "nothing is sent; wait until it settles or is cancelled in the app, then `roundup resolve "
                        + "--check` records it")
            }
            if let other = unconfirmed(others, couldBe: match, time: time) {
                return .unclear(
                    "the feed's transfer of \(week.amount) on \(match.time?.iso8601 ?? "an unknown date") may be "
                        + (week.sent ? "this week's or " : "")
                        + "the \(WeekFate(other).word) one of the week ending \(other.weekEnd)"
                        + (week.sent ? "" : ", and is not this week's, which this ledger has not sent yet"))
            }
            return .arrived(match)
        }
        // One of its amount made after the week's last send could have made it: not this
        // week's, and not to be sent over either.
        if let late = late(unclaimed, for: week, others: others, time: time) { return .unclear(lateReason(late, week)) }
        let differing = candidates.filter { unconfirmed(others, couldBe: $0, time: time) == nil }
        if let other = differing.first {
            return .unclear(
                "the feed shows a transfer of \(other.amountText) into the goal on "
                    + "\(other.time?.iso8601 ?? "an unknown date"), since \(week.since.iso8601), and this week's "
                    + "transfer is \(week.amount): it may be this week's, changed, or one made by hand")
        }
        guard week.watchesOtherGoals else { return .absent }
        // Transfers since the week ended that another config or state directory may have
        // made for it: named for no other week, and no week of this ledger's may have made them.
        let loose = unclaimed.filter { transfer in
            (transfer.time.map { $0 >= week.since } ?? true) && transfer.mayBelong(to: week.weekEnd)
                && transfer.currency == week.amount.currency.code
                && unconfirmed(others, couldBe: transfer, time: time) == nil
        }
        let whole = week.weekAmount ?? week.amount
        if let elsewhere = loose.first(where: { transfer in
            !week.goalUids.contains(transfer.goalUid)
                && [week.amount, whole].contains(transfer.amount(in: week.amount.currency))
        }) {
            return .unclear(
                "the feed shows a transfer of \(elsewhere.amountText) into another goal (\(TransferCheck.quoted(elsewhere.goalUid))) on "
                    + "\(elsewhere.time?.iso8601 ?? "an unknown date"), since the week ended: another config or state "
                    + "directory saving into that goal may have moved this week's money")
        }
        if let parts = parts(of: whole.minorUnits, among: loose) {
            let each = parts.map { "\($0.amountText) into \(TransferCheck.quoted($0.goalName ?? $0.goalUid))" }
            return .unclear(
                "the feed shows transfers of \(each.joined(separator: ", ")) since the week ended, which add up to this "
                    + "week's \(whole): another config or state directory dividing it among goals may have moved this "
                    + "week's money")
        }
        return .absent
    }

    /// Two or more of `transfers` whose amounts add up to `total` minor units, or nil: a week
    /// another ledger divided among goals, into as many as it has. The first 32 transfers are
    /// looked at (a week's are made together, soon after it ends), largest first, and the
    /// search gives up after a million steps, which no real feed comes near.
    static func parts(of total: Int64, among transfers: [FeedTransfer]) -> [FeedTransfer]? {
        let looked = Array(transfers.filter { $0.minorUnits > 0 && $0.minorUnits < total }.prefix(32))
            .sorted { $0.minorUnits > $1.minorUnits }
        // What the transfers from each place on add up to: a branch that cannot reach the total stops.
        var after = [Int64](repeating: 0, count: looked.count + 1)
        for index in looked.indices.reversed() { after[index] = after[index + 1] &+ looked[index].minorUnits }
        var chosen: [Int] = []
        var steps = 0
        func search(from start: Int, left: Int64) -> Bool {
            if left == 0 { return chosen.count >= 2 }
            steps += 1
            guard steps < 1_000_000, after[start] >= left else { return false }
            for index in start..<looked.count where looked[index].minorUnits <= left {
                chosen.append(index)
                if search(from: index + 1, left: left - looked[index].minorUnits) { return true }
                chosen.removeLast()
            }
            return false
        }
        return search(from: 0, left: total) ? chosen.map { looked[$0] } : nil
    }

    /// Other ledgers' transfers that hold a week this ledger has not moved: transfers into
    /// any of the account's goals in the `feed` (read from the week's first instant, any
    /// amount, any status but those that never move money), whose reference names a week
    /// ending from the day before the week's first day (`firstDay`; a week counted in
    /// another time zone ends up to a day later than its date says here) to 13 days after
    /// its last (`weekEnd`), and which are not this ledger's: no entry of the `ledger` is that
    /// week with that goal and amount. Such a week may have counted this window's payments,
    /// in a ledger this one cannot see. A transfer without a reference is left to `decide`.
    /// The reference is read wherever the bank may have put the week (`mentionedWeek`); one
    /// cut before its year counts when its day and month fall on exactly one day of that
    /// range. Each comes with the week it names.
    public static func otherLedgersTransfers(
        firstDay: LocalDate, weekEnd: LocalDate, feed: [FeedTransfer], ledger: [AccountWeek]
    ) -> [(transfer: FeedTransfer, named: LocalDate)] {
        let earliest = firstDay.adding(days: -1)
        // As far as a week may reach back over days in no week (`WeekWindow.gapDays`).
        let latest = weekEnd.adding(days: WeekWindow.gapDays)
        return feed.compactMap { transfer in
            guard let named = transfer.mentionedWeek?.date(within: earliest...latest) else { return nil }
            let ours = ledger.contains { entry in
                entry.weekEnd == named && entry.goalUids.contains(transfer.goalUid)
                    && entry.currency == transfer.currency && entry.minorUnits == transfer.minorUnits
            }
            return ours ? nil : (transfer, named)
        }
    }

    /// What the feed says before `roundup resolve` sends a week's transfer again (`--retry`,
    /// `--redirect`): any transfer into a goal the week ever used, of its amount, since its
    /// first intent, that no other week accounts for.
    public enum Resend: Sendable, Equatable {
        /// Settled or pending: the money moved. Recorded as done; nothing is sent.
        case moved(FeedTransfer)
        /// Upcoming, retrying, in an account check, or in a status this version does not
        /// know: it may still move the money. Nothing is sent.
        case mayMove(FeedTransfer)
        /// None, or only declined, reversed or cancelled ones: it did not move, and may be sent.
        case free
    }

    /// Decides `Resend` for `week` from the `feed` and the account's `ledger` entries. A
    /// transfer that may still move wins over one that moved: a person waits rather than
    /// the money moving twice.
    public static func beforeResending(_ week: Search, feed: [FeedTransfer], ledger: [AccountWeek], time: BankTime)
        -> Resend
    {
        let theirs = unclaimedTransfers(for: week, feed: feed, ledger: ledger, time: time).transfers.filter {
            transfer in
            week.mayBeItsTransfer(transfer) && transfer.amount(in: week.amount.currency) == week.amount
        }
        if let underWay = theirs.first(where: { !$0.hasMoved }) { return .mayMove(underWay) }
        if let moved = theirs.first(where: { $0.referencedWeek == week.weekEnd }) ?? theirs.first {
            return .moved(moved)
        }
        return .free
    }

    /// Why a week is held over a transfer in the feed that looks like its own but that this
    /// ledger never sent (`entry` was not sent yet): another week's, or another ledger's.
    static func lookAlike(_ found: FeedTransfer, of entry: AccountWeek) -> String {
        let goal = entry.firstLeg.goalName.map { "\"\(printable($0))\"" } ?? quoted(found.goalUid)
        return "the feed shows a transfer of \(found.amountText) into \(goal) (\(found.described), "
            + "\(quoted(found.status))) that this ledger did not send: it may be another week's, or this week's made "
            + "by another state directory or config saving for this account; nothing was sent. If it is this "
            + "week's, `roundup resolve --account \(entry.accountUid) --end-date \(entry.weekEnd) --check --accept "
            + "\(found.feedItemUid)` records it; `--retry` sends this week's transfer anyway; `--abandon REASON` records "
            + "this week's payments without moving them"
    }

    /// A transfer of `week`'s amount among `transfers` made after its last send could have
    /// made it, that no unconfirmed week of `others` could be.
    static func late(_ transfers: [FeedTransfer], for week: Search, others: [AccountWeek], time: BankTime)
        -> FeedTransfer?
    {
        transfers.first { week.isLate($0) && unconfirmed(others, couldBe: $0, time: time) == nil }
    }

    /// The week is held over `late`: why, naming the item.
    static func lateReason(_ late: FeedTransfer, _ week: Search) -> String {
        "the feed shows a transfer of \(week.amount) into the goal on \(late.time?.iso8601 ?? "an unknown date") "
            + "(\(late.described)), after this week's last send could have made it (until "
            + "\(week.until?.iso8601 ?? "")): it may be another week's or another state directory's, and this "
            + "week's may not have moved; nothing was sent. `roundup resolve --check --accept "
            + "\(late.feedItemUid)` records it as this week's; `--retry` sends this week's"
    }

    /// A transfer of `week`'s amount in the `feed`, claimed by no other week of the
    /// `ledger`, made after its last send could have made it.
    static func lateTransfer(_ week: Search, feed: [FeedTransfer], ledger: [AccountWeek], time: BankTime)
        -> FeedTransfer?
    {
        let (others, unclaimed) = unclaimedTransfers(for: week, feed: feed, ledger: ledger, time: time)
        return late(unclaimed, for: week, others: others, time: time)
    }

    /// The week of the `ledger` (other than `week`) that accounts for `item`: the one that
    /// recorded it, or one the bank confirmed whose window it falls in; nil when none does.
    static func claimant(
        of item: FeedTransfer, for week: Search, feed: [FeedTransfer], ledger: [AccountWeek], time: BankTime
    ) -> AccountWeek? {
        let others = ledger.filter { !week.isSought($0) }
        if let recorded = others.first(where: { $0.feedItemUids.contains(item.feedItemUid) }) { return recorded }
        // A week sent and not confirmed may have made it.
        if let unconfirmed = unconfirmed(others, couldBe: item, time: time) { return unconfirmed }
        let unrecorded = feed.filter { transfer in !others.contains { $0.feedItemUids.contains(transfer.feedItemUid) } }
        return windowClaims(unrecorded, others: others, time: time).claims[item.feedItemUid]
    }

    /// A word from the bank (a status, a uid), as a reason shows it: short, and without
    /// what could drive a terminal.
    public static func quoted(_ word: String) -> String {
        let kept = printable(
            String(String.UnicodeScalarView(word.unicodeScalars.prefix(40))).trimmingCharacters(
                in: .whitespacesAndNewlines))
        return kept.isEmpty ? "(none)" : kept
    }

    /// The account's entries other than `week`'s own, and the `feed`'s transfers none of them
    /// accounts for. Other weeks account for their own transfers first, from the whole feed:
    /// a week's own transfer, excluded from this week by its reference, must not leave that
    /// week to take another transfer (this week's) in its place.
    private static func unclaimedTransfers(
        for week: Search, feed: [FeedTransfer], ledger: [AccountWeek], time: BankTime
    )
        -> (others: [AccountWeek], transfers: [FeedTransfer])
    {
        let others = ledger.filter { !week.isSought($0) }
        let claimed = Set(others.flatMap(\.feedItemUids))
        return (
            others, withoutConfirmed(feed.filter { !claimed.contains($0.feedItemUid) }, others: others, time: time)
        )
    }

    /// `candidates` less those other weeks the bank confirmed (with no feed item recorded
    /// yet) account for: each such week accounts for one transfer at most, of its goal and
    /// amount, made between its first send and its confirmation on the bank's clock (less
    /// and plus the margin): one whose reference names it if there is one, else the closest
    /// to its confirmation (`confirmedTransfer`).
    private static func withoutConfirmed(_ candidates: [FeedTransfer], others: [AccountWeek], time: BankTime)
        -> [FeedTransfer]
    {
        windowClaims(candidates, others: others, time: time).remaining
    }

    /// The window rule over `candidates`: each week of `others` the bank confirmed with no
    /// feed item recorded takes at most one (`confirmedTransfer`), in the ledger's order.
    /// What is left, and which week took each item, by its uid.
    private static func windowClaims(_ candidates: [FeedTransfer], others: [AccountWeek], time: BankTime)
        -> (remaining: [FeedTransfer], claims: [String: AccountWeek])
    {
        var remaining = candidates
        var claims: [String: AccountWeek] = [:]
        for other in others where other.status == .done && other.legs.contains(where: { $0.feedItemUid == nil }) {
            guard let index = confirmedTransfer(of: other, among: remaining, time: time) else { continue }
            claims[remaining.remove(at: index).feedItemUid] = other
        }
        return (remaining, claims)
    }

    /// Which of `transfers` a week the bank confirmed without naming a feed item accounts
    /// for: of its goal and amount, named for no other week, made between its first send and
    /// its confirmation on the bank's clock (less and plus the margin); one whose reference
    /// names it if there is one, else the closest to its confirmation. Nil when none is, or
    /// the week's times are not known.
    static func confirmedTransfer(of other: AccountWeek, among transfers: [FeedTransfer], time: BankTime) -> Int? {
        guard let from = other.firstSend(time)?.adding(.zero - time.margin),
            let to = other.confirmation(time)
        else { return nil }
        let latest = to.adding(time.margin)
        let theirs = transfers.indices.filter { index in
            let transfer = transfers[index]
            guard let made = transfer.time, transfer.mayBelong(to: other.weekEnd),
                other.goalUids.contains(transfer.goalUid),
                other.currency == transfer.currency, other.minorUnits == transfer.minorUnits
            else { return false }
            return from <= made && made <= latest
        }
        let distance = { (index: Int) in abs(transfers[index].time!.millisecondsSince1970 - to.millisecondsSince1970) }
        let named = theirs.filter { transfers[$0].referencedWeek == other.weekEnd }
        return (named.isEmpty ? theirs : named).min(by: { distance($0) < distance($1) })
    }

    /// Another week whose transfer may have been made but is not confirmed (or was given
    /// up by a person), which `transfer` could be.
    package static func unconfirmed(_ others: [AccountWeek], couldBe transfer: FeedTransfer, time: BankTime)
        -> AccountWeek?
    {
        others.first { other in
            // An abandoned week's transfer may have arrived after all; a week never sent has none.
            guard other.status == .pending || other.status == .held || other.status == .abandoned,
                other.mayHaveBeenSent,
                transfer.mayBelong(to: other.weekEnd), other.goalUids.contains(transfer.goalUid),
                other.currency == transfer.currency, other.minorUnits == transfer.minorUnits
            else { return false }
            guard let made = transfer.time, let from = other.firstSend(time) else {
                return true
            }
            return from.adding(.zero - time.margin) <= made
        }
    }
}
