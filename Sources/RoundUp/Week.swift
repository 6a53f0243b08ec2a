public import Foundation

/// The seven local calendar days that end with `endDate`, in one time zone.
///
/// The week is the half-open interval [`start`, `end`): local midnight at the start of its
/// first day up to, not including, local midnight after its last day. Weeks that cross a
/// clock change are 167 or 169 hours long. A transaction belongs to the week in which it
/// settled, so consecutive weeks partition the settled transactions.
public struct Week: Hashable, Sendable, CustomStringConvertible {
    /// The last day of the week.
    public let endDate: LocalDate
    /// The zone whose calendar days make up the week.
    public let timeZone: TimeZone
    /// The first instant of the week: midnight starting `startDate`, local time.
    public let start: Instant
    /// The first instant after the week: midnight after `endDate`, local time.
    public let end: Instant

    /// The first day of the week.
    public var startDate: LocalDate { endDate.adding(days: -6) }

    /// The week ending on `endDate` in `timeZone`.
    public init(endingOn endDate: LocalDate, in timeZone: TimeZone) {
        self.endDate = endDate
        self.timeZone = timeZone
        self.start = Week.startOfDay(endDate.adding(days: -6), in: timeZone)
        self.end = Week.startOfDay(endDate.adding(days: 1), in: timeZone)
    }

    /// Whether `instant` falls in [start, end).
    public func contains(_ instant: Instant) -> Bool {
        start <= instant && instant < end
    }

    /// The zone weeks are counted in unless configured otherwise: the bank's own.
    public static let defaultTimeZoneIdentifier = "Europe/London"

    /// `defaultTimeZoneIdentifier` as a zone; nil only on a system without the zone database.
    public static var defaultTimeZone: TimeZone? { TimeZone(identifier: defaultTimeZoneIdentifier) }

    /// The week's length in whole hours: 168, or 167/169 across a clock change.
    public var hours: Int { Int((end.millisecondsSince1970 - start.millisecondsSince1970) / 3_600_000) }

    /// Whether the week is over at `now`: its last local day is before today.
    public func hasEnded(at now: Instant) -> Bool { now >= end }

    /// The week a run with no `--end-date` covers: the one ending yesterday, local time,
    /// so a Monday-morning run covers Monday to Sunday.
    public static func endingYesterday(now: Instant, in timeZone: TimeZone) -> Week {
        Week(endingOn: localDate(of: now, in: timeZone).adding(days: -1), in: timeZone)
    }

    /// The local calendar date of `instant` in `timeZone`.
    public static func localDate(of instant: Instant, in timeZone: TimeZone) -> LocalDate {
        let parts = calendar(in: timeZone).dateComponents(
            [.year, .month, .day], from: Date(timeIntervalSince1970: Double(instant.millisecondsSince1970) / 1000))
        // Gregorian components of a real instant always form a valid date.
        return LocalDate(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
            ?? LocalDate(daysSinceEpoch: 0)
    }

    /// `2026-11-09 – 2026-11-15 (Europe/London)`.
    public var description: String { "\(startDate) – \(endDate) (\(timeZone.identifier))" }

    private static func calendar(in timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// The first instant of `date` in `timeZone`. Starting from local noon and asking for
    /// the start of that day handles zones whose clocks skip midnight itself.
    private static func startOfDay(_ date: LocalDate, in timeZone: TimeZone) -> Instant {
        let calendar = calendar(in: timeZone)
        let noon = DateComponents(year: date.year, month: date.month, day: date.day, hour: 12)
        guard let midday = calendar.date(from: noon) else {
            // Unreachable for a valid Gregorian date; fall back to UTC midnight.
            return Instant(millisecondsSince1970: Int64(date.daysSinceEpoch) * 86_400_000)
        }
        let midnight = calendar.startOfDay(for: midday)
        return Instant(millisecondsSince1970: Int64((midnight.timeIntervalSince1970 * 1000).rounded()))
    }
}
