import RoundUp

/// Which weeks a catch-up run covers.
enum CatchUp {
    /// Any week with an unconfirmed transfer, then each week after the newest one in
    /// `entries`, seven days apart so that none overlaps it, up to `target`; oldest first,
    /// at most `limit`. No entries give just `target`. The notes say what was left out and why.
    static func weeks(entries: [LedgerEntry], through target: Week, limit: Int) -> ([Week], [String]) {
        guard let newest = entries.map(\.weekEnd).max() else { return ([target], []) }
        var ends = Set(entries.filter { $0.status == .pending }.map(\.weekEnd))
        var next = newest.adding(days: 7)
        while next <= target.endDate {
            ends.insert(next)
            next = next.adding(days: 7)
        }
        var notes: [String] = []
        if ends.isEmpty {
            notes.append("nothing to catch up: the ledger already has the week ending \(newest)")
        } else if next.adding(days: -7) != target.endDate, target.endDate > newest {
            notes.append(
                "the week ending \(target.endDate) shares days with the week ending \(next.adding(days: -7)); "
                    + "catch-up keeps to weeks seven days apart from \(newest)")
        }
        let sorted = ends.sorted()
        if sorted.count > limit {
            notes.append("\(sorted.count) weeks to catch up; this run does the oldest \(limit), the next run continues")
        }
        return (sorted.prefix(limit).map { Week(endingOn: $0, in: target.timeZone) }, notes)
    }
}
