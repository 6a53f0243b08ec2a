public import Foundation

/// The seven local calendar days that end with `endDate`, in one time zone.
///
/// The week is the half-open interval [`start`, `end`): local midnight at the start of its
/// first day up to, not including, local midnight after its last day. Weeks that cross a
/// clock change are 167 or 169 hours long. A transaction belongs to the week in which it
/// settled, so consecutive weeks partition the settled transactions. A week may also be
/// given other bounds (`bounded(from:to:)`): one that follows a week counted in another
/// zone starts where that one ended, so that nothing falls between the two.
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
        self.init(
            endDate: endDate, timeZone: timeZone, start: Week.startOfDay(endDate.adding(days: -6), in: timeZone),
            end: Week.startOfDay(endDate.adding(days: 1), in: timeZone))
    }

    private init(endDate: LocalDate, timeZone: TimeZone, start: Instant, end: Instant) {
        self.endDate = endDate
        self.timeZone = timeZone
        self.start = start
        self.end = end
    }

    /// The same week (its end date and zone) between other instants: `start` up to, not
    /// including, `end`. An `end` before `start` gives an empty week at `start`.
    public func bounded(from start: Instant, to end: Instant) -> Week {
        Week(endDate: endDate, timeZone: timeZone, start: start, end: max(start, end))
    }

    /// The week as its seven local days make it, whatever bounds this one was given.
    public var local: Week { Week(endingOn: endDate, in: timeZone) }

    /// Whether the week has its seven local days' bounds.
    public var isLocal: Bool { self == local }

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

    /// The week's length in milliseconds.
    public var milliseconds: Int64 { end.millisecondsSince1970 - start.millisecondsSince1970 }

    /// Whether the week is over at `now`: its last local day is before today.
    public func hasEnded(at now: Instant) -> Bool { now >= end }

    /// The newest week ending on `weekday` that is over at `now`: the week a run with no
    /// `--end-date` covers. With weeks ending on Sunday, a run on any day from Monday to
    /// Sunday covers the Monday to Sunday before it.
    public static func newest(endingOn weekday: Weekday, before now: Instant, in timeZone: TimeZone) -> Week {
        Week(endingOn: localDate(of: now, in: timeZone).adding(days: -1).latest(weekday), in: timeZone)
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
