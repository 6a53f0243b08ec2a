import Foundation
import JobTestSupport
import RoundUp
import RoundUpCommands
import RoundUpHost
import RoundUpLedger
import RoundUpVocabulary
import StarlingEmulator
import TestSupport
import Testing

/// `roundup status`'s judgement from the ledger, at chosen moments.
@Suite struct StatusTests {
    static let weekEnd = "2026-11-15"

    /// A week held for a person: a warning for its first day, critical after; the run that
    /// held it (exit 78) is judged by that, not as a run that needs a person.
    @Test func aHeldWeekIsAWarningForADayThenCritical() async throws {
        var bank = TestBank()
        let account = bank.account("GBP", name: "Personal")
        bank.goal(account, name: "Round-ups", uid: "90000000-0000-4000-8000-0000000000ab", state: "CREATING")
        bank.spend(account, 101, settled: londonWeek(Self.weekEnd).start.adding(milliseconds: 3_600_000))
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state) { server in
            let result = await harness.run(
                server, endDate: Self.weekEnd, config: JobHarness.quickRetries + "goalWaitSeconds: 0\n")
            #expect(result.status == .configuration)
            let ledger = try harness.ledger()
            let now = Instant.now
            let id = try ledger.startRun(at: now)
            var held = RunRecord(
                id: id, startedAt: now, endedAt: now, exitCode: 78, weeks: Self.weekEnd, accountsDone: 0,
                accountsHeld: 1, accountsFailed: 0, summary: "exit 78: week ending 2026-11-15; 1 held")
            held.onlyHeld = true
            try ledger.finishRun(held)
            let today = JobHealth.find(stateDirectory: harness.stateDirectory, now: now, scheduling: nil)
            #expect(today.level == .critical, "no run has succeeded yet: \(today.reasons)")
            #expect(today.reasons.contains { $0.contains("is held, waiting for a person: roundup resolve") })
            #expect(!today.reasons.contains { $0.contains("needs a person") }, "\(today.reasons)")

            // A successful run since, and the held week still waiting.
            let success = try ledger.startRun(at: now)
            try ledger.finishRun(
                RunRecord(
                    id: success, startedAt: now, endedAt: now, exitCode: 0, weeks: "2026-11-08", accountsDone: 1,
                    accountsHeld: 0, accountsFailed: 0, summary: "exit 0"))
            #expect(JobHealth.find(stateDirectory: harness.stateDirectory, now: now, scheduling: nil).level == .warning)
            let tomorrow = now.adding(milliseconds: 25 * 3_600_000)
            let later = JobHealth.find(stateDirectory: harness.stateDirectory, now: tomorrow, scheduling: nil)
            #expect(later.level == .critical)
            #expect(later.reasons.contains { $0.contains("has waited for a person since") })
            let quiet = JobHealth.find(
                stateDirectory: harness.stateDirectory, now: now.adding(milliseconds: 9 * 86_400_000), scheduling: nil)
            #expect(quiet.reasons.contains { $0.contains("more than 8 days ago") })

            // A run that ended 78 for another reason is not hidden by the held week.
            let tls = try ledger.startRun(at: now)
            try ledger.finishRun(
                RunRecord(
                    id: tls, startedAt: now, endedAt: now, exitCode: 78, weeks: Self.weekEnd, accountsDone: 0,
                    accountsHeld: 0, accountsFailed: 0, summary: "exit 78: the certificate is not trusted"))
            let other = JobHealth.find(stateDirectory: harness.stateDirectory, now: now, scheduling: nil)
            #expect(other.level == .critical)
            #expect(other.reasons.contains { $0.contains("needs a person (exit 78)") })
            // The run's summary is shown once, on the last run's line, not again among the reasons.
            let text = JobHealth.text(other)
            #expect(text.components(separatedBy: "the certificate is not trusted").count == 2, "\(text)")
        }
    }

    /// Exits from outside sysexits: a signal's may pass (the next run finishes the rest);
    /// anything else needs a person. A held week does not hide another failure.
    @Test(arguments: [(Int32(143), JobHealth.Level.warning), (130, .warning), (70, .critical), (75, .warning)])
    func anyExitCodeIsJudged(code: Int32, level: JobHealth.Level) throws {
        let directory = try TemporaryDirectory()
        let ledger = try Ledger(path: Ledger.path(in: directory.path))
        let now = Instant.now
        for (exit, weeks) in [(Int32(0), "2026-11-08"), (code, "2026-11-15")] {
            let id = try ledger.startRun(at: now)
            try ledger.finishRun(
                RunRecord(
                    id: id, startedAt: now, endedAt: now, exitCode: exit, weeks: weeks, accountsDone: 0,
                    accountsHeld: 0, accountsFailed: 0, summary: "exit \(exit)"))
        }
        #expect(JobHealth.find(stateDirectory: directory.path, now: now, scheduling: nil).level == level)
    }

    @Test func noLedgerIsUnknown() throws {
        let directory = try TemporaryDirectory()
        let finding = JobHealth.find(stateDirectory: directory.path + "/none", now: .now, scheduling: nil)
        #expect(finding.level == .unknown)
        #expect(JobHealth.text(finding).hasPrefix("roundup UNKNOWN"))
    }

    /// The one-line summary the monitor gets names no account.
    @Test func theSummaryLeavesOutAccountUids() {
        var result = CommandResult(
            status: .configuration, output: "",
            said: [
                Diagnostic(
                    .failure,
                    "goals: in the config names the account b0b20c9d-3b6b-42f1-a7d0-e70d4538e0d9, which is not one")
            ])
        result.tally.weeks = [LocalDate(iso: "2026-11-15")!]
        let summary = RunWatch.summary(of: result)
        // No account-week was reached: no counts that would read as "0 held".
        #expect(summary.hasPrefix("exit 78: week ending 2026-11-15; goals: in the config"), "\(summary)")
        #expect(!summary.contains("0 held"))
        #expect(summary.contains("names the account …, which"), "\(summary)")
        #expect(!summary.contains("b0b20c9d"))
    }

    /// A catch-up that found nothing to run says so, rather than "0 account-week(s) done".
    @Test func aRunWithNoWeekToRunSaysSo() {
        let nothing = RunWatch.summary(of: CommandResult(status: .ok, output: ""))
        #expect(nothing == "exit 0: no week to run: the ledger already has every finished week")
        var one = CommandResult(status: .ok, output: "")
        one.tally.weeks = [LocalDate(iso: "2026-11-15")!]
        #expect(
            RunWatch.summary(of: one)
                == "exit 0: week ending 2026-11-15; 0 account-week(s) done, 0 held, 0 unconfirmed, 0 failed")
    }

    /// An account's newest week, over for more than a day and recorded by no run: a warning,
    /// as when the schedule stopped firing. A successful run of that week that left the
    /// account out (the bank no longer lists it) settles it.
    @Test func aWeekNoRunRecordedIsAWarningADayAfterItEnded() async throws {
        var bank = TestBank()
        let account = bank.account("GBP", name: "Personal")
        bank.goal(account, name: "Round-ups", uid: "90000000-0000-4000-8000-0000000000ac")
        bank.spend(account, 101, settled: londonWeek(Self.weekEnd).start.adding(milliseconds: 3_600_000))
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state) { server in
            let result = await harness.run(server, endDate: Self.weekEnd, config: JobHarness.quickRetries)
            #expect(result.status == .ok)
            let ledger = try harness.ledger()
            let first = try ledger.startRun(at: Instant(iso8601: "2026-11-16T06:00:00Z")!)
            try ledger.finishRun(
                RunRecord(
                    id: first, startedAt: Instant(iso8601: "2026-11-16T06:00:00Z")!,
                    endedAt: Instant(iso8601: "2026-11-16T06:00:01Z")!, exitCode: 0, weeks: Self.weekEnd,
                    accountsDone: 1, accountsHeld: 0, accountsFailed: 0, summary: "exit 0"))
            // The week ending Sunday 22 November ended at midnight in London (00:00 UTC).
            let find = { (now: String) in
                JobHealth.find(
                    stateDirectory: harness.stateDirectory, now: Instant(iso8601: now)!, scheduling: nil,
                    zone: TestBank.london)
            }
            // The run itself was successful: only the missing week is judged here.
            #expect(find("2026-11-23T23:59:00Z").missing == nil, "less than a day after it ended")
            let late = find("2026-11-24T00:01:00Z")
            #expect(late.missing?.weekEnd == LocalDate(iso: "2026-11-22"))
            #expect(late.missing?.labels == ["Personal (GBP)"], "\(String(describing: late.missing))")
            #expect(
                late.reasons.contains {
                    $0.hasPrefix(
                        "the week ending 2026-11-22 ended more than a day ago, and no run has recorded it for "
                            + "Personal (GBP)")
                }, "\(late.reasons)")
            // A run with a Saturday week end reads the week that ended on Saturday 21.
            let saturday = JobHealth.find(
                stateDirectory: harness.stateDirectory, now: Instant(iso8601: "2026-11-23T00:01:00Z")!,
                scheduling: nil, zone: TestBank.london, weekEndsOn: .saturday)
            #expect(saturday.missing?.weekEnd == LocalDate(iso: "2026-11-21"))
            let id = try ledger.startRun(at: Instant(iso8601: "2026-11-23T06:00:00Z")!)
            try ledger.finishRun(
                RunRecord(
                    id: id, startedAt: Instant(iso8601: "2026-11-23T06:00:00Z")!,
                    endedAt: Instant(iso8601: "2026-11-23T06:00:01Z")!, exitCode: 0, weeks: "2026-11-22",
                    accountsDone: 0, accountsHeld: 0, accountsFailed: 0, summary: "exit 0"))
            #expect(find("2026-11-24T00:01:00Z").missing == nil, "the week's run succeeded without the account")
        }
    }
}
