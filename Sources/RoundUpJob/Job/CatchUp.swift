import Foundation
import RoundUp

/// Which weeks a catch-up run covers.
enum CatchUp {
    /// Any week with an unconfirmed transfer, then each week ending on `weekEndsOn` after
    /// the oldest of the accounts' newest such weeks, up to `target`; oldest first, at most
    /// `limit`. A manual window (`--end-date` on another day) never moves the schedule: an
    /// account with none but manual weeks starts from the first `weekEndsOn` after its newest
    /// one, and payments a manual window counted are not counted again. No entries give just
    /// `target`. The notes say what was left out and why.
    static func weeks(entries: [LedgerEntry], through target: Week, weekEndsOn: Weekday, limit: Int)
        -> ([Week], [String])
    {
        guard !entries.isEmpty else { return ([target], []) }
        let accounts = Dictionary(grouping: entries, by: \.accountUid)
        // For each account, the week its schedule has reached.
        let reached = accounts.values.map { weeks in
            weeks.map(\.weekEnd).filter { $0.weekday == weekEndsOn }.max()
                ?? weeks.map(\.weekEnd).max()!.latest(weekEndsOn)
        }
        var ends = Set(entries.filter { $0.status == .pending }.map(\.weekEnd))
        let last = target.endDate.latest(weekEndsOn)
        var next = reached.min()!.adding(days: 7)
        while next <= last {
            ends.insert(next)
            next = next.adding(days: 7)
        }
        var notes: [String] = []
        if last != target.endDate {
            notes.append(
                "catch-up rounds up weeks ending on a \(weekEndsOn.name) (weekEndsOn); the newest up to "
                    + "\(target.endDate) ends on \(last)")
        }
        if ends.isEmpty {
            notes.append("nothing to catch up: the ledger already has the week ending \(reached.max()!)")
        }
        let sorted = ends.sorted()
        if sorted.count > limit {
            notes.append("\(sorted.count) weeks to catch up; this run does the oldest \(limit), the next run continues")
        }
        return (sorted.prefix(limit).map { Week(endingOn: $0, in: target.timeZone) }, notes)
    }
}

/// The requests of the current UTC day, as the ledger counts them across real runs, and
/// the daily allowance: a catch-up stops at a week boundary before it would pass 80 % of it.
struct DailyRequests {
    let ledger: Ledger
    /// Whether this run's requests are counted in the ledger: not for a dry run, which
    /// writes nothing (its ledger is a copy in memory).
    let counts: Bool
    let perDay: Int
    let day: LocalDate
    /// Sent today before this run.
    let earlier: Int
    /// What the newest week cost, here or in an earlier run; what the next week is taken to cost.
    private(set) var weekCost: Int?
    /// Sent by this run.
    private(set) var sent = 0

    init(ledger: Ledger, counts: Bool, perDay: Int, now: Instant) {
        self.ledger = ledger
        self.counts = counts
        self.perDay = perDay
        day = Week.localDate(of: now, in: TimeZone(identifier: "UTC")!)
        earlier = (try? ledger.requests(on: day)) ?? 0
        weekCost = (try? ledger.lastWeekCost()) ?? nil
    }

    /// What a catch-up keeps under.
    var threshold: Int { perDay * 8 / 10 }

    /// Why a catch-up stops before `week`, or nil to go on: the week is taken to cost what
    /// the newest one did (nothing known: only an allowance already spent stops it).
    func stop(before week: Week) -> String? {
        let used = earlier + sent
        guard used + (weekCost ?? 0) > threshold || used >= threshold else { return nil }
        return "stopped before the week ending \(week.endDate): \(used) requests went to the bank today (UTC), "
            + "\(sent) of them from this run, and another week would pass 80 % of maxRequestsPerDay (\(perDay)); "
            + "the next --catch-up run continues from it"
    }

    /// Counts the `count` requests of one more week of this run, in the ledger too.
    mutating func record(_ count: Int) {
        sent += count
        weekCost = count
        if counts { try? ledger.addRequests(count, on: day) }
    }
}
