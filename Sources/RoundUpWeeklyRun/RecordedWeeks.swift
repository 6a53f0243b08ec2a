import Foundation
package import RoundUp
package import RoundUpLedger
package import RoundUpVocabulary

/// The ledger's account-weeks as one run sees them, read once as it begins: the weeks of a
/// catch-up, the reports earlier runs did not write, the note of weeks left behind, and the
/// look at an account's type before its lock all take this one value. After the run's weeks,
/// those weeks alone are read again (`rereading`), for the chart, the news and the held
/// note: nothing else writes the ledger meanwhile, as the run holds the state directory's
/// lock, and a run changes no other week's standing or amount (it may note which feed item
/// confirmed an older week's transfer, which none of those readers looks at).
package struct RecordedWeeks: Sendable {
    /// Every account-week, oldest week first.
    package private(set) var weeks: [AccountWeek]
    /// Which account-weeks the ledger had when the run began.
    private let began: Set<AccountWeekKey>
    /// The accounts runs began to work on, each with the first scheduled week begun for it.
    package let known: [String: LocalDate]

    package init(_ ledger: Ledger) throws {
        weeks = try ledger.accountWeeks()
        began = Set(weeks.map(\.key))
        known = try ledger.knownAccounts()
    }

    /// Whether the ledger had `key`'s week when the run began.
    func has(_ key: AccountWeekKey) -> Bool { began.contains(key) }

    /// These weeks, with those ending on `ends` (the weeks a run worked on) as the ledger
    /// has them now.
    package func rereading(weeksEnding ends: Set<LocalDate>, from ledger: Ledger) throws -> RecordedWeeks {
        var fresh = self
        fresh.weeks = weeks.filter { !ends.contains($0.weekEnd) } + (try ledger.accountWeeks(endingOn: ends))
        fresh.weeks.sort { ($0.weekEnd, $0.accountUid) < ($1.weekEnd, $1.accountUid) }
        return fresh
    }
}
