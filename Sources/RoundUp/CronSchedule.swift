public import Foundation

/// The time fields of a crontab line, as Debian's cron reads them, and the next time they
/// fire in a zone. Five fields (minute, hour, day of month, month, day of week: numbers,
/// `*`, ranges `a-b`, steps `/n`, lists, and the English three-letter names of months and
/// days), or one of `@hourly`, `@daily`, `@midnight`, `@weekly`, `@monthly`, `@yearly`,
/// `@annually`. Anything else (`@reboot`, a value out of range, another cron's extensions)
/// is not read: nil, and roundup says it cannot compute the next run.
public struct CronSchedule: Sendable, Equatable {
    let minutes: Set<Int>
    let hours: Set<Int>
    let days: Set<Int>
    let months: Set<Int>
    /// 0 is Sunday; a 7 in the line is read as 0.
    let weekdays: Set<Int>
    /// Both day fields restricted (neither starts with `*`): cron fires on a day that
    /// matches either, as crontab(5) says.
    let eitherDay: Bool
    /// The minute or the hour field starts with `*`: when the clock goes back, cron runs such a
    /// line in the repeated time as well, where it runs one of a fixed time only once, as
    /// cron(8) says.
    let wildcard: Bool

    static let monthNames = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    public init?(_ expression: String) {
        let fields = expression.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        var words = fields
        if fields.count == 1, fields[0].hasPrefix("@") {
            switch fields[0].lowercased() {
            case "@yearly", "@annually": words = ["0", "0", "1", "1", "*"]
            case "@monthly": words = ["0", "0", "1", "*", "*"]
            case "@weekly": words = ["0", "0", "*", "*", "0"]
            case "@daily", "@midnight": words = ["0", "0", "*", "*", "*"]
            case "@hourly": words = ["0", "*", "*", "*", "*"]
            default: return nil
            }
        }
        guard words.count == 5,
            let minutes = Self.field(words[0], 0...59),
            let hours = Self.field(words[1], 0...23),
            let days = Self.field(words[2], 1...31),
            let months = Self.field(words[3], 1...12, names: Self.monthNames, firstName: 1),
            let weekdays = Self.field(words[4], 0...7, names: Self.dayNames, firstName: 0)
        else { return nil }
        self.minutes = minutes
        self.hours = hours
        self.days = days
        self.months = months
        self.weekdays = Set(weekdays.map { $0 % 7 })
        eitherDay = !words[2].hasPrefix("*") && !words[4].hasPrefix("*")
        wildcard = words[0].hasPrefix("*") || words[1].hasPrefix("*")
    }

    /// The values one field allows: a list of `*`, `n`, `a-b`, each with an optional `/step`.
    private static func field(_ text: String, _ bounds: ClosedRange<Int>, names: [String] = [], firstName: Int = 0)
        -> Set<Int>?
    {
        func value(_ word: Substring) -> Int? {
            if let index = names.firstIndex(of: word.lowercased()) { return index + firstName }
            guard !word.isEmpty, word.count <= 2, word.allSatisfy({ $0.isASCII && $0.isNumber }),
                let number = Int(word),
                bounds.contains(number)
            else { return nil }
            return number
        }
        var values = Set<Int>()
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "/", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count) else { return nil }
            var step = 1
            if parts.count == 2 {
                guard parts[1].count <= 2, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }),
                    let number = Int(parts[1]),
                    number > 0
                else { return nil }
                step = number
            }
            let range: ClosedRange<Int>
            if parts[0] == "*" {
                range = bounds
            } else if let dash = parts[0].firstIndex(of: "-") {
                guard let low = value(parts[0][..<dash]), let high = value(parts[0][parts[0].index(after: dash)...]),
                    low <= high
                else { return nil }
                range = low...high
            } else {
                // `5/10` is not Debian's: a step needs a range.
                guard parts.count == 1, let single = value(parts[0]) else { return nil }
                range = single...single
            }
            values.formUnion(stride(from: range.lowerBound, through: range.upperBound, by: step))
        }
        return values
    }

    /// Whether cron fires on `date`.
    func fires(on date: LocalDate) -> Bool {
        guard months.contains(date.month) else { return false }
        let weekday = ((date.daysSinceEpoch + 4) % 7 + 7) % 7
        let (day, week) = (days.contains(date.day), weekdays.contains(weekday))
        return eitherDay ? day || week : day && week
    }

    /// The first time after `instant` that cron, running in `zone`, starts the line; nil when
    /// it never does within 28 years (`0 0 30 2 *`). A time the clock skips in spring is
    /// the moment the clock changes, when Debian's cron starts what it skipped.
    public func next(after instant: Instant, in zone: TimeZone) -> Instant? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let today = Week.localDate(of: instant, in: zone)
        let (hours, minutes) = (hours.sorted(), minutes.sorted())
        // 28 years hold every day of the month on every day of the week, 29 February among them.
        for offset in 0..<(28 * 366) {
            let date = today.adding(days: offset)
            guard fires(on: date) else { continue }
            var first: Instant?
            for hour in hours {
                for minute in minutes {
                    for time in times(date, hour, minute, calendar: calendar, zone: zone) {
                        let next = Instant(millisecondsSince1970: Int64((time.timeIntervalSince1970 * 1000).rounded()))
                        if next > instant, first.map({ next < $0 }) ?? true { first = next }
                    }
                }
            }
            if let first { return first }
        }
        return nil
    }

    /// When cron starts the line at `hour`:`minute` on `date` in `zone`: once, or twice for a
    /// `wildcard` line in the hour the clock repeats in autumn. A time the clock skips in
    /// spring is the moment it changes.
    private func times(_ date: LocalDate, _ hour: Int, _ minute: Int, calendar: Calendar, zone: TimeZone) -> [Date] {
        let parts = DateComponents(year: date.year, month: date.month, day: date.day, hour: hour, minute: minute)
        guard var time = calendar.date(from: parts) else { return [] }
        let shown = calendar.dateComponents([.hour, .minute], from: time)
        if shown.hour != hour || shown.minute != minute,
            let change = zone.nextDaylightSavingTimeTransition(after: time.addingTimeInterval(-4 * 3600)),
            change <= time
        {
            time = change
        }
        guard wildcard else { return [time] }
        // The same wall-clock time again, once the clock went back (by an hour, or half of one).
        let again = [3600.0, 1800.0].map { time.addingTimeInterval($0) }.first {
            calendar.dateComponents([.day, .hour, .minute], from: $0)
                == calendar.dateComponents([.day, .hour, .minute], from: time)
        }
        return [time] + (again.map { [$0] } ?? [])
    }
}
