import Foundation
import RoundUp
import RoundUpReports
import RoundUpVocabulary
import RoundUpWeek

/// Why a week is held over another ledger's transfer: the sentence, the newest week that
/// ledger's transfers name, and how much of this week's amount may be saved twice, in minor
/// units.
struct OtherLedgerHold {
    let reason: String
    let otherWeekEnd: LocalDate
    let shared: Int64

    /// Why `week` is held over another ledger's transfers in the `feed` (read from the week's
    /// start; `TransferCheck.otherLedgersTransfers`), the newest week they name, and how much
    /// of its `amount` may be saved twice: the round-ups, multiplied, of its `payments` settled
    /// when any of those weeks may cover it (up to 13 days before its end, as a week may
    /// reach back, in any time zone), or all of it when the `payments` are not known; nil
    /// when there are no such transfers, or none of the payments can be in their weeks.
    static func find(
        in feed: [FeedTransfer], ledger: [AccountWeek], week: Week, payments: [CountedTransaction]?, amount: Money,
        multiplier: Int
    ) -> OtherLedgerHold? {
        let firstDay = min(week.startDate, Week.localDate(of: week.start, in: week.timeZone))
        let foreign = TransferCheck.otherLedgersTransfers(
            firstDay: firstDay, weekEnd: week.endDate, feed: feed, ledger: ledger)
        let named = foreign.map(\.named)
        guard let (first, firstNamed) = foreign.first, let newest = named.max(), let oldest = named.min() else {
            return nil
        }
        // Those weeks, counted in any time zone, may reach from 13 days before the oldest's
        // last day to the end of the newest's, which in a zone behind this one's is up to a
        // day later: only this week's payments settled in between may be saved twice.
        let reach = (oldest.adding(days: -WeekWindow.gapDays), newest.adding(days: 1))
        let utc = TimeZone(identifier: "UTC")!
        let hour: Int64 = 3_600_000
        // Midnight UTC of the first day, as far east as a zone goes (UTC+14), and of the day
        // after the last, as far west (UTC-12).
        let earliest = Week(endingOn: reach.0, in: utc).end.adding(milliseconds: -24 * hour - 14 * hour)
        let latest = Week(endingOn: newest, in: utc).end.adding(milliseconds: 12 * hour)
        let sharedRoundUps = (payments ?? []).reduce(Int64(0)) { sum, payment in
            guard let settled = payment.settlementTime, earliest <= settled, settled < latest else { return sum }
            return Savings.add(sum, payment.roundUp.minorUnits)
        }
        let (multiplied, overflow) = sharedRoundUps.multipliedReportingOverflow(by: Int64(multiplier))
        let shared = payments == nil ? amount.minorUnits : min(amount.minorUnits, overflow ? Int64.max : multiplied)
        // None of this week's payments can be in those weeks: nothing can be saved twice.
        guard shared > 0 else { return nil }
        let goal = first.goalName.map { "\"\(TransferCheck.quoted($0))\"" } ?? TransferCheck.quoted(first.goalUid)
        let more = foreign.count > 1 ? ", and \(foreign.count - 1) more such transfer(s)" : ""
        let sharedText = Money.describe(minorUnits: shared, code: amount.currency.code)
        let reason =
            "the feed shows a transfer of \(first.amountText) into \(goal) (\(first.described), "
            + "\(TransferCheck.quoted(first.status))) whose reference names the week ending "
            + "\(firstNamed)\(more), which this ledger did not make: another state "
            + "directory or config saving for this account may have counted this week's payments of "
            + "\(days(overlap((firstDay, week.endDate), (reach.0, max(newest, firstDay))))) (up to "
            + "\(sharedText) of this week's "
            + "\(amount)); nothing was sent. `roundup resolve --abandon REASON` records this week's payments "
            + "without moving them; `--retry` sends anyway"
        return OtherLedgerHold(reason: reason, otherWeekEnd: newest, shared: shared)
    }

    /// The days two spans of days share, as (first, last); nil when none.
    static func overlap(_ a: (LocalDate, LocalDate), _ b: (LocalDate, LocalDate)) -> (LocalDate, LocalDate)? {
        let first = max(a.0, b.0)
        let last = min(a.1, b.1)
        return first <= last ? (first, last) : nil
    }

    /// "2026-11-12 to 2026-11-15", "2026-11-12", or "no day".
    static func days(_ span: (LocalDate, LocalDate)?) -> String {
        guard let (first, last) = span else { return "no day" }
        return first == last ? "\(first)" : "\(first) to \(last)"
    }
}
