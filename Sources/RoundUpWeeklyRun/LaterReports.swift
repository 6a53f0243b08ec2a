package import Foundation
package import RoundUp
package import RoundUpLedger
import RoundUpOutput
import RoundUpReports
import RoundUpVocabulary
import RoundUpWeek

/// A week's report that its run did not write (the run was killed or crashed after it
/// recorded the week, or the disk was full) is written by the next real run, once, rebuilt
/// from what the ledger keeps of the week: each account's entry and the payments it
/// counted. The run says so; a rerun whose report exists writes none.
package enum LaterReports {
    /// What writing them said: each week written, and what failed, which the run's exit
    /// status shows (78), as a report it could not write itself would.
    package struct Said {
        package var written: [String] = []
        package var failed: [String] = []

        package init(
            written: [String] = [], failed: [String] = []
        ) {
            self.written = written
            self.failed = failed
        }
    }

    /// Writes the report of each week the ledger marks as missing one, from the run's
    /// reading of its weeks (`recorded`), and clears the mark; what is said of each.
    package static func write(
        from ledger: Ledger, recorded: Result<RecordedWeeks, any Error>, to directory: String, token: AccessToken,
        zone: TimeZone, at now: Instant
    ) -> Said {
        var said = Said()
        guard let weeks = try? ledger.weeksMissingReports(), !weeks.isEmpty else { return said }
        let entries: [AccountWeek]
        do {
            entries = try recorded.get().weeks
        } catch {
            said.failed.append("the reports its runs did not write cannot be rebuilt: \(plainDescription(error))")
            return said
        }
        for weekEnd in weeks {
            do {
                let entries = entries.filter { $0.weekEnd == weekEnd }
                let report = try rebuild(weekEnd: weekEnd, entries: entries, zone: zone, at: now) { entry, currency in
                    try ledger.recordedPayments(accountUid: entry.accountUid, weekEnd: weekEnd, in: currency)
                }
                let path = try ReportWriter.write(report, to: directory, token: token, at: now)
                try ledger.clearReportMissing(weekEnd: weekEnd)
                said.written.append(
                    "the report of the week ending \(weekEnd), which its run did not write, is written now, "
                        + "rebuilt from the ledger: \(path)")
            } catch let failure as ReportWriter.LinkFailure {
                try? ledger.clearReportMissing(weekEnd: weekEnd)
                said.failed.append(
                    "the report of the week ending \(weekEnd), which its run did not write, is written now, "
                        + "rebuilt from the ledger; \(plainDescription(failure))")
            } catch {
                said.failed.append(
                    "the report of the week ending \(weekEnd), which its run did not write, still cannot be "
                        + "written: \(plainDescription(error)); the next run tries again")
            }
        }
        return said
    }

    /// The report of the week ending `weekEnd` from the ledger's `entries` of it and each
    /// one's `payments`, as of `now`.
    static func rebuild(
        weekEnd: LocalDate, entries: [AccountWeek], zone: TimeZone, at now: Instant,
        payments: (AccountWeek, Currency) throws -> (listed: [CountedTransaction], unlisted: [Money])
    ) throws -> WeekReport {
        // The week in the zone it was counted in, as the ledger says, where this machine can
        // write times in it; else the configured one.
        let counted = entries.lazy.compactMap(\.timeZone).compactMap(TimeZone.init(identifier:)).first {
            ZoneData.problem(with: $0) == nil
        }
        let week = Week(endingOn: weekEnd, in: counted ?? zone)
        let accounts = try entries.map { entry in
            try account(entry, payments: { try payments(entry, $0) }, week: week, at: now)
        }
        return WeekReport(
            generator: "roundup \(roundupVersion)", generatedAt: now, dryRun: false, week: week, accounts: accounts,
            exitCode: ExitStatus.overall(accounts.map(\.exitCode)))
    }

    /// The account's part of the report, built as a run builds it, from what the ledger
    /// kept of the week: its fate, its payments, its transfer and the bounds it was counted in.
    private static func account(
        _ entry: AccountWeek, payments: (Currency) throws -> (listed: [CountedTransaction], unlisted: [Money]),
        week: Week, at now: Instant
    ) throws -> AccountReport {
        var detail =
            "written later, from the ledger, at \(now.iso8601): the run that recorded this week did not write its "
            + "report"
        var findings = AccountFindings()
        if let currency = Currency(code: entry.currency) {
            let (listed, unlisted) = try payments(currency)
            if !unlisted.isEmpty {
                detail += "; \(unlisted.count) payment(s) counted before the ledger kept their amounts are not listed"
            }
            let sum = (listed.map(\.roundUp) + unlisted).reduce(0) { $0 + $1.minorUnits }
            findings.recorded = (listed, Money(minorUnits: sum, currency: currency))
            findings.movement = Movement(recorded: entry, currency: currency)
        }
        if let why = entry.note ?? entry.reason { detail += "; \(why)" }
        if let start = entry.startsAt, let end = entry.endsAt, start != week.start || end != week.end {
            findings.window = WeekWindow(
                week: week.bounded(from: start, to: end), note: "the bounds the ledger recorded for this account's week"
            )
        }
        return AccountReport(
            accountUid: entry.accountUid, name: entry.accountName, currency: entry.currency, accountType: nil,
            outcome: .recorded(entry, detail), findings: findings)
    }
}
