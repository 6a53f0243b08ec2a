public import Foundation
public import RoundUp
public import RoundUpVocabulary

/// What a run did with one week, written as `roundup-<end-date>.json` (this structure) and
/// `.md`; a catch-up run writes one per week. Documented in `schema/report-v1.schema.json`,
/// and `schema/report-v2.schema.json` for a week that moved into several goals:
/// `schemaVersion` changes whenever a field changes meaning or goes away, and every new
/// field goes into the schema.
public struct WeekReport: Sendable {
    /// 2 when an account's week moves into several goals (its `legs`, and the state
    /// `partly transferred`), else 1: a report of weeks into one goal each reads as before.
    public var schemaVersion: Int { accounts.contains { !$0.legs.isEmpty } ? 2 : 1 }
    public var generator: String
    public var generatedAt: Instant
    public var dryRun: Bool
    /// The week the run covered: its seven local days and their bounds.
    public var week: Week
    public var accounts: [AccountReport]
    /// Set when the run stopped before any account was processed.
    public var error: String?
    public var exitCode: ExitStatus
    /// Requests that failed in a way that may pass and were sent again (absent in reports
    /// of runs that made none).
    public var retries: Int?
    /// Requests sent to the bank for this week, retries included.
    public var requests: Int?
    /// `requests` for each account the week covered, to one decimal place: what a week of
    /// one account costs of the token's daily allowance. Absent when no account was seen.
    public var requestsPerAccountWeek: Decimal?
    /// How far the bank's clock was ahead of this machine's (negative: behind), in whole
    /// seconds, when that was 2 minutes or more either way.
    public var bankClockOffsetSeconds: Int64?

    /// Records `requests` for this week, and what they come to per account.
    package mutating func record(requests: Int) {
        self.requests = requests
        guard !accounts.isEmpty else { return }
        var exact = Decimal(requests) / Decimal(accounts.count)
        var rounded = Decimal()
        NSDecimalRound(&rounded, &exact, 1, .plain)
        requestsPerAccountWeek = rounded
    }

    /// From how many seconds apart the clocks are too far for a run to send anything.
    public static let clocksTooFarSeconds: UInt64 = 3600

    /// How far the bank's clock is from this machine's, `offset` seconds ahead (negative:
    /// behind), in words: "15 min 0 s behind this machine's".
    public static func clockSkew(_ offset: Int64) -> String {
        let seconds = offset.magnitude
        let amount =
            seconds >= 3600
            ? "\(seconds / 3600) h \(seconds % 3600 / 60) min"
            : seconds >= 60 ? "\(seconds / 60) min \(seconds % 60) s" : "\(seconds) s"
        return "\(amount) \(offset > 0 ? "ahead of" : "behind") this machine's"
    }

    package init(
        generator: String, generatedAt: Instant, dryRun: Bool, week: Week, accounts: [AccountReport],
        error: String? = nil, exitCode: ExitStatus, retries: Int? = nil, requests: Int? = nil,
        requestsPerAccountWeek: Decimal? = nil
    ) {
        self.generator = generator
        self.generatedAt = generatedAt
        self.dryRun = dryRun
        self.week = week
        self.accounts = accounts
        self.error = error
        self.exitCode = exitCode
        self.retries = retries
        self.requests = requests
        self.requestsPerAccountWeek = requestsPerAccountWeek
    }
}

/// One account's part of the report.
public struct AccountReport: Sendable {
    public var accountUid: String
    public var name: String?
    public var currency: String
    /// The bank's account type (`PRIMARY`, `ADDITIONAL`, `LOAN`…), when it says.
    public var accountType: String?
    /// Whether the bank's own round-up is on (`active`) or not (`inactive`), once read.
    public var nativeRoundUp: String?
    /// How the week ended, written as the report's word for it.
    public var status: WeekFate
    /// What a real run would do, what happened earlier, or why it failed.
    public var detail: String?
    public var transactions: [CountedTransaction] = []
    /// Payments that would have counted, left out because another week counted them; nil
    /// when there are none.
    public var countedEarlier: [CountedTransaction]?
    /// Left-out feed items, counted by reason.
    public var leftOut: [String: Int] = [:]
    /// The left-out feed items themselves, each with its reason (those another week
    /// counted are in `countedEarlier`); nil when there are none.
    public var leftOutTransactions: [LeftOutReport]?
    /// Sum of the round-ups.
    public var roundUpSum: Money?
    public var multiplier: Int?
    /// The step each payment was rounded up to, in major units, when it is not 1.
    public var roundTo: Int?
    /// The weekly cap, when it cut the total.
    public var capApplied: Money?
    /// The minimum balance configured for this currency, when there is one.
    public var minimumBalance: Money?
    /// The account's effective balance before the transfer, read when a minimum applies.
    public var balance: Money?
    /// The part of the round-up the minimum balance held back.
    public var heldBack: Money?
    /// What was (or would be) moved.
    public var total: Money?
    /// `total` in minor units, as the report also writes it.
    public var totalMinorUnits: Int64? { total?.minorUnits }
    public var goal: GoalReport?
    public var transferUid: String?
    /// For a week into several goals (`saveInto`), each of its transfers, in order; empty
    /// for a week into one goal, which `goal` and `transferUid` describe.
    public var legs: [LegReport] = []

    /// The goal's name, or for a week into several goals each goal's, separated by commas.
    package var goalNames: String? {
        legs.isEmpty ? goal?.name : legs.map(\.goal.name).joined(separator: ", ")
    }
    /// The account's bounds for the week, when they are not the run's seven local days.
    public var window: WindowReport?
    /// What the bank has scheduled before payday, when the week was measured against it.
    public var forecast: ForecastReport?
    public var exitCode: ExitStatus = .ok

    package init(
        accountUid: String, name: String? = nil, currency: String, accountType: String? = nil,
        nativeRoundUp: String? = nil, status: WeekFate, detail: String? = nil,
        transactions: [CountedTransaction] = [], countedEarlier: [CountedTransaction]? = nil,
        leftOut: [String: Int] = [:], leftOutTransactions: [LeftOutReport]? = nil, roundUpSum: Money? = nil,
        multiplier: Int? = nil, roundTo: Int? = nil, capApplied: Money? = nil, minimumBalance: Money? = nil,
        balance: Money? = nil, heldBack: Money? = nil, total: Money? = nil,
        goal: GoalReport? = nil, transferUid: String? = nil, window: WindowReport? = nil,
        forecast: ForecastReport? = nil, exitCode: ExitStatus = .ok
    ) {
        self.forecast = forecast
        self.accountUid = accountUid
        self.name = name
        self.currency = currency
        self.accountType = accountType
        self.nativeRoundUp = nativeRoundUp
        self.status = status
        self.detail = detail
        self.transactions = transactions
        self.countedEarlier = countedEarlier
        self.leftOut = leftOut
        self.leftOutTransactions = leftOutTransactions
        self.roundUpSum = roundUpSum
        self.multiplier = multiplier
        self.roundTo = roundTo
        self.capApplied = capApplied
        self.minimumBalance = minimumBalance
        self.balance = balance
        self.heldBack = heldBack
        self.total = total
        self.goal = goal
        self.transferUid = transferUid
        self.window = window
        self.exitCode = exitCode
    }
}

/// One of the transfers of a week into several goals: its goal (what it holds and its target,
/// as for a week into one), its amount, its transfer uid, and where it stands.
public struct LegReport: Sendable {
    public var goal: GoalReport
    public var amount: Money
    public var transferUid: String?
    /// `transferred`, `unconfirmed`, `held`, `abandoned` or `nothing to move`; nil in a dry run.
    public var status: String?

    package init(goal: GoalReport, amount: Money, transferUid: String?, status: String?) {
        self.goal = goal
        self.amount = amount
        self.transferUid = transferUid
        self.status = status
    }
}

/// What the bank has scheduled to leave the account before payday, as the week's transfer
/// was measured against it.
public struct ForecastReport: Sendable, Equatable {
    /// The run's date, in the job's time zone.
    public var today: LocalDate
    /// The last day counted.
    public var through: LocalDate
    /// The payday the horizon runs to, when one is configured.
    public var payday: LocalDate?
    public var due: [DuePayment]
    public var dueTotal: Money
    /// The lowest the balance goes before payday, before this week's transfer, when the
    /// balance was read.
    public var lowPoint: Money?
    /// What could not be placed: any of it held the week's money back.
    public var unplaced: [String]
    /// What the token may not see: not counted.
    public var unseen: [String]

    package init(_ forecast: Forecast, currency: Currency, lowPoint: Money?) {
        today = forecast.horizon.today
        through = forecast.horizon.end
        payday = forecast.horizon.payday
        due = forecast.due
        dueTotal = Money(minorUnits: forecast.dueMinorUnits, currency: currency)
        self.lowPoint = lowPoint
        unplaced = forecast.unplaced
        unseen = forecast.unseen
    }

    /// "before payday on Fri 4 Dec", "before payday on Fri 25 Dec (through Tue 29 Dec)" when
    /// payday falls on a weekend or bank holiday, or "through Thu 3 Dec" without a payday.
    public var horizonWords: String {
        payday.map {
            "before payday on \($0.weekdayDayAndMonth)"
                + ($0 == through ? "" : " (through \(through.weekdayDayAndMonth))")
        } ?? "through \(through.weekdayDayAndMonth)"
    }

    /// "rent 850.00 on 28 Nov (standing order), Octopus Energy about 30.00 on 29 Nov
    /// (direct debit, last amount)"; each payment due today "may already have left".
    /// At most `shownInALine` of them, then how many more the report lists.
    public var dueWords: String {
        let shown = due.prefix(ForecastReport.shownInALine).map { payment in
            "\(printable(payment.label)) \(amountWords(payment)) on \(payment.date.dayAndMonth(from: today)) "
                + "(\(sourceWords(payment)))"
        }
        let more = due.count - shown.count
        return shown.joined(separator: ", ") + (more > 0 ? ", and \(more) more (the report lists them)" : "")
    }

    /// "about 30.00" for a direct debit's last amount, else "850.00".
    package func amountWords(_ payment: DuePayment) -> String {
        (payment.lastAmount ? "about " : "") + payment.amount.formattedAmount
    }

    /// "standing order", or "direct debit, last amount; due today, may already have left", or
    /// "direct debit, last amount, about this date" for a date reckoned from its cadence.
    package func sourceWords(_ payment: DuePayment) -> String {
        payment.source.rawValue + (payment.lastAmount ? ", last amount" : "")
            + (payment.dateReckoned ? ", about this date" : "")
            + (payment.date == today ? "; due today, may already have left" : "")
    }

    /// How many payments a one-line summary names.
    public static let shownInALine = 8
}

/// An account's bounds for the week when they differ from its seven local days, and why.
public struct WindowReport: Sendable {
    public var start: Instant
    /// The first instant after the bounds.
    public var end: Instant
    public var hours: Int
    /// Why, in words: stretched or shortened, by how much, and what the bounds meet.
    public var note: String

    package init(start: Instant, end: Instant, hours: Int, note: String) {
        self.start = start
        self.end = end
        self.hours = hours
        self.note = note
    }
}

/// A feed item the week left out, and why: a reason of `leftOut`.
public struct LeftOutReport: Sendable {
    public var feedItemUid: String
    /// Absent for an item not settled.
    public var settlementTime: Instant?
    public var counterParty: String?
    public var amount: Money
    public var reason: String
    /// Where it came from, in the saver's words.
    public var source: String?

    package init(
        feedItemUid: String, settlementTime: Instant? = nil, counterParty: String? = nil, amount: Money, reason: String,
        source: String? = nil
    ) {
        self.source = source
        self.feedItemUid = feedItemUid
        self.settlementTime = settlementTime
        self.counterParty = counterParty
        self.amount = amount
        self.reason = reason
    }
}

/// The goal the money went (or would go) into.
public struct GoalReport: Sendable {
    public var uid: String?
    public var name: String
    /// This run created the goal.
    public var created: Bool = false
    /// A real run would create the goal (dry run only).
    public var wouldCreate: Bool = false
    /// What the goal holds: as the bank said when the run read it, with this run's transfers
    /// into it up to and including this week's. Absent when the bank did not say.
    public var saved: Money?
    /// The goal's own target, else the configured `newGoalTarget`.
    public var target: Money?

    package init(
        uid: String? = nil, name: String, created: Bool = false, wouldCreate: Bool = false, saved: Money? = nil,
        target: Money? = nil
    ) {
        self.uid = uid
        self.name = name
        self.created = created
        self.wouldCreate = wouldCreate
        self.saved = saved
        self.target = target
    }
}
