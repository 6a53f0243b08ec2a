/// How often a scheduled payment repeats, as the bank describes a standing order's or a
/// goal's recurring transfer (`frequency` × `interval`, until `until`).
public struct Recurrence: Hashable, Sendable {
    public enum Frequency: String, Sendable, CaseIterable {
        case daily = "DAILY"
        case weekly = "WEEKLY"
        case monthly = "MONTHLY"
        case yearly = "YEARLY"
    }

    public var frequency: Frequency
    /// Every `interval` days, weeks, months or years; at least 1.
    public var interval: Int
    /// The last day a payment may fall on.
    public var until: LocalDate?
    /// For a weekly recurrence, the weekdays it pays on; empty means the next date's weekday.
    public var days: Set<Weekday>

    public init(frequency: Frequency, interval: Int = 1, until: LocalDate? = nil, days: Set<Weekday> = []) {
        self.frequency = frequency
        self.interval = max(interval, 1)
        self.until = until
        self.days = days
    }

    /// The `step`-th date after `start` (the 0th is `start`), for a recurrence without
    /// listed weekdays; nil past the year 9999, which no horizon reaches.
    public func date(_ step: Int, after start: LocalDate) -> LocalDate? {
        Recurrence.occurrence(step, of: self, from: start)
    }
}

/// Where a payment the bank has scheduled comes from.
public enum ScheduleSource: String, Sendable, CaseIterable, Codable {
    case standingOrder = "standing order"
    case directDebit = "direct debit"
    case goalTransfer = "goal transfer"
}

/// A payment the bank will take from the account's main balance: its next date, and how it
/// repeats after that.
public struct ScheduledPayment: Hashable, Sendable {
    public var label: String
    public var source: ScheduleSource
    /// What each payment takes; nil when the bank does not say (a direct debit never paid).
    public var amount: Money?
    /// The amount is the last payment's, so about what the next one takes.
    public var lastAmount: Bool
    /// The next payment's date. A date before today is a payment the bank has not made yet.
    public var next: LocalDate
    /// How it repeats; nil for a single payment.
    public var recurrence: Recurrence?
    /// For a direct debit, whose cadence is reckoned rather than told: the date its
    /// repetitions count from (its next date, or the earliest it may have been due before a
    /// weekend or bank holiday moved it). Their dates are then about when each falls.
    public var reckonedFrom: LocalDate?

    public init(
        label: String, source: ScheduleSource, amount: Money?, lastAmount: Bool = false, next: LocalDate,
        recurrence: Recurrence? = nil, reckonedFrom: LocalDate? = nil
    ) {
        self.label = label
        self.source = source
        self.amount = amount
        self.lastAmount = lastAmount
        self.next = next
        self.recurrence = recurrence
        self.reckonedFrom = reckonedFrom
    }

    /// The dates this payment falls due in `horizon`: its next date, then every date the
    /// recurrence gives on or after `horizon.today`, through the horizon's end. A next date
    /// long past is one payment the bank has not made, counted once, not every date since.
    public func dates(in horizon: Horizon) -> [LocalDate] {
        guard next <= horizon.end else { return [] }
        var dates = [next]
        guard let recurrence else { return dates }
        let last = min(horizon.end, recurrence.until ?? horizon.end)
        let from = max(next.adding(days: 1), horizon.today)
        guard from <= last else { return dates }
        if recurrence.frequency == .weekly, !recurrence.days.isEmpty {
            // Each listed weekday of every `interval`-th week, counted from the next date's week.
            let firstWeek = Recurrence.mondayWeek(next)
            var day = from
            while day <= last {
                if recurrence.days.contains(day.weekday),
                    (Recurrence.mondayWeek(day) - firstWeek) % recurrence.interval == 0
                {
                    dates.append(day)
                }
                day = day.adding(days: 1)
            }
            return dates
        }
        let start = min(reckonedFrom ?? next, next)
        var step = Recurrence.firstStep(of: recurrence, from: start, reaching: from)
        while let date = Recurrence.occurrence(step, of: recurrence, from: start), date <= last {
            if date >= from { dates.append(date) }
            step += 1
        }
        return dates
    }
}

/// The date arithmetic of recurrences.
extension Recurrence {
    /// The `step`-th payment after `next` (the 0th is `next`). Months and years keep `next`'s
    /// day, with a shorter month's last day standing in. Nil past the year 9999 (a huge
    /// interval, a date far ahead), which no horizon reaches.
    static func occurrence(_ step: Int, of recurrence: Recurrence, from next: LocalDate) -> LocalDate? {
        let (count, overflow) = step.multipliedReportingOverflow(by: recurrence.interval)
        guard !overflow, count >= 0 else { return nil }
        let lastDay = LocalDate(year: 9999, month: 12, day: 31)!
        switch recurrence.frequency {
        case .daily, .weekly:
            let (days, tooMany) = count.multipliedReportingOverflow(by: recurrence.frequency == .daily ? 1 : 7)
            guard !tooMany, days <= lastDay.daysSinceEpoch - next.daysSinceEpoch else { return nil }
            return next.adding(days: days)
        case .monthly:
            guard count <= (9999 - next.year + 1) * 12 else { return nil }
            let months = next.year * 12 + (next.month - 1) + count
            guard months / 12 <= 9999 else { return nil }
            return Payday.date(year: months / 12, month: months % 12 + 1, day: next.day)
        case .yearly:
            guard count <= 9999 - next.year else { return nil }
            return Payday.date(year: next.year + count, month: next.month, day: next.day)
        }
    }

    /// A step at or before the first payment on or after `from`, so that a next date long
    /// past is not stepped through a day at a time.
    static func firstStep(of recurrence: Recurrence, from next: LocalDate, reaching from: LocalDate) -> Int {
        let units: Int
        switch recurrence.frequency {
        case .daily: units = from.daysSinceEpoch - next.daysSinceEpoch
        case .weekly: units = (from.daysSinceEpoch - next.daysSinceEpoch) / 7
        case .monthly: units = (from.year - next.year) * 12 + from.month - next.month
        case .yearly: units = from.year - next.year
        }
        return max(units / recurrence.interval - 1, 1)
    }

    /// The number of the Monday-to-Sunday week `date` falls in.
    static func mondayWeek(_ date: LocalDate) -> Int {
        // 1970-01-05 was a Monday.
        let days = date.daysSinceEpoch - 4
        return days >= 0 ? days / 7 : -((-days + 6) / 7)
    }
}

/// One payment that falls due before payday.
public struct DuePayment: Hashable, Sendable {
    public var label: String
    public var source: ScheduleSource
    public var date: LocalDate
    public var amount: Money
    /// The amount is the last payment's (a direct debit), so about what this one takes.
    public var lastAmount: Bool
    /// The date is reckoned from a direct debit's cadence, so about when it falls.
    public var dateReckoned: Bool

    public init(
        label: String, source: ScheduleSource, date: LocalDate, amount: Money, lastAmount: Bool = false,
        dateReckoned: Bool = false
    ) {
        self.label = label
        self.source = source
        self.date = date
        self.amount = amount
        self.lastAmount = lastAmount
        self.dateReckoned = dateReckoned
    }
}

/// What the bank has scheduled to leave the account's main balance before payday, and what
/// of the schedule could not be counted.
public struct Forecast: Hashable, Sendable {
    public var horizon: Horizon
    /// Each payment due in the horizon, by date.
    public var due: [DuePayment]
    /// What could not be placed (an amount not known, another currency, a recurrence not
    /// understood): any of it makes the forecast incomplete, and nothing moves on it.
    public var unplaced: [String]
    /// The parts of the schedule the token may not read (a scope not granted): not counted,
    /// said, and saved as before.
    public var unseen: [String]

    public init(horizon: Horizon, due: [DuePayment] = [], unplaced: [String] = [], unseen: [String] = []) {
        self.horizon = horizon
        self.due = due
        self.unplaced = unplaced
        self.unseen = unseen
    }

    /// The forecast of `payments` in `horizon` for an account in `currency`, with what the
    /// caller already found it could not place.
    public init(
        _ payments: [ScheduledPayment], in horizon: Horizon, currency: Currency, unplaced: [String] = [],
        unseen: [String] = []
    ) {
        var due: [DuePayment] = []
        var unplacedHere = unplaced
        for payment in payments {
            let dates = payment.dates(in: horizon)
            guard let first = dates.first else { continue }
            guard let amount = payment.amount else {
                unplacedHere.append("\(payment.label) (\(payment.source.rawValue)) on \(first): amount unknown")
                continue
            }
            guard amount.currency == currency else {
                unplacedHere.append(
                    "\(payment.label) (\(payment.source.rawValue)) on \(first): in \(amount.currency.code), not \(currency.code)"
                )
                continue
            }
            due += dates.map {
                DuePayment(
                    label: payment.label, source: payment.source, date: $0, amount: amount,
                    lastAmount: payment.lastAmount, dateReckoned: payment.reckonedFrom != nil && $0 != payment.next)
            }
        }
        due.sort { ($0.date, $0.label, $0.amount.minorUnits) < ($1.date, $1.label, $1.amount.minorUnits) }
        self.init(horizon: horizon, due: due, unplaced: unplacedHere, unseen: unseen)
    }

    /// Whether every payment the token could see was placed.
    public var isComplete: Bool { unplaced.isEmpty }

    /// What falls due in all, in minor units; at the far end of Int64 it stays there, which
    /// only holds more back.
    public var dueMinorUnits: Int64 {
        due.reduce(Int64(0)) { sum, payment in
            let (total, overflow) = sum.addingReportingOverflow(payment.amount.minorUnits)
            return overflow ? Int64.max : total
        }
    }

    /// The lowest the account's balance goes before payday: `balance`, less what falls due,
    /// less `movedEarlier` (what this run's earlier weeks moved from the account).
    public func lowPoint(balance: Money, movedEarlier: Money) -> Money {
        Forecast.lowPoint(
            balance: balance, due: Money(minorUnits: dueMinorUnits, currency: balance.currency),
            movedEarlier: movedEarlier)
    }

    /// `balance` less `due` less `movedEarlier`; at the far end of Int64 it stays there,
    /// which only holds more back.
    public static func lowPoint(balance: Money, due: Money, movedEarlier: Money) -> Money {
        let (afterDue, overflow) = balance.minorUnits.subtractingReportingOverflow(due.minorUnits)
        let (low, overflowAgain) = (overflow ? Int64.min : afterDue).subtractingReportingOverflow(
            movedEarlier.minorUnits)
        return Money(minorUnits: overflow || overflowAgain ? Int64.min : low, currency: balance.currency)
    }
}
