import Foundation
package import RoundUp
package import RoundUpLedger
package import RoundUpVocabulary

/// Which weeks a catch-up run covers.
package enum CatchUp {
    /// Any week with an unconfirmed transfer, then each week ending on `weekEndsOn` after
    /// the oldest of the accounts' newest such weeks, up to `target`; oldest first, at most
    /// `limit`. A manual window (`--end-date` on another day) never moves the schedule: an
    /// account with none but manual weeks starts from the first `weekEndsOn` after its newest
    /// one, and payments a manual window counted are not counted again. No entries give just
    /// `target`. The notes say what was left out and why.
    ///
    /// `known` holds each account a run began, with its first scheduled week: one a run
    /// began but never recorded a week for (killed, stopped, failed) is caught up from that
    /// week, not left behind.
    package static func weeks(
        entries: [AccountWeek], through target: Week, weekEndsOn: Weekday, limit: Int,
        known: [String: LocalDate] = [:]
    ) -> ([Week], [String]) {
        let accounts = Dictionary(grouping: entries, by: \.accountUid)
        let unrecorded = known.filter { accounts[$0.key] == nil && $0.value <= target.endDate }
        guard !entries.isEmpty || !unrecorded.isEmpty else { return ([target], []) }
        // For each account, the week its schedule has reached: for one begun but never
        // recorded, the week before its first.
        let reached =
            accounts.values.map { weeks in
                weeks.map(\.weekEnd).filter { $0.weekday == weekEndsOn }.max()
                    ?? weeks.map(\.weekEnd).max()!.latest(weekEndsOn)
            } + unrecorded.values.map { $0.latest(weekEndsOn).adding(days: -7) }
        var ends = Set(entries.filter { $0.status == .pending }.map(\.weekEnd))
        let last = target.endDate.latest(weekEndsOn)
        // Whole weeks a plain run left behind, before the newest.
        let holes = holes(entries: entries, through: last, zone: target.timeZone, known: known)
        ends.formUnion(holes.weeks)
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
        if let beyond = holes.beyond { notes.append(beyondNote(beyond)) }
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

extension CatchUp {
    /// How many weeks back from the newest a catch-up looks for weeks left behind.
    static let horizonWeeks = 13

    /// Weeks in no week of the ledger (`holes`): those a catch-up through `last` rounds up,
    /// and the newest one further back than it looks, if any.
    struct Holes: Equatable {
        package var weeks: [LocalDate] = []
        var beyond: LocalDate?
    }

    /// The weeks ending on `last`'s weekday, up to `horizonWeeks` back from it, that some
    /// account's weeks leave wholly or partly uncovered, after that account's first week and
    /// with no entry of their own: whole weeks a plain run left behind, or the days a change
    /// of `weekEndsOn` left in no week. Oldest first. What another window already counted
    /// stays out of them by its identity. With `planned`, a scheduled week about to run, each
    /// account is taken to have it too, with the bounds `WeekWindow` would give it.
    static func holes(
        entries: [AccountWeek], through last: LocalDate, zone: TimeZone, planned: Week? = nil,
        known: [String: LocalDate] = [:]
    ) -> Holes {
        var found = Set<LocalDate>()
        var beyond: LocalDate?
        var accounts = Dictionary(grouping: entries, by: \.accountUid)
        for uid in known.keys where accounts[uid] == nil { accounts[uid] = [] }
        for (uid, weeks) in accounts {
            // The account's first week: its first recorded one, or the first a run began for
            // it when that is earlier (a run that never recorded it), which is a hole itself.
            let recorded = weeks.map(\.weekEnd).min()
            let begun = known[uid].flatMap { begun in recorded.map { begun < $0 } ?? true ? begun : nil }
            guard let first = begun?.adding(days: -1) ?? recorded else { continue }
            let decided = Set(weeks.map(\.weekEnd))
            var spans = weeks.map { entry in
                let local = Week(endingOn: entry.weekEnd, in: zone)
                return (start: entry.startsAt ?? local.start, end: entry.endsAt ?? local.end)
            }
            if let planned, !decided.contains(planned.endDate) {
                // With the bounds the run will give it: it may reach back over days in no week.
                let neighbours = zip(weeks, spans).map { entry, span in
                    CountedSpan(weekEnd: entry.weekEnd, start: span.start, end: span.end, itemised: true)
                }
                let window = WeekWindow.decide(planned, scheduled: true, recorded: nil, neighbours: neighbours)
                spans.append((start: window.week.start, end: window.week.end))
            }
            spans.sort { $0.start < $1.start }
            let isHole = { (end: LocalDate) in
                end > first && !decided.contains(end) && !covered(Week(endingOn: end, in: zone), by: spans)
            }
            var end = last
            for _ in 0..<horizonWeeks {
                if isHole(end) { found.insert(end) }
                end = end.adding(days: -7)
            }
            if isHole(end), beyond.map({ $0 < end }) ?? true { beyond = end }
        }
        return Holes(weeks: found.sorted(), beyond: beyond)
    }

    /// Whether `spans`, sorted by their start, cover every instant of `week`.
    static func covered(_ week: Week, by spans: [(start: Instant, end: Instant)]) -> Bool {
        var reached = week.start
        for span in spans where span.end > reached {
            guard span.start <= reached else { return false }
            reached = span.end
            if reached >= week.end { return true }
        }
        return reached >= week.end
    }

    /// What is said of a week left behind further back than a catch-up looks.
    static func beyondNote(_ week: LocalDate) -> String {
        "the week ending \(week), and any before it in no week of the ledger, is further back than a catch-up "
            + "looks (\(horizonWeeks) weeks): `roundup run --end-date \(week)` rounds it up by hand"
    }

    /// What a plain run for the scheduled week `target` says of the whole weeks before it
    /// that it leaves behind (`holes`, looked for as a catch-up through `target` would),
    /// naming `--catch-up`; nil when it leaves none.
    package static func leftBehindNotes(entries: [AccountWeek], before target: Week, known: [String: LocalDate] = [:])
        -> [String]
    {
        let holes = holes(
            entries: entries, through: target.endDate, zone: target.timeZone, planned: target, known: known)
        var notes: [String] = []
        if let oldest = holes.weeks.first {
            let count = holes.weeks.count
            let weeks = count == 1 ? "the week ending \(oldest)" : "\(count) weeks, from the one ending \(oldest),"
            notes.append(
                "\(weeks) before this one \(count == 1 ? "is" : "are") in no week of the ledger: this run leaves "
                    + "\(count == 1 ? "it" : "them") behind; `roundup run --catch-up` rounds \(count == 1 ? "it" : "them") up"
            )
        }
        if let beyond = holes.beyond { notes.append(beyondNote(beyond)) }
        return notes
    }
}

/// The requests of the current UTC day, as the ledger counts them across real runs, and
/// the daily allowance: a catch-up stops at a week boundary before it would pass 80 % of it.
package struct DailyRequests {
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

    package init(ledger: Ledger, counts: Bool, perDay: Int, now: Instant) {
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
    package func stop(before week: Week) -> String? {
        let used = earlier + sent
        guard used + (weekCost ?? 0) > threshold || used >= threshold else { return nil }
        return "stopped before the week ending \(week.endDate): \(used) requests went to the bank today (UTC), "
            + "\(sent) of them from this run, and another week would pass 80 % of maxRequestsPerDay (\(perDay)); "
            + "the next --catch-up run continues from it"
    }

    /// Counts the `count` requests of one more week of this run, in the ledger too.
    package mutating func record(_ count: Int) {
        sent += count
        weekCost = count
        if counts { try? ledger.addRequests(count, on: day) }
    }
}
