/// The days no direct debit is collected: weekends, and the bank holidays of England and
/// Wales (when Bacs, which collects the UK's direct debits, is closed), with 1 May, when the
/// euro's TARGET2 is closed, as well. A collection due on such a day is made on the next
/// day that is not one, so the date the bank gives as a mandate's next may lie a few days
/// after the date its cadence counts from.
///
/// Only the earliest that date may have been is asked (`earliestDue(movedTo:)`), so a day
/// taken for a holiday that is not one only counts a later collection a little early, never
/// late. A bank holiday announced for a single year (a coronation, a state funeral) and not
/// listed here is the one way a date can be reckoned late.
public enum BankHolidays {
    /// Whether no direct debit is collected on `date`.
    public static func isClosed(_ date: LocalDate) -> Bool {
        if date.weekday == .saturday || date.weekday == .sunday { return true }
        return holidays(in: date.year).contains(date)
    }

    /// The earliest date a collection made on `date` may have been due: `date`, or the first
    /// of the run of closed days just before it.
    public static func earliestDue(movedTo date: LocalDate) -> LocalDate {
        var earliest = date
        // No run of closed days is longer than five (Christmas on a Saturday, with the weekend before it).
        for _ in 0..<6 {
            let before = earliest.adding(days: -1)
            guard before.year >= 1, isClosed(before) else { break }
            earliest = before
        }
        return earliest
    }

    /// The bank holidays of England and Wales in `year`, substitute days included, and 1 May.
    public static func holidays(in year: Int) -> Set<LocalDate> {
        guard (2...9998).contains(year) else { return [] }
        var days = Set<LocalDate>()
        func add(_ month: Int, _ day: Int) {
            if let date = LocalDate(year: year, month: month, day: day) { days.insert(date) }
        }
        // New Year's Day, or the Monday after it.
        days.insert(weekdayOnOrAfter(LocalDate(year: year, month: 1, day: 1)!, taken: nil))
        let easter = easterSunday(year)
        days.insert(easter.adding(days: -2))
        days.insert(easter.adding(days: 1))
        add(5, 1)
        days.insert(LocalDate(year: year, month: 5, day: 7)!.latest(.monday))
        days.insert(LocalDate(year: year, month: 5, day: 31)!.latest(.monday))
        days.insert(LocalDate(year: year, month: 8, day: 31)!.latest(.monday))
        // Christmas Day, then Boxing Day on the next weekday after it.
        let christmas = weekdayOnOrAfter(LocalDate(year: year, month: 12, day: 25)!, taken: nil)
        days.insert(christmas)
        days.insert(weekdayOnOrAfter(LocalDate(year: year, month: 12, day: 26)!, taken: christmas))
        // Days given for one year only, and the days moved to make room for them.
        for (y, month, day) in oneOffs where y == year { add(month, day) }
        return days
    }

    /// Bank holidays of a single year (jubilees, a wedding, a funeral, a coronation, the
    /// millennium, VE Day's anniversary). The usual day such a year moved stays closed here:
    /// a day wrongly taken for closed only counts a collection early.
    static let oneOffs: [(Int, Int, Int)] = [
        (1999, 12, 31), (2002, 6, 3), (2002, 6, 4), (2011, 4, 29), (2012, 6, 4), (2012, 6, 5), (2020, 5, 8),
        (2022, 6, 2), (2022, 6, 3), (2022, 9, 19), (2023, 5, 8),
    ]

    /// `date`, or the first weekday after it (and after `taken`, a day already given).
    private static func weekdayOnOrAfter(_ date: LocalDate, taken: LocalDate?) -> LocalDate {
        var day = date
        while day.weekday == .saturday || day.weekday == .sunday || taken.map({ day <= $0 }) == true {
            day = day.adding(days: 1)
        }
        return day
    }

    /// Easter Sunday in the Gregorian calendar (the anonymous Gregorian algorithm).
    static func easterSunday(_ year: Int) -> LocalDate {
        let a = year % 19
        let b = year / 100
        let c = year % 100
        let d = b / 4
        let e = b % 4
        let f = (b + 8) / 25
        let g = (b - f + 1) / 3
        let h = (19 * a + b - d - g + 15) % 30
        let i = c / 4
        let k = c % 4
        let l = (32 + 2 * e + 2 * i - h - k) % 7
        let m = (a + 11 * h + 22 * l) / 451
        let month = (h + l - 7 * m + 114) / 31
        let day = (h + l - 7 * m + 114) % 31 + 1
        return LocalDate(year: year, month: month, day: day)!
    }
}
