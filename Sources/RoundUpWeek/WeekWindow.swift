import Foundation
public import RoundUp
public import RoundUpVocabulary

/// Where one account's week begins and ends, decided from the ledger's neighbouring weeks
/// alone (pure; the job reads them and carries the bounds out).
///
/// A week is its seven local days, with these exceptions, each said in the report:
/// - a scheduled week (ending on `weekEndsOn`) that follows another starts where that one
///   ended, when that end lies within 26 hours of its own local start: after a change of
///   `timeZone` nothing is counted twice and nothing falls between the two;
/// - a scheduled week whose account's newest week ended earlier than that, less than a
///   whole week before it begins (`weekEndsOn` changed), reaches back to where it ended,
///   so that no day falls in no week; what that week counted stays out by its identity;
/// - no week reaches into the instants of a week decided before the ledger kept each
///   payment it counted, as those payments cannot be told apart one by one.
///
/// A week the ledger already holds keeps the bounds it was decided with, so that a rerun
/// counts what the first run counted.
public struct WeekWindow: Sendable, Equatable {
    /// The week with its bounds.
    public var week: Week
    /// Why the bounds differ from the seven local days; nil when they do not.
    public var note: String?

    package init(
        week: Week, note: String? = nil
    ) {
        self.week = week
        self.note = note
    }

    /// How far a scheduled week reaches to meet the week before it.
    public static let reach: Int64 = 26 * 3_600_000
    /// How many days before its own end the week before a scheduled week may end for the
    /// scheduled week to reach back to it: less than a whole week falls between the two.
    /// A longer gap is whole weeks, which `--catch-up` rounds up (`CatchUp`).
    public static let gapDays = 13

    public static func decide(
        _ week: Week, scheduled: Bool, recorded: AccountWeek?, neighbours: [CountedSpan]
    ) -> WeekWindow {
        let local = week.local
        if let recorded, let start = recorded.startsAt, let end = recorded.endsAt {
            let kept = local.bounded(from: start, to: end)
            guard kept != local else { return WeekWindow(week: local, note: nil) }
            return WeekWindow(
                week: kept,
                note: "\(change(from: local, to: kept)) as it was when this week was first decided: it runs from "
                    + "\(start) to \(end)")
        }
        var start = local.start
        var end = local.end
        var reasons: [String] = []
        let earlier = neighbours.filter { $0.weekEnd != week.endDate }
        if scheduled,
            let previous = earlier.filter({
                $0.weekEnd < week.endDate && abs($0.end.millisecondsSince1970 - start.millisecondsSince1970) <= reach
            }).max(by: { $0.end < $1.end }), previous.end != start
        {
            let zone = previous.timeZone.map { " (counted in \($0))" } ?? ""
            let purpose =
                previous.end < start
                ? "so that no payment falls between the two" : "so that no payment is counted in both"
            reasons.append(
                "it starts at \(previous.end), where the week ending \(previous.weekEnd)\(zone) ended, \(purpose)")
            start = previous.end
        } else if scheduled,
            let newest = earlier.filter({ $0.weekEnd < week.endDate }).max(by: { $0.end < $1.end }),
            newest.end < start, newest.weekEnd >= week.endDate.adding(days: -gapDays)
        {
            // The days before it are in no week (the schedule's day changed, or the week
            // before ended on another day): it reaches back over them, short of a whole week.
            reasons.append(
                "it starts at \(newest.end), where the week ending \(newest.weekEnd) ended, so that no day falls "
                    + "between the two (that week ended on a \(newest.weekEnd.weekday.name), this one on a "
                    + "\(week.endDate.weekday.name))")
            start = newest.end
        }
        // Weeks whose payments the ledger cannot tell apart: never reached into.
        for whole in earlier.filter({ !$0.itemised }).sorted(by: { $0.start < $1.start }) {
            guard whole.start < end, start < whole.end else { continue }
            if whole.start <= start {
                start = whole.end
                reasons.append(
                    "it starts at \(whole.end), where the week ending \(whole.weekEnd) ended, as that week was "
                        + "counted before the ledger kept each payment it counted")
            } else {
                end = whole.start
                reasons.append(
                    "it ends at \(whole.start), where the week ending \(whole.weekEnd) began, as that week was "
                        + "counted before the ledger kept each payment it counted")
            }
        }
        let bounded = local.bounded(from: start, to: end)
        guard bounded != local else { return WeekWindow(week: local, note: nil) }
        return WeekWindow(
            week: bounded, note: "\(change(from: local, to: bounded)): " + reasons.joined(separator: "; "))
    }

    /// "stretched by 13 hours" or "shortened by 5 hours 30 minutes", against the seven local days.
    static func change(from local: Week, to bounded: Week) -> String {
        let difference = bounded.milliseconds - local.milliseconds
        if difference == 0 { return "moved" }
        return "\(difference > 0 ? "stretched" : "shortened") by \(duration(abs(difference)))"
    }

    /// `13 hours`, `5 hours 30 minutes`, `45 minutes`.
    static func duration(_ milliseconds: Int64) -> String {
        let minutes = milliseconds / 60_000
        let (hours, rest) = (minutes / 60, minutes % 60)
        let hourText = hours == 1 ? "1 hour" : "\(hours) hours"
        let minuteText = rest == 1 ? "1 minute" : "\(rest) minutes"
        if hours == 0 { return minuteText }
        return rest == 0 ? hourText : "\(hourText) \(minuteText)"
    }
}
