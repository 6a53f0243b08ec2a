// What the bank has scheduled to leave an account: standing orders, direct debit mandates
// and goals' recurring transfers, as the spec describes them (every field optional), and
// what each says to the forecast (`ScheduledPayment`). What cannot be placed is said in
// words, never guessed: the forecast is then incomplete, and nothing moves on it.

import Foundation
public import RoundUp

/// `StandingOrderRecurrence` and `RecurrenceRuleV2`.
public struct WireRecurrence: Decodable, Sendable, Equatable {
    public let startDate: String?
    public let frequency: String?
    public let interval: Int?
    public let count: Int?
    public let untilDate: String?
    public let days: [String?]?
}

/// One of `StandingOrdersResponse.standingOrders`.
public struct StandingOrder: Decodable, Sendable, Equatable {
    public let paymentOrderUid: String?
    public let amount: CurrencyAndAmount?
    public let reference: String?
    public let standingOrderRecurrence: WireRecurrence?
    public let nextDate: String?
    public let cancelledAt: String?
    public let categoryUid: String?
}

// A list answer without its list is garbled (tried again, then the account's bad data),
// not a list with nothing in it: the spec leaves the key optional, but an answer without
// it says nothing of what is due.

struct StandingOrdersResponse: Decodable {
    let standingOrders: [StandingOrder]
}

struct NextPaymentDatesResponse: Decodable {
    let nextPaymentDates: [String]
}

/// `LastPayment`: nullable, and so is each of its fields.
public struct LastPayment: Decodable, Sendable, Equatable {
    public let lastDate: String?
    public let lastAmount: CurrencyAndAmount?
}

/// One of `DirectDebitMandatesV2.mandates`.
public struct DirectDebitMandate: Decodable, Sendable, Equatable {
    public let uid: String?
    public let reference: String?
    public let status: String?
    public let nextDate: String?
    /// The last payment's date, as the mandate itself gives it (beside `lastPayment`'s).
    public let lastDate: String?
    public let originatorName: String?
    public let lastPayment: LastPayment?
    public let categoryUid: String?
}

struct DirectDebitMandates: Decodable {
    let mandates: [DirectDebitMandate]
}

/// `ScheduledSavingsPaymentV2`: a goal's recurring transfer. Its amount and next date are
/// required: an answer without them is garbled, not a transfer that cannot be placed.
public struct ScheduledSavingsPayment: Decodable, Sendable, Equatable {
    public let transferUid: String?
    public let recurrenceRule: WireRecurrence?
    public let currencyAndAmount: CurrencyAndAmount
    public let nextPaymentDate: String
    public let reference: String?
}

// The uids of what is scheduled are read as every other uid of the bank's (`decodeUid`):
// one that is not a UUID makes the answer bad data.

extension StandingOrder {
    enum CodingKeys: String, CodingKey {
        case paymentOrderUid, amount, reference, standingOrderRecurrence, nextDate, cancelledAt, categoryUid
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        paymentOrderUid = try container.decodeUidIfPresent(forKey: .paymentOrderUid)
        amount = try container.decodeIfPresent(CurrencyAndAmount.self, forKey: .amount)
        reference = try container.decodeIfPresent(String.self, forKey: .reference)
        standingOrderRecurrence = try container.decodeIfPresent(WireRecurrence.self, forKey: .standingOrderRecurrence)
        nextDate = try container.decodeIfPresent(String.self, forKey: .nextDate)
        cancelledAt = try container.decodeIfPresent(String.self, forKey: .cancelledAt)
        categoryUid = try container.decodeUidIfPresent(forKey: .categoryUid)
    }
}

extension DirectDebitMandate {
    enum CodingKeys: String, CodingKey {
        case uid, reference, status, nextDate, lastDate, originatorName, lastPayment, categoryUid
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        uid = try container.decodeUidIfPresent(forKey: .uid)
        reference = try container.decodeIfPresent(String.self, forKey: .reference)
        status = try container.decodeIfPresent(String.self, forKey: .status)
        nextDate = try container.decodeIfPresent(String.self, forKey: .nextDate)
        lastDate = try container.decodeIfPresent(String.self, forKey: .lastDate)
        originatorName = try container.decodeIfPresent(String.self, forKey: .originatorName)
        lastPayment = try container.decodeIfPresent(LastPayment.self, forKey: .lastPayment)
        categoryUid = try container.decodeUidIfPresent(forKey: .categoryUid)
    }
}

extension ScheduledSavingsPayment {
    enum CodingKeys: String, CodingKey {
        case transferUid, recurrenceRule, currencyAndAmount, nextPaymentDate, reference
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        transferUid = try container.decodeUidIfPresent(forKey: .transferUid)
        recurrenceRule = try container.decodeIfPresent(WireRecurrence.self, forKey: .recurrenceRule)
        currencyAndAmount = try container.decode(CurrencyAndAmount.self, forKey: .currencyAndAmount)
        nextPaymentDate = try container.decode(String.self, forKey: .nextPaymentDate)
        reference = try container.decodeIfPresent(String.self, forKey: .reference)
    }
}

/// A scheduled item as the forecast takes it: a payment, nothing (not from the main
/// balance, cancelled), or why it cannot be placed.
public enum SchedulePlacement: Sendable, Equatable {
    case payments([ScheduledPayment])
    case notCounted
    case unplaced(String)
}

extension WireRecurrence {
    /// The recurrence, or nil when its frequency or interval is not one the spec lists.
    /// `count` is left out: the payments already made are not published, so it cannot be
    /// honoured, and leaving it out only counts more.
    var recurrence: Recurrence? {
        guard let frequency = frequency.flatMap({ Recurrence.Frequency(rawValue: $0.uppercased()) }) else { return nil }
        if let interval, interval < 1 { return nil }
        let until = untilDate.flatMap { LocalDate(iso: $0) }
        if untilDate != nil, until == nil { return nil }
        var weekdays = Set<Weekday>()
        for day in (days ?? []).compactMap({ $0 }) {
            guard let weekday = Weekday(rawValue: day.lowercased()) else { return nil }
            weekdays.insert(weekday)
        }
        return Recurrence(frequency: frequency, interval: interval ?? 1, until: until, days: weekdays)
    }
}

/// Who pays an item with `categoryUid` (a UUID, as decoding left it) in `account`: its main
/// balance (its default category, or no category in particular), another category (a
/// space), or the nil uid, which names no category and so cannot be placed.
enum Payer {
    case mainBalance, space, unreadable

    static let nilUid = "00000000-0000-0000-0000-000000000000"

    init(_ categoryUid: String?, of account: Account) {
        guard let categoryUid, categoryUid != account.defaultCategory else {
            self = .mainBalance
            return
        }
        self = categoryUid == Payer.nilUid ? .unreadable : .space
    }
}

/// An amount as the bank sent it: none, one the job cannot read (a currency it does not
/// know, a negative amount), or money.
enum WireAmount {
    case missing
    case unreadable
    case money(Money)

    init(_ amount: CurrencyAndAmount?) {
        guard let amount else {
            self = .missing
            return
        }
        guard let currency = Currency(code: amount.currency), amount.minorUnits >= 0 else {
            self = .unreadable
            return
        }
        self = .money(Money(minorUnits: amount.minorUnits, currency: currency))
    }
}

/// `text` as a label: trimmed, at most 100 characters, or nil when empty. The bank's own
/// text is kept as it is; each report makes it printable.
func labelText(_ text: String?) -> String? {
    guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
    return String(trimmed.prefix(100))
}

/// When an item first falls due, as far as its dates alone tell: after the horizon's end
/// (it cannot fall due before payday, and nothing else about it matters), on a date within
/// it, or not known (a date the job cannot read, or none).
enum FirstDue {
    case afterHorizon
    case on(LocalDate)
    case unknown

    init(_ date: LocalDate?, horizon: Horizon) {
        guard let date else {
            self = .unknown
            return
        }
        self = date > horizon.end ? .afterHorizon : .on(date)
    }
}

extension StandingOrder {
    /// Whether the order is cancelled by `today`: `cancelledAt` is a time on or before it.
    /// Nil when `cancelledAt` cannot be read, which the forecast cannot place. A cancellation
    /// still to come leaves the order counted, which only holds more back.
    func isCancelled(by today: LocalDate) -> Bool? {
        guard let text = cancelledAt?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
            return false
        }
        guard let instant = Instant(iso8601: text) else { return nil }
        return Week.localDate(of: instant, in: TimeZone(identifier: "UTC")!) <= today
    }

    /// "rent", or "standing order" when it has no reference.
    public var label: String { labelText(reference) ?? "standing order" }

    /// Whether the order's next date lies after `horizon`'s end: then it cannot fall due
    /// before payday, and nothing else about it is read.
    public func fallsDueAfter(_ horizon: Horizon) -> Bool {
        if case .afterHorizon = FirstDue(nextDate.flatMap { LocalDate(iso: $0) }, horizon: horizon) { return true }
        return false
    }

    /// The order as the forecast takes it from `account` in `horizon`. Its dates start at
    /// `nextDate`, never `startDate`. `nextDates` are the bank's own dates for it, asked only
    /// when the order has no `nextDate` or a frequency that is not known; they count only
    /// when they are all it pays before the horizon ends (`listIsComplete`). Dates come
    /// first: an order that cannot fall due before the horizon's end is not examined further.
    public func placement(in account: Account, horizon: Horizon, nextDates: [LocalDate]? = nil) -> SchedulePlacement {
        if fallsDueAfter(horizon) { return .notCounted }
        if let first = nextDates?.min(), first > horizon.end { return .notCounted }
        switch isCancelled(by: horizon.today) {
        case true?: return .notCounted
        case nil: return .unplaced("\(label) (standing order): a cancellation time the job cannot read")
        case false?: break
        }
        switch Payer(categoryUid, of: account) {
        case .mainBalance: break
        case .space: return .notCounted
        case .unreadable: return .unplaced("\(label) (standing order): a paying category the job cannot read")
        }
        guard case .money(let amount) = WireAmount(amount) else {
            return .unplaced("\(label) (standing order): its amount is missing or not readable")
        }
        if let next = nextDate.flatMap({ LocalDate(iso: $0) }), let recurrence = standingOrderRecurrence?.recurrence {
            return .payments([
                ScheduledPayment(
                    label: label, source: .standingOrder, amount: amount, next: next, recurrence: recurrence)
            ])
        }
        guard let nextDates else {
            return .unplaced("\(label) (standing order): no next date or frequency the job can read")
        }
        guard listIsComplete(nextDates, horizon: horizon) else {
            let upTo = nextDates.max().map { "its dates only up to \($0)" } ?? "no dates"
            if case .on(let final)? = lastPayment, final <= horizon.end {
                return .unplaced(
                    "\(label) (standing order): the bank listed \(upTo), short of its last payment on \(final)"
                )
            }
            return .unplaced(
                "\(label) (standing order): the bank listed \(upTo), not through \(horizon.end), and the "
                    + "order has no end before then that the job can tell")
        }
        // Each of the bank's own dates, as a payment of its own.
        return .payments(
            nextDates.map { ScheduledPayment(label: label, source: .standingOrder, amount: amount, next: $0) })
    }

    /// Whether the bank must be asked for this order's next dates (`upcoming-payments`): an
    /// order that can fall due before the horizon ends, paid from the main balance, without a
    /// next date or a frequency the job can read.
    public func needsNextDates(in account: Account, horizon: Horizon) -> Bool {
        // A cancellation time that cannot be read is looked at once the dates say the order
        // can fall due before payday.
        guard !fallsDueAfter(horizon), isCancelled(by: horizon.today) != true,
            Payer(categoryUid, of: account) == .mainBalance
        else { return false }
        return nextDate.flatMap({ LocalDate(iso: $0) }) == nil || standingOrderRecurrence?.recurrence == nil
    }

    /// Whether `dates`, the bank's own next dates for the order, are all it pays before
    /// `horizon` ends: they reach past the horizon, or they reach the order's own last
    /// payment (`lastPayment`) and that comes before the horizon ends.
    public func listIsComplete(_ dates: [LocalDate], horizon: Horizon) -> Bool {
        let last = dates.max()
        if let last, last > horizon.end { return true }
        let final: LocalDate
        switch lastPayment {
        case .on(let date)?: final = date
        case .none?: return true
        case nil: return false
        }
        guard final <= horizon.end else { return false }
        if final < horizon.today { return true }
        guard let last else { return false }
        return last >= final
    }

    /// The order's own last payment, when its recurrence says: the `count`-th from its
    /// `startDate`, or the last on or before its `untilDate` (`.none` when it pays nothing
    /// by then). Nil when the recurrence cannot say (no end, or a frequency not known).
    var lastPayment: LastOfOrder? {
        guard let rule = standingOrderRecurrence, let start = rule.startDate.flatMap({ LocalDate(iso: $0) }),
            let frequency = rule.frequency.flatMap({ Recurrence.Frequency(rawValue: $0.uppercased()) })
        else { return nil }
        var days = Set<Weekday>()
        for day in (rule.days ?? []).compactMap({ $0 }) {
            guard let weekday = Weekday(rawValue: day.lowercased()) else { return nil }
            days.insert(weekday)
        }
        if let interval = rule.interval, interval < 1 { return nil }
        let recurrence = Recurrence(frequency: frequency, interval: rule.interval ?? 1, days: days)
        // By its count: the count-th payment from its start.
        let byCount = rule.count.flatMap { count in
            count >= 1 && days.isEmpty ? recurrence.date(count - 1, after: start) : nil
        }
        guard let text = rule.untilDate else { return byCount.map { .on($0) } }
        guard let until = LocalDate(iso: text) else { return nil }
        guard start <= until else { return LastOfOrder.none }
        // By its end date: the last payment on or before it, within one period of it.
        let period =
            switch frequency {
            case .daily: 1
            case .weekly: 7
            case .monthly: 31
            case .yearly: 366
            }
        let (span, overflow) = period.multipliedReportingOverflow(by: recurrence.interval)
        let from = overflow ? start : max(start, until.adding(days: -min(span, 3_660_000)))
        let dates = ScheduledPayment(
            label: "", source: .standingOrder, amount: nil, next: start, recurrence: recurrence
        ).dates(in: Horizon(today: from, end: until, payday: nil))
        guard let byUntil = dates.last else { return LastOfOrder.none }
        // Whichever end comes first.
        return .on(byCount.map { min($0, byUntil) } ?? byUntil)
    }

    /// An order's last payment by its own recurrence.
    enum LastOfOrder {
        case on(LocalDate)
        /// It pays nothing by its end.
        case none
    }
}

extension DirectDebitMandate {
    /// The originator's name, else the mandate's reference, else "direct debit".
    public var label: String { labelText(originatorName) ?? labelText(reference) ?? "direct debit" }

    /// The mandate as the forecast takes it from `account` in `horizon`. A LIVE or
    /// PENDING_CAS mandate pays its last payment's amount on its next date and again at its
    /// cadence (`cadence`); without a next date, monthly from its last payment. Dates come
    /// first: a mandate that cannot fall due before the horizon's end is not examined further.
    public func placement(in account: Account, horizon: Horizon) -> SchedulePlacement {
        // Each date: not given (nil), given and not readable (.some(nil)), or a date.
        let next: LocalDate?? = nextDate.map { LocalDate(iso: $0) }
        let last = lastPaid
        let monthly = Recurrence(frequency: .monthly)
        var first = FirstDue.unknown
        if let next {
            first = FirstDue(next, horizon: horizon)
        } else if case let last?? = last {
            // A last payment in the year 9999 has no month after it to fall due in.
            first = monthly.date(1, after: last).map { FirstDue($0, horizon: horizon) } ?? .afterHorizon
        }
        if case .afterHorizon = first { return .notCounted }
        let state = status?.trimmingCharacters(in: .whitespacesAndNewlines).uppercased() ?? ""
        switch state {
        case "CANCELLED": return .notCounted
        case "LIVE", "PENDING_CAS": break
        case "": return .unplaced("\(label) (direct debit): the bank gave no status")
        default: return .unplaced("\(label) (direct debit): a status the job does not know, '\(state.prefix(20))'")
        }
        switch Payer(categoryUid, of: account) {
        case .mainBalance: break
        case .space: return .notCounted
        case .unreadable: return .unplaced("\(label) (direct debit): a paying category the job cannot read")
        }
        let amount: Money?
        switch WireAmount(lastPayment?.lastAmount) {
        case .missing: amount = nil  // "amount unknown", should it fall due
        case .unreadable: return .unplaced("\(label) (direct debit): its last amount is not readable")
        case .money(let money): amount = money
        }
        guard case .on(let date) = first else {
            if next != nil { return .unplaced("\(label) (direct debit): a next date the job cannot read") }
            if case .some(nil) = last {
                return .unplaced("\(label) (direct debit): no next date, and a last payment date the job cannot read")
            }
            return .unplaced("\(label) (direct debit): no next date and no last payment to date it from")
        }
        guard next != nil else {
            return .payments([
                ScheduledPayment(
                    label: label, source: .directDebit, amount: amount, lastAmount: true, next: date,
                    recurrence: monthly)
            ])
        }
        if case .some(nil) = last {
            return .unplaced("\(label) (direct debit): a last payment date the job cannot read")
        }
        let from = BankHolidays.earliestDue(movedTo: date)
        return .payments([
            ScheduledPayment(
                label: label, source: .directDebit, amount: amount, lastAmount: true, next: date,
                recurrence: DirectDebitMandate.cadence(lastPaid: last ?? nil, next: date), reckonedFrom: from)
        ])
    }

    /// The last payment's date: not given (nil), given and not readable (.some(nil)), or the
    /// later of `lastPayment.lastDate` and the mandate's own `lastDate`.
    var lastPaid: LocalDate?? {
        let given = [lastPayment?.lastDate, lastDate].compactMap { $0 }
        guard !given.isEmpty else { return nil }
        let dates = given.compactMap { LocalDate(iso: $0) }
        guard dates.count == given.count else { return .some(nil) }
        return dates.max()
    }

    /// How often a mandate collects, from its last payment and its next date. Either may
    /// have been moved past a weekend or bank holiday, so the gap between the days they were
    /// due lies between the shortest (the earliest the next may have been due, less the last
    /// payment) and the longest (the next, less the earliest the last may have been due).
    /// The cadence is the fastest of weekly, every 2, 3 or 4 weeks, and monthly (28 to 31
    /// days) that such a gap allows; when none does, the shortest gap says: 7 days or less
    /// is weekly; 8 to 27 days, that many whole weeks; more, monthly. A mandate never paid is
    /// taken as monthly. So a cadence is never reckoned slower than it is, save when a
    /// collection was missed (a weekly debit that skipped a week looks fortnightly).
    public static func cadence(lastPaid: LocalDate?, next: LocalDate) -> Recurrence {
        guard let lastPaid else { return Recurrence(frequency: .monthly) }
        let shortest = BankHolidays.earliestDue(movedTo: next).daysSinceEpoch - lastPaid.daysSinceEpoch
        let longest = next.daysSinceEpoch - BankHolidays.earliestDue(movedTo: lastPaid).daysSinceEpoch
        if shortest <= 7 { return Recurrence(frequency: .weekly) }
        if let weeks = (1...4).first(where: { (shortest...max(shortest, longest)).contains($0 * 7) }) {
            return Recurrence(frequency: .weekly, interval: weeks)
        }
        if shortest <= 31, longest >= 28 { return Recurrence(frequency: .monthly) }
        return shortest < 28 ? Recurrence(frequency: .weekly, interval: shortest / 7) : Recurrence(frequency: .monthly)
    }
}

extension ScheduledSavingsPayment {
    /// The transfer into the goal named `goalName` as the forecast takes it in `horizon`:
    /// one whose next date lies after the horizon's end is not examined further.
    public func placement(goalName: String, horizon: Horizon) -> SchedulePlacement {
        guard let next = LocalDate(iso: nextPaymentDate) else {
            return .unplaced("\(goalName) (goal transfer): no next date the job can read")
        }
        if next > horizon.end { return .notCounted }
        guard case .money(let amount) = WireAmount(currencyAndAmount) else {
            return .unplaced("\(goalName) (goal transfer): its amount is not readable")
        }
        let recurrence = recurrenceRule?.recurrence
        if recurrenceRule != nil, recurrence == nil {
            return .unplaced("\(goalName) (goal transfer): a recurrence the job cannot read")
        }
        return .payments([
            ScheduledPayment(label: goalName, source: .goalTransfer, amount: amount, next: next, recurrence: recurrence)
        ])
    }
}
