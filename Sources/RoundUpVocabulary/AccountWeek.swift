public import RoundUp

/// Where an (account, week) stands.
public enum WeekState: String, Sendable, Codable, CaseIterable {
    /// The transfer was decided and may have been sent; its outcome is not known yet.
    /// The next run looks for it in the account's feed, and sends it again with the same
    /// transfer uid and amount only when it is not there.
    case pending
    /// The money arrived: the bank confirmed the transfer, or the feed shows it.
    case done
    /// There was nothing to move.
    case nothing
    /// The job cannot tell what to do without a person (`roundup resolve`); runs leave it be.
    case held
    /// A person decided that this week's money is not to be moved.
    case abandoned
}

/// How a week's arrival was established.
public enum Confirmation: String, Sendable, Codable {
    /// The bank answered the transfer with success.
    case bank
    /// The account's feed shows the transfer (`feedItemUid`).
    case feed
}

/// What the bank had scheduled to leave the account before payday when a week was decided,
/// as the ledger keeps it (the report keeps each payment): the horizon, how many payments
/// fell due and their total, and the low point the week was measured against.
public struct ForecastSummary: Sendable, Equatable {
    /// The horizon's last day.
    public var through: LocalDate
    /// The payday it ran to, when one is configured.
    public var payday: LocalDate?
    public var payments: Int
    public var dueMinorUnits: Int64
    /// The balance less what fell due and what the run's earlier weeks moved, when the
    /// balance was read.
    public var lowPointMinorUnits: Int64?

    public init(
        through: LocalDate, payday: LocalDate?, payments: Int, dueMinorUnits: Int64, lowPointMinorUnits: Int64?
    ) {
        self.through = through
        self.payday = payday
        self.payments = payments
        self.dueMinorUnits = dueMinorUnits
        self.lowPointMinorUnits = lowPointMinorUnits
    }
}

/// One account's week as the ledger keeps it: what was decided for it (its standing, the
/// round-up, the reasons, the bounds it was counted in, the forecast it was measured
/// against) and the transfers it moves, its legs. Every week has one leg today, to one
/// goal; a week that moves into several goals has a leg for each, kept under its own index.
public struct AccountWeek: Sendable, Equatable {
    public var accountUid: String
    public var weekEnd: LocalDate
    /// Where the week as a whole stands. A week of one leg stands where its leg does.
    public var status: WeekState
    public var currency: String
    /// What the week moves in all, its legs' amounts together.
    public var minorUnits: Int64
    /// The account's name when the week was decided, for people reading the history.
    public var accountName: String?
    /// Why less than the week's round-up was moved (a minimum balance held it back).
    public var note: String?
    /// Why the week is held for a person, or why a person abandoned it.
    public var reason: String?
    /// What a person decided with `roundup resolve`, and when.
    public var resolution: String?
    /// The week's first instant and the first after it, as the week was counted: seven
    /// local days, or bounds that follow the week before it (`WeekWindow`). Nil only in a
    /// ledger not yet opened by a command that knows the configured zone.
    public var startsAt: Instant?
    public var endsAt: Instant?
    /// The zone the week was counted in.
    public var timeZone: String?
    /// For a week held because another ledger's transfer names a week that shares its days:
    /// that week's last day, and how much of this week's amount came from payments settled
    /// in that week's days (what `resolve --retry` may save twice).
    public var otherWeekEnd: LocalDate?
    public var sharedMinorUnits: Int64?
    /// What the bank had scheduled before payday when the week was decided, in sum.
    public var forecast: ForecastSummary?
    /// When the week was first decided (ISO 8601, UTC); set by the ledger.
    public var createdAt: String?
    /// When the week or one of its legs last changed (ISO 8601, UTC); set by the ledger.
    public var updatedAt: String?
    /// The week's transfers, by index from 0. Never empty: a week with nothing to move
    /// keeps one leg of no amount, with the goal it would have gone to.
    public var legs: [TransferLeg]

    /// A week of one leg (index 0) to `goalUid`, carrying the week's whole amount.
    public init(
        accountUid: String, weekEnd: LocalDate, status: WeekState, currency: String, minorUnits: Int64,
        goalUid: String? = nil, goalName: String? = nil, transferUid: String? = nil, lastError: String? = nil,
        accountName: String? = nil, note: String? = nil
    ) {
        self.accountUid = accountUid
        self.weekEnd = weekEnd
        self.status = status
        self.currency = currency
        self.minorUnits = minorUnits
        self.accountName = accountName
        self.note = note
        var leg = TransferLeg(index: 0, status: status, minorUnits: minorUnits)
        leg.goalUid = goalUid
        leg.goalName = goalName
        leg.transferUid = transferUid
        leg.lastError = lastError
        legs = [leg]
    }

    /// A week of `legs`, each to its goal, moving their amounts together.
    public init(
        accountUid: String, weekEnd: LocalDate, status: WeekState, currency: String, legs: [TransferLeg],
        accountName: String? = nil, note: String? = nil
    ) {
        self.init(
            accountUid: accountUid, weekEnd: weekEnd, status: status, currency: currency,
            minorUnits: legs.reduce(0) { $0 + $1.minorUnits }, accountName: accountName, note: note)
        self.legs = legs.isEmpty ? self.legs : legs
    }

    /// The first leg: the one every week has, whose transfer uid is made from the account,
    /// the goal and the week alone.
    public var firstLeg: TransferLeg {
        get { legs[0] }
        set { legs[0] = newValue }
    }

    /// Puts the week, and each of its legs, in `status`: a week being decided stands where
    /// its transfers do.
    public mutating func decide(_ status: WeekState) {
        self.status = status
        for index in legs.indices { legs[index].status = status }
    }

    /// Records `week`'s bounds and zone as the ones this week was counted with.
    public mutating func bound(to week: Week) {
        startsAt = week.start
        endsAt = week.end
        timeZone = week.timeZone.identifier
    }

    /// Every goal any of the week's transfers may have gone to.
    public var goalUids: Set<String> { legs.reduce(into: []) { $0.formUnion($1.goalUids) } }

    /// The feed items that confirmed the week's transfers.
    public var feedItemUids: [String] { legs.compactMap(\.feedItemUid) }

    /// Whether any of the week's transfers may have been sent.
    public var mayHaveBeenSent: Bool { legs.contains(where: \.mayHaveBeenSent) }

    /// The first send of any of the week's transfers, on the bank's clock.
    public var firstSentAt: Instant? { legs.compactMap(\.firstSentAt).min() }

    /// The latest send of any of the week's transfers, on the bank's clock and on this
    /// machine's.
    public var lastSentAt: Instant? { legs.compactMap(\.lastSentAt).max() }
    public var lastSentOn: Instant? { legs.compactMap(\.lastSentOn).max() }

    /// When the bank confirmed the last of the week's transfers, on its clock; nil unless it
    /// confirmed each of them.
    public var confirmedAt: Instant? {
        let times = legs.compactMap(\.confirmedAt)
        return times.count == legs.count ? times.max() : nil
    }

    /// The last thing that went wrong with one of the week's pending transfers.
    public var lastError: String? { legs.lazy.compactMap(\.lastError).first }

    /// Whether a goal grew by a transfer's amount after a send the feed did not show.
    public var goalGrew: Bool { legs.contains(where: \.goalGrew) }

    /// Where the ledger keeps this week.
    public var key: AccountWeekKey { AccountWeekKey(accountUid: accountUid, weekEnd: weekEnd) }

    /// Whether the week moves into more than one goal.
    public var hasSeveralLegs: Bool { legs.count > 1 }

    /// The week as one of its transfers sees it: the week's bounds, times and reasons, with
    /// `leg` alone, its amount and its state. Every rule of one transfer (the feed search,
    /// the claims of other weeks, a send and its record) works on such a view, so a week of
    /// several legs is held to each rule leg by leg.
    public func view(of leg: TransferLeg) -> AccountWeek {
        var view = self
        view.legs = [leg]
        view.minorUnits = leg.minorUnits
        view.status = leg.status
        return view
    }

    /// The week as some of its transfers see it: `legs` alone, and what they move together,
    /// in the week's state.
    public func view(of legs: [TransferLeg]) -> AccountWeek {
        var view = self
        view.legs = legs
        view.minorUnits = legs.reduce(0) { $0 + $1.minorUnits }
        return view
    }

    /// Each of the week's transfers as a view of its own (`view(of:)`).
    public var legViews: [AccountWeek] { legs.map(view(of:)) }

    /// The legs not yet settled (pending or held): what a later run, or a person, finishes.
    public var openLegs: [TransferLeg] { legs.filter { $0.status == .pending || $0.status == .held } }

    /// The legs whose money arrived.
    public var doneLegs: [TransferLeg] { legs.filter { $0.status == .done } }

    /// Some of the week's transfers arrived and some are still open: partly transferred.
    public var isPartlyTransferred: Bool { !doneLegs.isEmpty && !openLegs.isEmpty }

    /// The legs that move money, each in words, after the week's amount: `1.00 into
    /// "Emergency fund", 1.29 into "Round-ups"`.
    public var legWords: String { words(of: legs.filter { $0.minorUnits > 0 }) }

    /// `legs`, each in words: `1.00 into "Emergency fund"`.
    public func words(of legs: [TransferLeg]) -> String {
        legs.map { leg in
            let amount =
                Currency(code: currency).map { Money(minorUnits: leg.minorUnits, currency: $0).formattedAmount }
                ?? Money.describe(minorUnits: leg.minorUnits, code: currency)
            return "\(amount) into \"\(printable(leg.goalName ?? leg.goalUid ?? "the goal"))\""
        }.joined(separator: ", ")
    }
}

/// One transfer of an account's week: to one goal, of one amount, under one transfer uid,
/// with what became of it.
public struct TransferLeg: Sendable, Equatable {
    /// Its place among the week's legs, from 0; the ledger keeps it under (account, week,
    /// index), so two legs to one goal never collide.
    public var index: Int
    /// Where this transfer stands.
    public var status: WeekState
    public var goalUid: String?
    public var goalName: String?
    public var minorUnits: Int64
    public var transferUid: String?
    /// The reference the transfer carries (`Round-up w/e 22 Nov 2026`), sent with every
    /// attempt; nil for a week recorded before transfers carried one, which is then sent
    /// without, as its first attempt was.
    public var reference: String?
    /// Goals an earlier attempt of this transfer was sent to, before a person redirected
    /// it: the feed is searched for those too.
    public var earlierGoalUids: [String] = []
    /// The last thing that went wrong with the pending transfer.
    public var lastError: String?
    /// How a done transfer's arrival was established.
    public var confirmation: Confirmation?
    /// The feed item that shows this transfer; one item confirms one transfer.
    public var feedItemUid: String?
    /// When the transfer was first and last sent, on the bank's clock (as its answers'
    /// `Date` headers show it), and how many times: the feed is searched for it from its
    /// first send. Nil and 0 for a transfer never sent, or sent by a version that did not
    /// record its sends.
    public var firstSentAt: Instant?
    public var lastSentAt: Instant?
    public var sends = 0
    /// When the last send went out on this machine's clock: a later run waits for the feed
    /// by both clocks.
    public var lastSentOn: Instant?
    /// Whether the goal's total grew by the amount after a send whose answer was lost while
    /// the feed did not show it: the money moved, and no run sends it again.
    public var goalGrew = false
    /// When the bank confirmed the transfer, on its own clock.
    public var confirmedAt: Instant?

    public init(index: Int, status: WeekState, minorUnits: Int64) {
        self.index = index
        self.status = status
        self.minorUnits = minorUnits
    }

    /// Whether the transfer may have been sent: only then can a transfer in the feed be its
    /// own. (A week an earlier version left pending, held or abandoned counts as sent.)
    public var mayHaveBeenSent: Bool { sends > 0 }

    /// Every goal this transfer may have gone to.
    public var goalUids: Set<String> { Set(earlierGoalUids + (goalUid.map { [$0] } ?? [])) }
}

/// Which account-week: an account and the last day of its week, under which the ledger
/// keeps one week and its legs.
public struct AccountWeekKey: Sendable, Hashable {
    public var accountUid: String
    public var weekEnd: LocalDate

    public init(accountUid: String, weekEnd: LocalDate) {
        self.accountUid = accountUid
        self.weekEnd = weekEnd
    }
}
