/// When the saver's pay arrives (`payday` in the config): the forecast looks at what the
/// bank will take from the account until then.
public enum Payday: Hashable, Sendable, CustomStringConvertible {
    /// A day of the month, 1 to 31; a shorter month's last day stands in.
    case monthly(day: Int)
    /// Every week on this day.
    case weekly(Weekday)
    /// Every `weeks` weeks, counted from `from`, a payday.
    case everyWeeks(Int, from: LocalDate)

    /// The longest gap `every N weeks` takes.
    public static let longestWeeks = 8

    /// `payday` as the config writes it: `25`, `friday`, or `every 2 weeks from 2026-11-27`.
    /// Case and spaces around words do not matter.
    public init(parsing text: String) throws(PaydayError) {
        let words = text.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        if words.count == 1, let day = Int(words[0]), words[0].allSatisfy(\.isASCII),
            !(words[0].count > 1 && words[0].hasPrefix("0")),
            !words[0].hasPrefix("+")
        {
            guard (1...31).contains(day) else { throw PaydayError(text, "a day of the month is 1 to 31") }
            self = .monthly(day: day)
        } else if words.count == 1, words[0].count > 1, words[0].allSatisfy({ $0.isASCII && $0.isNumber }),
            let day = Int(words[0])
        {
            throw PaydayError(text, "a day of the month is written without a leading zero: write \(day)")
        } else if words.count == 1, let weekday = Weekday(rawValue: words[0]) {
            self = .weekly(weekday)
        } else if words.count == 5, words[0] == "every", ["weeks", "week"].contains(words[2]), words[3] == "from" {
            guard let weeks = Int(words[1]), words[1].count == 1, (1...Payday.longestWeeks).contains(weeks)
            else { throw PaydayError(text, "the number of weeks is 1 to \(Payday.longestWeeks)") }
            guard let start = LocalDate(iso: words[4]) else {
                throw PaydayError(text, "'\(words[4].prefix(20))' is not a date of the form YYYY-MM-DD")
            }
            self = .everyWeeks(weeks, from: start)
        } else {
            throw PaydayError(
                text, "write a day of the month (25), a weekday (friday), or every 2 weeks from a payday (2026-11-27)")
        }
    }

    /// The first payday after `today` (never `today` itself: pay that came today is spent
    /// from already).
    public func next(after today: LocalDate) -> LocalDate {
        switch self {
        case .monthly(let day):
            let thisMonth = Payday.date(year: today.year, month: today.month, day: day)
            if thisMonth > today { return thisMonth }
            let (year, month) = today.month == 12 ? (today.year + 1, 1) : (today.year, today.month + 1)
            return Payday.date(year: year, month: month, day: day)
        case .weekly(let weekday):
            return today.adding(days: 7).latest(weekday)
        case .everyWeeks(let weeks, let start):
            let period = 7 * weeks
            let since = today.daysSinceEpoch - start.daysSinceEpoch
            // The newest payday on or before today (rounding down, before `start` too), then the one after.
            let periods = since >= 0 ? since / period : -((-since + period - 1) / period)
            return start.adding(days: (periods + 1) * period)
        }
    }

    /// `day` of the month, or the month's last day when it is shorter.
    static func date(year: Int, month: Int, day: Int) -> LocalDate {
        LocalDate(year: year, month: month, day: min(day, LocalDate.daysIn(month: month, year: year)))!
    }

    /// As the config writes it.
    public var description: String {
        switch self {
        case .monthly(let day): "\(day)"
        case .weekly(let weekday): weekday.rawValue
        case .everyWeeks(let weeks, let start): "every \(weeks) weeks from \(start)"
        }
    }
}

/// Why a `payday` setting was not understood.
public struct PaydayError: Error, Equatable, Sendable, CustomStringConvertible {
    public let text: String
    public let why: String

    init(_ text: String, _ why: String) {
        self.text = String(text.prefix(60))
        self.why = why
    }

    public var description: String { "'\(text)' is not a payday: \(why)" }
}

/// The days the forecast looks at: from the past through `end`, inclusive. An item whose
/// date is on or before `end` falls due in it, dates before `today` included, as the bank
/// has not moved them on.
public struct Horizon: Hashable, Sendable {
    /// The run's date, in the job's time zone.
    public let today: LocalDate
    /// The last day counted.
    public let end: LocalDate
    /// The payday the horizon runs to, when `payday` is configured.
    public let payday: LocalDate?

    /// Without a payday the horizon is the next seven days, through the next weekly run.
    public static let weekWithoutPayday = 7

    /// The horizon of a run on `today`: through the next payday, or, when that payday falls
    /// on a weekend or bank holiday (`BankHolidays`), through the next working day after it,
    /// when pay may arrive instead; without a payday, through the next seven days.
    public init(today: LocalDate, payday: Payday?) {
        self.today = today
        guard let payday else {
            self.payday = nil
            self.end = today.adding(days: Horizon.weekWithoutPayday)
            return
        }
        let next = payday.next(after: today)
        self.payday = next
        var end = next
        while BankHolidays.isClosed(end), end.year < 9999 { end = end.adding(days: 1) }
        self.end = end
    }

    public init(today: LocalDate, end: LocalDate, payday: LocalDate?) {
        self.today = today
        self.end = end
        self.payday = payday
    }

    /// Whether the payday falls on a weekend or bank holiday, so that the horizon runs
    /// through the next working day after it.
    public var paydayOnAClosedDay: Bool { payday.map { $0 != end } ?? false }
}
