/// A day of the week, named as the config writes it (`weekEndsOn: sunday`).
public enum Weekday: String, CaseIterable, Sendable, Codable {
    case monday, tuesday, wednesday, thursday, friday, saturday, sunday

    /// The day scheduled weeks end on unless configured otherwise: a Monday run rounds up
    /// Monday to Sunday.
    public static let defaultWeekEnd = Weekday.sunday

    /// `Sunday`.
    public var name: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
}

extension LocalDate {
    /// The day of the week of this date (1970-01-01 was a Thursday).
    public var weekday: Weekday {
        let index = ((daysSinceEpoch + 3) % 7 + 7) % 7
        return Weekday.allCases[index]
    }

    /// The newest date on or before this one that falls on `weekday`.
    public func latest(_ weekday: Weekday) -> LocalDate {
        let target = Weekday.allCases.firstIndex(of: weekday) ?? 6
        let own = Weekday.allCases.firstIndex(of: self.weekday) ?? 6
        return adding(days: -((own - target + 7) % 7))
    }
}

extension LocalDate {
    /// `Jan` to `Dec`, as the saver reads dates.
    public static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `28 Nov`.
    public var dayAndMonth: String { "\(day) \(LocalDate.monthNames[month - 1])" }

    /// `28 Nov`, or `28 Nov 2025` when the date is not in `today`'s year.
    public func dayAndMonth(from today: LocalDate) -> String { dayAndMonth + year(unless: today) }

    /// `Fri 4 Dec`, or `Fri 4 Dec 2025` when the date is not in `today`'s year.
    public func weekdayDayAndMonth(from today: LocalDate) -> String { weekdayDayAndMonth + year(unless: today) }

    /// ` 2025` (four digits), or nothing when the date is in `today`'s year.
    private func year(unless today: LocalDate) -> String { year == today.year ? "" : " \(description.prefix(4))" }

    /// `Fri 4 Dec`.
    public var weekdayDayAndMonth: String { "\(weekday.name.prefix(3)) \(dayAndMonth)" }
}
